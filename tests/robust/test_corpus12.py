"""The twelfth corpus (``tests/robust/corpus12.py``: spiking-network surrogates,
normalizing-flow log-determinants, log1mexp, Gumbel/Weibull CDF and density pieces,
robust losses (Talwar, Fair, log-cosh, Blake-Zisserman, correntropy), survival and
count likelihoods (Gompertz, von Mises, negative binomial), information-theoretic
pieces (binary entropy, Bernoulli KL, rel_entr), min/max chains, smoothstep, Pade,
exp-of-exp forms, base-2 and base-10 softplus, typed in the spellings users paste,
constants from 1e-12 to 1e12, zero and negative), compiled by symnb, against
independent mpmath references under issue 8's rule, by the shared judge
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
from tests.robust.corpus12 import CORPUS12, REFERENCE_TEXT
from tests.robust.corpus_judge import CorpusJudge, names_of


class TestCorpus12(CorpusJudge):
    ENTRIES = tuple(CORPUS12)
    REFERENCE_TEXT = REFERENCE_TEXT
    MIN_SIZE = 50
    EARLIER = names_of(ALL, ALL6, CORPUS7, CORPUS8, CORPUS9, CORPUS10, CORPUS11)
