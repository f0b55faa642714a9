"""The eleventh corpus (``tests/robust/corpus11.py``: 2015-2025 activations (xIELU,
TeLU, GoLU, squared ReLU and PolyReLU, Squareplus, KAN pieces, periodic and rational
units, StableMax, DyT) and losses (Barron's general loss near alpha = 0, 2 and 3,
Student-t, log-normal, beta and Kumaraswamy likelihoods, expectile and quantile Huber,
Tversky, Poly-1, logit adjustment, contrastive, InfoNCE, hinge variants, CosFace,
cumulative-link ordinal likelihood), typed in the spellings users paste, a ``def``
with ``if``/``else`` included, constants from 1e-8 to 1e8, zero and negative),
compiled by symnb, against independent mpmath references under issue 8's rule, by the
shared judge (``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus import ALL
from tests.robust.corpus6 import ALL6
from tests.robust.corpus7 import CORPUS7
from tests.robust.corpus8 import CORPUS8
from tests.robust.corpus9 import CORPUS9
from tests.robust.corpus10 import CORPUS10
from tests.robust.corpus11 import CORPUS11, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus11(CorpusJudge):
    ENTRIES = tuple(CORPUS11)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 60
    EARLIER = names_of(ALL, ALL6, CORPUS7, CORPUS8, CORPUS9, CORPUS10)
