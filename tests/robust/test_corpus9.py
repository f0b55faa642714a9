"""The ninth corpus (``tests/robust/corpus9.py``: 2015-2025 activations, KAN and Padé
pieces, reinforcement-learning squashes and losses of the residual, margin or
probability, typed in the spellings users paste: PyTorch with tensor methods, NumPy,
JAX, TensorFlow, Keras, SciPy, ``math``, a ``def`` with locals, conditional
expressions, LaTeX; constants from 1e-8 to 1e8, zero and negative), compiled by symnb,
against independent mpmath references under issue 8's rule, by the shared judge
(``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus import ALL
from tests.robust.corpus6 import ALL6
from tests.robust.corpus7 import CORPUS7
from tests.robust.corpus8 import CORPUS8
from tests.robust.corpus9 import CORPUS9, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus9(CorpusJudge):
    ENTRIES = tuple(CORPUS9)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 100
    EARLIER = names_of(ALL, ALL6, CORPUS7, CORPUS8)
