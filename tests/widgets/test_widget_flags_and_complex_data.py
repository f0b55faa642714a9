"""Two silent acceptances in the widgets' arguments:

* ``presentation="no"`` (a truthy string) turned the projector layout on, in
  ``Playground`` and ``ActivationEditor``; now a TypeError as ``check_flag`` gives.
* ``Playground(data=(X, y))`` with complex X or y dropped the imaginary parts (NumPy's
  ComplexWarning at most) and trained on the real parts; now a TypeError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symnb.widgets import ActivationEditor, Playground

X = np.random.RandomState(0).randn(40, 2)
Y = (X[:, 0] > 0).astype(float)


@pytest.mark.parametrize("value", ["no", "False", 1, None])
def test_presentation_must_be_a_flag(value) -> None:
    with pytest.raises(
        TypeError, match="Playground: presentation must be True or False"
    ):
        Playground(presentation=value, config={"backend": "numpy"})
    with pytest.raises(
        TypeError, match="ActivationEditor: presentation must be True or False"
    ):
        ActivationEditor("x", presentation=value, backend="numpy")


@pytest.mark.parametrize("which", ["X", "y"])
def test_complex_data_is_refused(which) -> None:
    data = (X + 1j * X, Y) if which == "X" else (X, Y + 0.5j)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match=f"{which} holds complex numbers"):
            Playground(data=data, config={"backend": "numpy"})


def test_real_data_and_flags_still_work() -> None:
    pg = Playground(data=(X, Y), presentation=np.True_, config={"backend": "numpy"})
    assert pg.presentation.value is True
    pg.close()
