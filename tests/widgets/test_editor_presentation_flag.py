"""ActivationEditor.presentation = "no" switched projector mode ON (bool("no") is
True), while the constructor's presentation= refused a string; now the setter
refuses it too, naming the attribute."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import ActivationEditor


@pytest.fixture
def editor():
    ed = ActivationEditor(backend="numpy")
    yield ed
    ed.close()


@pytest.mark.parametrize("value", ["no", "off", 1, None])
def test_a_non_bool_is_refused_and_nothing_changes(editor, value) -> None:
    with pytest.raises(TypeError, match=r"ActivationEditor: presentation must be"):
        editor.presentation = value
    assert editor.presentation is False
    assert editor.presentation_button.value is False


def test_bools_still_switch_it(editor) -> None:
    editor.presentation = np.bool_(True)
    assert editor.presentation is True
    editor.presentation = False
    assert editor.presentation is False
