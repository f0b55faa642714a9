"""The eighteenth corpus (``tests/robust/corpus18.py``: a difference of lgamma at
arguments a constant apart that overflow before the value does, a zero weight before
an exponential, compositions that cancel only asymptotically, a Richards/Gompertz gate
at 1e-8, GoLU in a def, Chebyshev, Hermite and RBF bases, the Morlet wavelet, KL of Bernoullis, soft Dice, BCE with logs of sigmoids, Tversky and a
logistic loss at scale 1e8, typed in the spellings users paste), compiled by symnb,
against independent mpmath references under issue 8's rule, by the shared judge
(``tests/robust/corpus_judge.py``).
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
from tests.robust.corpus14 import CORPUS14
from tests.robust.corpus15 import CORPUS15
from tests.robust.corpus16 import CORPUS16
from tests.robust.corpus17 import CORPUS17
from tests.robust.corpus18 import CORPUS18, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus18(CorpusJudge):
    ENTRIES = tuple(CORPUS18)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 19
    EARLIER = names_of(
        ALL,
        ALL6,
        CORPUS7,
        CORPUS8,
        CORPUS9,
        CORPUS10,
        CORPUS11,
        CORPUS12,
        CORPUS13,
        CORPUS14,
        CORPUS15,
        CORPUS16,
        CORPUS17,
    )
