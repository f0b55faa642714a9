"""The seventeenth corpus (``tests/robust/corpus17.py``: a tanh rescaled to [-1e8,
1e8], a smooth max of three affine pieces and mellowmax at 1e-8, soft clipping, the
soft root sign, SQNL, symlog, erfcx, log-sum-exp, Tukey's biweight, Student-t and
generalized cross entropy losses, removable quotients, cubed and squared ReLU, Hard-
Mish, Barron's loss, Serf and a tanh staircase, typed in the spellings users paste,
constants from 1e-8 to 1e8), compiled by symnb, against independent mpmath references
under issue 8's rule, by the shared judge (``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus17 import CORPUS17, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_before


class TestCorpus17(CorpusJudge):
    ENTRIES = tuple(CORPUS17)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 24
    EARLIER = names_before(17)
