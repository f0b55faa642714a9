"""The seventh corpus (``tests/robust/corpus7.py``: activations and losses from papers
and framework documentation with new shapes and large/small constants), compiled by
symnb, against independent mpmath references under issue 8's rule, by the shared judge
(``tests/robust/corpus_judge.py``).
"""

from __future__ import annotations

from tests.robust.corpus import ALL
from tests.robust.corpus6 import ALL6
from tests.robust.corpus7 import CORPUS7, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus7(CorpusJudge):
    ENTRIES = tuple(CORPUS7)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 60
    EARLIER = names_of(ALL, ALL6)
