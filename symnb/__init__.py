"""symnb: a notebook laboratory for activation and loss functions.

Type a formula, see f and f' as LaTeX and plots, compile forward and derivative kernels
(CUDA through CuPy, C++/OpenMP through g++, or NumPy), and train small networks with them.
"""

from __future__ import annotations

__version__ = "0.1.0"
