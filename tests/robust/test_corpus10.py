"""The tenth corpus (``tests/robust/corpus10.py``: 2017-2025 activations (SMU, ErfAct,
Serf, Dice, PDELU, StarReLU, Padé units, library spellings of TensorFlow, Keras and
JAX) and losses of the residual, the margin or a rate (wing and adaptive wing,
balanced L1, entmax pieces, KL, Poisson, gamma and Tweedie deviances, Gumbel, Weibull,
log-logistic and Laplace likelihoods, asymmetric and class-weighted cross-entropy),
typed in the spellings users paste, constants from 1e-8 to 1e8, zero and negative),
compiled by symnb, against independent mpmath references under issue 8's rule, by the
shared judge (``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus import ALL
from tests.robust.corpus6 import ALL6
from tests.robust.corpus7 import CORPUS7
from tests.robust.corpus8 import CORPUS8
from tests.robust.corpus9 import CORPUS9
from tests.robust.corpus10 import CORPUS10, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus10(CorpusJudge):
    ENTRIES = tuple(CORPUS10)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 95
    EARLIER = names_of(ALL, ALL6, CORPUS7, CORPUS8, CORPUS9)
