"""Settings assigned after construction skipped the constructor's checks:
``editor.x_range = (5, 1)`` or ``"abc"`` was kept (the next plot drew a reversed
or no curve, or failed), and ``pg.frame_interval = nan`` made every elapsed-time
comparison False, so the Playground sent a view frame after every epoch. Assigning
them is now checked as the constructor's arguments are; a good x_range redraws."""

from __future__ import annotations

import math

import pytest

from symnb.widgets import ActivationEditor, Playground


@pytest.mark.parametrize(
    ("value", "error"), [((5, 1), ValueError), ((math.nan, 1), ValueError)]
)
def test_editor_x_range_assignment_is_checked(value, error) -> None:
    editor = ActivationEditor(backend="numpy", debounce=0)
    with pytest.raises(error, match="x_range"):
        editor.x_range = value
    assert editor.x_range == (-4.0, 4.0)
    editor.x_range = (-10, 10)
    curves = editor.curves()
    assert (curves["x"][0], curves["x"][-1]) == (-10.0, 10.0)


@pytest.mark.parametrize("attr", ["frame_interval", "refresh_interval"])
@pytest.mark.parametrize(
    ("value", "error"),
    [(math.nan, ValueError), (-1, ValueError), ("a", TypeError), (True, TypeError)],
)
def test_playground_interval_assignment_is_checked(fake_nn, attr, value, error):
    pg = Playground(frame_interval=0.05)
    try:
        with pytest.raises(error, match=attr):
            setattr(pg, attr, value)
        setattr(pg, attr, 0.5)
        assert getattr(pg, attr) == 0.5
    finally:
        pg.close()
