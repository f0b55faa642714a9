"""``log1p(-sigmoid(u))`` is ``logsigmoid(-u)`` (``symnb.formula.stability``): sigmoid(u)
rounds to 1 near the log's pole, so the log-odds ``log(p) - log1p(-p)`` at
p = sigmoid(x) (ORPO's odds ratio, a logit written with log1p), which is x, was
9.99954 at x = 10 and inf from x = 20 in float32, 30.001 at x = 30 and inf from x = 40
in float64.

Found by the fourteenth formula probe. Judged at the corpus's sample points against
SymPy + mpmath references (``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_judged_meets_rule

CASES = (
    Published(
        "log_odds_of_sigmoid_log1p",
        "log(sigmoid(x)) - log1p(-sigmoid(x))",
        "log-odds of p = sigmoid(x) with log1p (the identity x)",
    ),
    Published(
        "log1p_minus_sigmoid_scaled",
        "log1p(-sigmoid(k*x))",
        "log(1 - sigmoid(k x)) with log1p, k = 3",
        {"k": 3.0},
    ),
)

#: the same functions in forms mpmath evaluates at every point (its f' of the typed
#: text cancels 1 - sigmoid(x) beyond the reference's precision from x = 200)
REFERENCE_TEXT = {
    "log_odds_of_sigmoid_log1p": "x",
    "log1p_minus_sigmoid_scaled": "-log(1 + exp(k*x))",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_log1p_of_minus_sigmoid_meets_the_rule(entry, dtype):
    assert_judged_meets_rule(entry, REFERENCE_TEXT, "numpy", dtype)
