"""The thirteenth corpus (``tests/robust/corpus13.py``: SMU-1, DELU, ELiSH, TanhExp,
Logish, snake, Chebyshev and Langevin units, smooth clamps written as differences,
Yeo-Johnson and Box-Cox transforms, Student's t kernel and the compound-interest limit
at large exponents, SCAD and MCP penalties, Tukey, Lorentzian, expectile, generalized
and Taylor cross-entropy, the log-barrier extension, Tweedie deviance, KTO and the k3
KL estimator, typed in the spellings users paste, constants from 1e-12 to 1e12),
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
from tests.robust.corpus13 import CORPUS13, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus13(CorpusJudge):
    ENTRIES = tuple(CORPUS13)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 30
    EARLIER = names_of(
        ALL, ALL6, CORPUS7, CORPUS8, CORPUS9, CORPUS10, CORPUS11, CORPUS12
    )
