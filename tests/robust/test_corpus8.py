"""The eighth corpus (``tests/robust/corpus8.py``: 2019-2025 activations and losses of
the residual, margin or probability, typed in the spellings users paste: PyTorch,
NumPy, JAX, ``math``, lambdas, a ``def``, conditional expressions, LaTeX), compiled by
symnb, against independent mpmath references under issue 8's rule, by the shared judge
(``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus import ALL
from tests.robust.corpus6 import ALL6
from tests.robust.corpus7 import CORPUS7
from tests.robust.corpus8 import CORPUS8, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus8(CorpusJudge):
    ENTRIES = tuple(CORPUS8)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 100
    EARLIER = names_of(ALL, ALL6, CORPUS7)
