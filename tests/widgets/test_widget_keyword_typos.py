"""A misspelled keyword argument of a widget is refused, naming it and the option it
resembles. ``Playground(confg={...})`` and ``ActivationEditor(formla=...)`` were
handed on to ``ipywidgets.VBox`` and ignored (traitlets only warns, with a
DeprecationWarning a notebook hides): the widget came up with its defaults."""

from __future__ import annotations

import warnings

import ipywidgets as W
import pytest

from symnb.widgets import ActivationEditor, Playground


@pytest.mark.parametrize(
    ("cls", "typo", "meant"),
    [
        (ActivationEditor, "formla", "formula"),
        (ActivationEditor, "constnts", "constants"),
        (Playground, "confg", "config"),
        (Playground, "activatons", "activations"),
    ],
)
def test_a_misspelled_option_is_refused(cls, typo, meant) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing reaches traitlets' warning
        with pytest.raises(TypeError) as info:
            cls(**{typo: {}})
    message = str(info.value)
    assert f"{cls.__name__}() got an unexpected keyword argument {typo!r}" in message
    assert f"did you mean {meant}=?" in message


@pytest.mark.parametrize("cls", [ActivationEditor, Playground])
def test_an_unknown_option_lists_the_options(cls) -> None:
    with pytest.raises(TypeError) as info:
        cls(zzz=1)
    message = str(info.value)
    assert "'zzz'" in message and "did you mean" not in message
    assert "its options are" in message and "layout=" in message


@pytest.mark.parametrize("cls", [ActivationEditor, Playground])
def test_layout_options_still_reach_the_box(cls) -> None:
    widget = cls(layout=W.Layout(width="50%"), box_style="info")
    try:
        assert widget.layout.width == "50%" and widget.box_style == "info"
    finally:
        widget.close()
