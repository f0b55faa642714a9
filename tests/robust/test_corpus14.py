"""The fourteenth corpus (``tests/robust/corpus14.py``: APTx, S-shaped ReLU, GoLU,
xIELU, PFLU, DSU, KAN basis functions, the soft exponential, the Matern 5/2
and von Mises kernels, the Richards curve, the log-odds of a sigmoid, Wing and Adaptive
Wing, Welsch, Barron's general loss, the asymmetric loss, Student-t NLL and the
Bernoulli KL, typed in the spellings users paste, constants from 1e-8 to 1e8),
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
from tests.robust.corpus11 import CORPUS11
from tests.robust.corpus12 import CORPUS12
from tests.robust.corpus13 import CORPUS13
from tests.robust.corpus14 import CORPUS14, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus14(CorpusJudge):
    ENTRIES = tuple(CORPUS14)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 22
    EARLIER = names_of(
        ALL, ALL6, CORPUS7, CORPUS8, CORPUS9, CORPUS10, CORPUS11, CORPUS12, CORPUS13
    )
