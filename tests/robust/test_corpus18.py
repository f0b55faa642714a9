"""The eighteenth corpus (``tests/robust/corpus18.py``: a difference of lgamma at
arguments a constant apart that overflow before the value does, a zero weight before
an exponential, compositions that cancel only asymptotically, a Richards/Gompertz gate
at 1e-8, GoLU in a def, Chebyshev, Hermite and RBF bases, the Morlet wavelet, KL of Bernoullis, soft Dice, BCE with logs of sigmoids, Tversky and a
logistic loss at scale 1e8, typed in the spellings users paste), compiled by symnb,
against independent mpmath references under issue 8's rule, by the shared judge
(``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus18 import CORPUS18, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_before


class TestCorpus18(CorpusJudge):
    ENTRIES = tuple(CORPUS18)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 19
    EARLIER = names_before(18)
