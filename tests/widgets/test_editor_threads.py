"""ActivationEditor under its own threads (the debounce and throttle timers) and with
constant values the kernels cannot hold.

Found by a hostile-input probe (2026-12-04): a Compile click (or a name change) while
a slider's throttled redraw was running deadlocked the kernel; a debounced refresh in
its timer thread rebuilt the sliders while a main-thread callback iterated them
("dictionary changed size during iteration"); a constant typed as 1e39, NaN or text
reached the float32 kernels, which raised from deep inside ``set_constants`` on every
later draw while the editor kept the value.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from symnb.widgets import ActivationEditor


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@pytest.fixture
def editor():
    e = ActivationEditor("x*sigmoid(beta*x)", debounce=0.0, plot_interval=0.0)
    yield e
    e.close()


def test_refresh_during_a_throttled_redraw_does_not_deadlock() -> None:
    """The throttle's timer thread holds its run lock and then needs the editor's
    lock (curves); refresh() used to flush the throttle while holding the editor's
    lock: each waited for the other forever."""
    e = ActivationEditor("x*a", debounce=0.0, plot_interval=60.0)
    throttle = e._plot_throttle
    throttle()  # runs now
    throttle()  # pending: its timer would fire in 60 s
    assert throttle.pending
    running = threading.Event()

    def timer_run() -> None:  # what the timer thread does while drawing
        with throttle._run_lock:
            running.set()
            time.sleep(0.3)
            e.curves()

    drawer = threading.Thread(target=timer_run, daemon=True)
    drawer.start()
    assert running.wait(5)
    refresher = threading.Thread(target=e.refresh, daemon=True)  # Compile's path
    refresher.start()
    refresher.join(10)
    drawer.join(10)
    assert not refresher.is_alive() and not drawer.is_alive(), "deadlock"
    assert not throttle.pending
    throttle.cancel()


def test_sliders_rebuilt_while_a_callback_reads_them(editor) -> None:
    """A refresh that changes the constants (in the debounce thread) while a slider
    callback walks the sliders: made deterministic by refreshing from inside the
    walk."""
    editor.formula.value = "a*x + b"
    editor.refresh()
    assert list(editor.sliders) == ["a", "b"]

    def retype(_change: dict) -> None:
        if editor.formula.value != "c*x + d + g":
            editor.formula.value = "c*x + d + g"
            editor.refresh()

    editor.value_boxes["a"].observe(retype, names="value")
    editor.set_constants(a=2.0)
    assert editor.output.outputs == (), editor.output.outputs
    assert editor.errors.exceptions == []
    assert list(editor.sliders) == ["c", "d", "g"]
    curves = editor.curves()
    x = curves["x"].astype(np.float64)
    np.testing.assert_allclose(curves["f"], x + 2.0, rtol=1e-6, atol=1e-6)


def test_typing_while_sliders_move_in_threads(editor) -> None:
    """The real interleaving: formulas typed in one thread (debounced refresh in
    timer threads) while the main thread moves sliders and typed values."""
    stop = threading.Event()
    forms = ["x*a", "x*a*b*c*d*g*h", "tanh(a*x) + b", "c*x + d", "x"]

    def typer() -> None:
        i = 0
        while not stop.is_set():
            editor.formula.value = forms[i % len(forms)]
            i += 1
            time.sleep(0.001)

    t = threading.Thread(target=typer, daemon=True)
    t.start()
    end = time.monotonic() + 2.0
    i = 0
    try:
        while time.monotonic() < end:
            names = list(editor.sliders)
            if not names:
                continue
            name = names[i % len(names)]
            i += 1
            try:
                if i % 2:
                    editor.sliders[name].value = (i % 300) / 100.0
                else:
                    editor.value_boxes[name].value = (i % 300) / 100.0
            except KeyError:  # removed by a refresh between the two lines above
                pass
    finally:
        stop.set()
        t.join(5)
    time.sleep(0.2)
    assert editor.output.outputs == (), editor.output.outputs[:2]
    editor.formula.value = "x*sigmoid(beta*x)"
    editor.refresh()
    assert editor.error is None and list(editor.sliders) == ["beta"]


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (1e39, ValueError, ["'beta'", "float32", "3.403e+38"]),
        (-1e300, ValueError, ["'beta'", "float32"]),
        (1e-50, ValueError, ["'beta'", "float32", "1.4e-45"]),
        (float("nan"), ValueError, ["'beta'", "finite"]),
        (float("inf"), ValueError, ["'beta'", "finite"]),
        ("abc", TypeError, ["'beta'", "number"]),
        (None, TypeError, ["'beta'", "number"]),
        (1j, TypeError, ["'beta'", "number"]),
    ],
)
def test_set_constants_refuses_values_the_kernels_cannot_hold(
    editor, value, error, words
) -> None:
    with pytest.raises(error) as info:
        editor.set_constants(beta=value)
    for word in words:
        assert word in str(info.value)
    assert editor.sliders["beta"].value == 1.0
    assert editor.output.outputs == ()


def _works_after(editor: ActivationEditor) -> None:
    """The slider kept its value, nothing raised into the Output, and the editor
    still draws and compiles."""
    assert editor.sliders["beta"].value == 1.0
    assert editor.output.outputs == (), editor.output.outputs
    editor.set_constants(beta=2.0)
    curves = editor.curves()
    x = curves["x"].astype(np.float64)
    np.testing.assert_allclose(
        curves["f"], x * sigmoid(2.0 * x), rtol=1e-5, atol=1e-6
    )
    assert editor.plot.error == ""


@pytest.mark.parametrize("value", [1e39, float("nan"), float("inf"), 1e-50])
def test_typed_value_that_does_not_fit_is_said_not_kept(editor, value) -> None:
    editor.value_boxes["beta"].value = value
    assert "'beta'" in editor.plot.error
    assert "beta" in editor.status.value
    assert editor.value_boxes["beta"].value == 1.0  # the box shows the slider's
    _works_after(editor)


@pytest.mark.parametrize("value", [1e39, float("nan"), "abc", None])
def test_browser_value_that_does_not_fit_is_said_not_kept(editor, value) -> None:
    editor._on_plot_message(
        {"kind": "constant", "name": "beta", "value": value, "seq": 1, "session": "s"}
    )
    assert "'beta'" in editor.plot.error
    assert editor.plot.constants[0]["value"] == 1.0  # republished: slider goes back
    _works_after(editor)


def test_slider_set_to_nan_from_code_goes_back(editor) -> None:
    editor.sliders["beta"].value = float("nan")  # the slider clamps only numbers
    assert "beta" in editor.status.value and "finite" in editor.status.value
    _works_after(editor)


def test_compiled_kernel_keeps_working_after_a_refused_value(editor) -> None:
    kernel = editor.compile()
    assert kernel is not None
    editor.value_boxes["beta"].value = 1e39
    assert editor.output.outputs == ()
    editor.set_constants(beta=0.5)
    x = np.linspace(-4, 4, 9).astype(np.float32)
    np.testing.assert_allclose(
        kernel.forward(x), x * sigmoid(0.5 * x.astype(np.float64)), rtol=1e-5
    )


@pytest.mark.parametrize("seconds", [1e308, 1e9, 3600.5])
def test_intervals_longer_than_an_hour_are_refused(seconds) -> None:
    """debounce=1e308 raised OverflowError in the timer thread: the editor never
    parsed a typed formula again, and the error only reached the kernel's log."""
    from symnb.widgets import Playground
    from symnb.widgets.throttle import Debounce, Throttle

    for build in (
        lambda: ActivationEditor(debounce=seconds),
        lambda: ActivationEditor(plot_interval=seconds),
        lambda: Playground(refresh_interval=seconds),
        lambda: Playground(frame_interval=seconds),
        lambda: Throttle(lambda: None, interval=seconds),
        lambda: Debounce(lambda: None, delay=seconds),
    ):
        with pytest.raises(ValueError) as info:
            build()
        assert "at most 3600" in str(info.value)
    assert Debounce(lambda: None, delay=3600).delay == 3600.0
