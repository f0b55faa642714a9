"""ActivationEditor driven from Python: typing (debounced), LaTeX, sliders, plot, inline
errors, backend choices and Compile."""

from __future__ import annotations

import base64
import time

import numpy as np
import pytest

import symnb
from symnb.widgets import ActivationEditor

from .conftest import png_ok, refused_quietly


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@pytest.fixture
def editor():
    return ActivationEditor("x*sigmoid(beta*x)", name="swish_beta")


def test_initial_latex_sliders_plot(editor) -> None:
    tex = editor.latex.value
    assert tex.startswith("$f(x) = ") and "$f'(x) = " in tex
    assert tex.count("$") == 4
    assert "\\beta" in tex
    assert list(editor.sliders) == ["beta"]
    assert editor.sliders["beta"].value == 1.0
    curves = editor.curves()
    assert list(curves) == ["x", "f", "f'"] and len(curves["x"]) >= 400
    x = curves["x"].astype(float)
    np.testing.assert_allclose(curves["f"], x * sigmoid(x), rtol=1e-5, atol=1e-6)
    s = sigmoid(x)
    np.testing.assert_allclose(
        curves["f'"], s + x * s * (1 - s), rtol=1e-4, atol=1e-5
    )  # d/dx x*sigmoid(x), written out by hand
    sent = np.frombuffer(editor.plot.ys, dtype=np.float32)
    np.testing.assert_array_equal(sent[: len(x)], curves["f"])
    assert editor.plot.names == ["f", "f'"]
    act = editor.activation
    assert isinstance(act, symnb.Activation)
    assert act.constants["beta"] == 1.0
    assert editor.kernel is None and editor.error is None
    assert editor.error_box.value == ""


def test_typing_is_debounced_then_parsed(editor) -> None:
    editor._debounce.delay = 1.0  # long enough for a loaded machine
    for text in ("t", "ta", "tanh(", "tanh(a*x", "tanh(a*x)"):
        editor.formula.value = text
    assert editor._debounce.pending  # nothing parsed while typing
    assert "\\beta" in editor.latex.value
    deadline = time.monotonic() + 10
    while "\\tanh" not in editor.latex.value and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "\\tanh" in editor.latex.value
    with editor._lock:  # the timer thread's refresh has finished
        assert list(editor.sliders) == ["a"]
    assert editor.error is None


def test_refresh_parses_now_and_keeps_constant_values(editor) -> None:
    editor.set_constants(beta=2.5)
    editor.formula.value = "x*sigmoid(beta*x) + gamma*x"
    editor.refresh()
    assert list(editor.sliders) == ["beta", "gamma"]
    assert editor.constants == {"beta": 2.5, "gamma": 1.0}
    assert "\\gamma" in editor.latex.value


def test_derivative_latex_matches_the_activation(editor) -> None:
    editor.formula.value = "x**3"
    editor.refresh()
    assert "3 x^{2}" in editor.latex.value
    assert editor.sliders == {}


def test_sliders_move_the_plot_and_the_activation(editor) -> None:
    before = bytes(editor.plot.ys)
    frame = editor.plot.frame
    editor.sliders["beta"].value = 3.0
    editor._plot_throttle.flush()
    assert bytes(editor.plot.ys) != before and editor.plot.frame > frame
    x = np.frombuffer(editor.plot.xs, dtype=np.float32).astype(float)
    f = np.frombuffer(editor.plot.ys, dtype=np.float32)[: len(x)]
    np.testing.assert_allclose(f, x * sigmoid(3.0 * x), rtol=1e-5, atol=1e-6)
    assert editor.activation.constants["beta"] == 3.0
    with pytest.raises(KeyError, match="alpha"):
        editor.set_constants(alpha=1.0)


def test_slider_range_grows_for_large_values(editor) -> None:
    editor.set_constants(beta=40.0)
    assert editor.sliders["beta"].value == 40.0
    assert editor.sliders["beta"].max >= 40.0


def test_typed_value_grows_the_slider_range(editor) -> None:
    """The classroom notebook asks for beta = 10; the slider starts at +-5."""
    slider = editor.sliders["beta"]
    assert slider.max == 5.0
    editor.value_boxes["beta"].value = 10.0
    assert slider.max >= 10.0 and slider.value == 10.0
    assert editor.constants == {"beta": 10.0}
    editor.value_boxes["beta"].value = -12.5
    assert slider.min <= -12.5 and slider.value == -12.5
    slider.value = 2.0  # and the box follows the slider
    assert editor.value_boxes["beta"].value == 2.0


def test_browser_slider_messages_move_the_curves(editor) -> None:
    """The browser's own sliders send values as messages (no ipywidgets round trip)."""
    assert editor.plot.constants == [
        {"name": "beta", "value": 1.0, "min": -5.0, "max": 5.0, "step": 0.01}
    ]
    editor.plot._handle_custom_msg(
        {"kind": "constant", "name": "beta", "value": 2.5}, []
    )
    editor._plot_throttle.flush()
    assert editor.constants == {"beta": 2.5}
    assert editor.plot.constants[0]["value"] == 2.5
    x = np.frombuffer(editor.plot.xs, dtype=np.float32).astype(float)
    f = np.frombuffer(editor.plot.ys, dtype=np.float32)[: len(x)]
    np.testing.assert_allclose(f, x * sigmoid(2.5 * x), rtol=1e-5, atol=1e-6)
    assert editor.value_boxes["beta"].value == 1.0  # not during the drag ...
    editor._box_debounce.flush()
    assert editor.value_boxes["beta"].value == 2.5  # ... once it pauses
    editor.plot._handle_custom_msg(
        {"kind": "constant", "name": "beta", "value": 30}, []
    )
    assert editor.plot.constants[0]["max"] >= 30  # the range grew
    editor.plot._handle_custom_msg({"kind": "constant", "name": "nope", "value": 1}, [])
    assert editor.constants == {"beta": 30.0}
    # a value that arrives after a newer one (transport reordering) is dropped
    msg = {"kind": "constant", "name": "beta", "session": "s1"}
    editor.plot._handle_custom_msg(dict(msg, value=4.0, seq=2), [])
    editor.plot._handle_custom_msg(dict(msg, value=3.0, seq=1), [])
    assert editor.constants == {"beta": 4.0}
    editor.plot._handle_custom_msg(dict(msg, session="s2", value=2.0, seq=1), [])
    assert editor.constants == {"beta": 2.0}  # another view counts on its own


def test_broken_formula_keeps_the_last_good_curves(editor) -> None:
    good = bytes(editor.plot.ys)
    editor.formula.value = "x*(1+"
    editor.refresh()
    assert bytes(editor.plot.ys) == good  # the last good plot stays
    assert "FormulaError" in editor.plot.error and "never closed" in editor.plot.error
    editor.formula.value = "tanh(x)"
    editor.refresh()
    assert editor.plot.error == ""
    x = np.frombuffer(editor.plot.xs, dtype=np.float32).astype(float)
    f = np.frombuffer(editor.plot.ys, dtype=np.float32)[: len(x)]
    np.testing.assert_allclose(f, np.tanh(x), rtol=1e-5, atol=1e-6)


def test_comparison_curves() -> None:
    ed = ActivationEditor("x*sigmoid(x)", compare=("relu", "tanh"))
    curves = ed.curves()
    assert list(curves) == ["x", "f", "f'", "relu", "tanh"]
    x = curves["x"].astype(float)
    np.testing.assert_allclose(curves["relu"], np.maximum(x, 0), atol=1e-7)
    np.testing.assert_allclose(curves["tanh"], np.tanh(x), rtol=1e-5, atol=1e-6)
    assert ed.plot.names == ["f", "f'", "relu", "tanh"]
    assert len(ed.plot.ys) == 4 * len(ed.plot.xs)


def test_presentation_shows_display_size_latex() -> None:
    ed = ActivationEditor("x*sigmoid(beta*x)", presentation=True)
    assert "$$f(x) = " in ed.latex.value and "font-size:180%" in ed.latex.value
    assert ed.plot.presentation
    ed.presentation = False
    assert ed.latex.value.startswith("$f(x) = ") and not ed.plot.presentation
    ed.presentation_button.value = True  # the toggle in the editor
    assert ed.presentation and "$$f(x) = " in ed.latex.value and ed.plot.presentation


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x*(1+", "FormulaError"),
        ("sigmod(x)", "sigmoid"),
        ("", "empty"),
        ("__import__('os')", "FormulaError"),
    ],
)
def test_errors_appear_inline(editor, text: str, expected: str) -> None:
    editor.formula.value = text
    editor.refresh()
    assert isinstance(editor.error, symnb.FormulaError)
    assert expected in editor.error_box.value
    assert editor.activation is None
    assert editor.latex.value == ""
    assert editor.compile() is None
    editor.formula.value = "tanh(x)"
    editor.refresh()
    assert editor.error is None and editor.error_box.value == ""
    assert editor.activation is not None


def test_backends_offered_are_usable_and_others_explained(editor) -> None:
    statuses = symnb.backends.available()
    offered = [v for _, v in editor.backend.options]
    assert offered[0] == "auto"
    for name in offered[1:]:
        assert statuses[name].usable
    for name, st in statuses.items():
        if not st.usable:
            assert name not in offered
            assert name in editor.backend_note.value
    assert "numpy" in offered


def test_compile_button_gives_a_kernel_that_follows_the_sliders(editor) -> None:
    editor.backend.value = "numpy"
    editor.compile_button.click()
    k = editor.kernel
    assert k is not None and k.backend == "numpy"
    assert "compiled" in editor.status.value
    x = np.linspace(-4, 4, 33).astype(np.float32)
    np.testing.assert_allclose(k.forward(x), x * sigmoid(x), rtol=1e-5, atol=1e-6)
    editor.sliders["beta"].value = 2.0
    np.testing.assert_allclose(k.forward(x), x * sigmoid(2 * x), rtol=1e-5, atol=1e-6)
    editor.formula.value = "tanh(x)"
    editor.refresh()
    assert editor.kernel is None and "press Compile" in editor.status.value


@pytest.mark.parametrize("backend", ["cpp", "cuda"])
def test_compile_with_native_backends(editor, backend: str) -> None:
    offered = [v for _, v in editor.backend.options]
    if backend not in offered:
        st = symnb.backends.available()[backend]
        pytest.skip(f"{backend} is not usable here: {st.reason}")
    editor.backend.value = backend
    k = editor.compile()
    assert k is not None, editor.status.value
    assert k.backend == backend
    x = np.linspace(-4, 4, 33).astype(np.float32)
    y = k.forward(k.xp.asarray(x))
    y = y.get() if hasattr(y, "get") else y
    np.testing.assert_allclose(y, x * sigmoid(x), rtol=1e-5, atol=1e-6)


def test_callback_errors_go_into_the_output(editor, monkeypatch) -> None:
    from symnb.widgets import editor as editor_module

    def broken(*a, **k):
        raise RuntimeError("plot exploded")

    monkeypatch.setattr(editor_module, "f32", broken)
    editor._plot_throttle._last = float("-inf")
    editor.sliders[
        "beta"
    ].value = 1.5  # the callback raises inside ipywidgets' dispatch
    editor._plot_throttle.flush()
    texts = "".join(o.get("text", "") for o in editor.output.outputs)
    assert "plot exploded" in texts


def test_headless_display_has_a_png(editor) -> None:
    bundle = editor._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert png_ok(base64.b64decode(bundle["image/png"]))
    assert "x*sigmoid(beta*x)" in bundle["text/plain"]


def test_dom_classes_for_browser_tests(editor) -> None:
    assert "symnb-formula" in editor.formula._dom_classes
    assert "symnb-latex" in editor.latex._dom_classes
    assert "symnb-compile" in editor.compile_button._dom_classes
    assert editor.formula.continuous_update is True


def test_editor_activation_is_offered_in_the_playground(editor, fake_nn) -> None:
    from symnb.widgets import Playground

    pg = Playground()
    assert "swish_beta" in pg.activation_names()
    pg.set_activation("swish_beta", layer=0)
    pg.wait_for_build()
    used = fake_nn.instances[-1].activation[0]
    assert isinstance(used, symnb.Activation) and used.name == "swish_beta"
    cfg = pg.config
    assert cfg["custom_activations"]["swish_beta"]["formula"] == "x*sigmoid(beta*x)"
    assert cfg["custom_activations"]["swish_beta"]["constants"] == {"beta": 1.0}


def test_cuda_devices_are_offered_and_passed_to_compile(monkeypatch) -> None:
    """With a (simulated) usable CUDA backend: GPUs in the menu, device= passed on."""
    from symnb.backends.base import BackendStatus
    from symnb.widgets import _common

    real = symnb.backends.available()
    fake = dict(real)
    fake["cuda"] = BackendStatus(
        "cuda",
        True,
        "2 device(s)",
        "",
        {"devices": [{"id": 0, "name": "GPU A"}, {"id": 1, "name": "GPU B"}]},
    )
    monkeypatch.setattr(_common, "backend_statuses", lambda: fake)
    calls: list[dict] = []
    original = symnb.Activation.compile

    def compile_(self, backend="auto", **kwargs):
        if backend == "cuda":
            calls.append(dict(kwargs, backend=backend))
            return original(self, backend="numpy")
        return original(self, backend=backend, **kwargs)

    monkeypatch.setattr(symnb.Activation, "compile", compile_)
    ed = ActivationEditor("tanh(x)")
    assert "cuda" in [v for _, v in ed.backend.options]
    ed.backend.value = "cuda"
    assert [v for _, v in ed.device.options] == [0, 1]
    assert "GPU B" in ed.device.options[1][0]
    ed.device.value = 1
    assert ed.compile() is not None
    assert calls == [{"backend": "cuda", "device": 1, "strict": True}]


def test_activations_defined_in_the_notebook_are_found(monkeypatch, fake_nn) -> None:
    """What %%symact binds in the user namespace shows up in the playground's menus."""
    import IPython

    from symnb.widgets import Playground, register_activation

    class Shell:
        user_ns = {  # noqa: RUF012
            "bump": symnb.Activation("exp(-x**2)", name="bump"),
            "not_an_activation": 3,
        }

    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell())
    register_activation(symnb.Activation("x*tanh(x)", name="xtanh"))
    pg = Playground()
    names = pg.activation_names()
    assert "bump" in names and "xtanh" in names
    assert names[:4] == ["tanh", "relu", "sigmoid", "linear"]
    assert "not_an_activation" not in names
    pg.set_activation("bump", layer=0, neuron=0)
    pg.wait_for_build()
    used = fake_nn.instances[-1].activation[0][0]
    assert isinstance(used, symnb.Activation) and used.name == "bump"


def test_changing_constants_does_not_leak_sliders(editor) -> None:
    from ipywidgets.widgets.widget import _instances

    editor.formula.value = "a*x"
    editor.refresh()
    before = len(_instances)
    for name in ("b", "c", "d", "a"):
        editor.formula.value = f"{name}*x"
        editor.refresh()
    assert len(_instances) == before
    editor.close()
    assert editor.comm is None and editor.formula.comm is None


def test_latex_is_html_safe(editor) -> None:
    """A Piecewise condition's "<" must not open an HTML tag in the HTMLMath widget."""
    editor.formula.value = "where(x < 0, alpha*x, x)"
    editor.refresh()
    tex = editor.latex.value
    body = tex.replace("<br>", "")
    assert "<" not in body
    assert "&lt;" in tex
    assert list(editor.sliders) == ["alpha"]


def test_notes_and_compile_warnings_are_shown(editor, monkeypatch) -> None:
    import warnings

    editor.formula.value = "log(1 + exp(x))"
    editor.refresh()
    assert "softplus" in editor.notes.value  # the stability rewrite is explained
    original = symnb.Activation.compile

    def compile_(self, *a, **k):
        warnings.warn("cuda was asked for; using numpy: no GPU", stacklevel=1)
        return original(self, backend="numpy")

    monkeypatch.setattr(symnb.Activation, "compile", compile_)
    assert editor.compile() is not None
    assert "using numpy: no GPU" in editor.status.value


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"x_range": 3}, TypeError, "x_range must be a pair (low, high)"),
        ({"x_range": (4, -4)}, ValueError, "x_range=(4, -4) needs finite low < high"),
        ({"x_range": (float("nan"), 1)}, ValueError, "needs finite low < high"),
        ({"x_range": (-1e300, 1e300)}, ValueError, "float32"),
        ({"backend": "gpu"}, ValueError, "unknown backend 'gpu'; choose one of auto"),
        ({"constants": {"beta": "a"}}, TypeError, "constants['beta'] must be a number"),
        ({"constants": {"beta": float("inf")}}, ValueError, "must be finite"),
        ({"compare": ["nope"]}, symnb.FormulaError, "unknown activation 'nope'"),
    ],
)
def test_refused_editor_says_why_and_prints_nothing_from_del(kwargs, error, words):
    """x_range=(4, -4) and backend='gpu' were accepted; every failed construction
    also printed "Exception ignored in Widget.__del__ ... no attribute '_debounce'"
    (close() assumed a fully built editor)."""
    assert words in refused_quietly(error, lambda: ActivationEditor(**kwargs))


def test_valid_x_range_is_kept() -> None:
    editor = ActivationEditor(x_range=[-2, 3])
    try:
        assert editor.x_range == (-2.0, 3.0)
        xs = np.frombuffer(editor.plot.xs, dtype=np.float32)
        assert (xs[0], xs[-1]) == (-2.0, 3.0)
    finally:
        editor.close()


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        # e is Euler's number: a slider e = 1 made this log(1 + 1) = 0.69 everywhere
        ("beta*ln(1 + e^x)", lambda x: 2.0 * np.logaddexp(0, x)),
        # np of np.tanh is no constant
        ("np.tanh(beta*x)", lambda x: np.tanh(2.0 * x)),
    ],
)
def test_sliders_skip_eulers_e_and_module_names(text, reference) -> None:
    ed = ActivationEditor(text, name="spelled")
    assert list(ed.sliders) == ["beta"]
    ed.sliders["beta"].value = 2.0
    ed._plot_throttle.flush()
    curves = ed.curves()
    x = curves["x"].astype(float)
    np.testing.assert_allclose(curves["f"], reference(x), rtol=1e-5, atol=1e-6)


def test_pasted_code_keeps_its_lines_and_the_box_grows(editor) -> None:
    """The formula box was a one-line text input: a browser joins a pasted function's
    lines there, so module classes and functions with assignments (which
    ``Activation`` reads) could not be pasted into the editor. It is a text area now,
    one row per line (up to FORMULA_ROWS), and the pasted code's constants become
    sliders with the code's values."""
    import ipywidgets as W

    from symnb.widgets.editor import FORMULA_ROWS

    assert isinstance(editor.formula, W.Textarea)
    assert editor.formula.rows == 1
    code = (
        "class Swish(nn.Module):\n"
        "    def __init__(self, beta=1.5):\n"
        "        super().__init__()\n"
        "        self.beta = beta\n"
        "    def forward(self, x):\n"
        "        gate = torch.sigmoid(self.beta * x)\n"
        "        return x * gate\n"
    )
    editor.formula.value = code
    assert editor.formula.rows == code.count("\n") + 1
    editor.refresh()
    assert editor.error is None, editor.error_box.value
    assert list(editor.sliders) == ["beta"] and editor.sliders["beta"].value == 1.5
    x = editor.curves()["x"].astype(float)
    np.testing.assert_allclose(
        editor.curves()["f"], x * sigmoid(1.5 * x), rtol=1e-5, atol=1e-6
    )
    editor.formula.value = "\n".join(["x"] * 40)  # a long paste scrolls
    assert editor.formula.rows == FORMULA_ROWS
    editor.formula.value = "tanh(x)"
    assert editor.formula.rows == 1


def test_a_fresh_editor_shows_the_pasted_codes_values() -> None:
    """``def f(x, beta=1.2)`` made a slider at 1.0 and plotted beta = 1.0 (the editor
    passed its own default for every new name, which overrode the code's)."""
    editor = ActivationEditor("def f(x, beta=1.2):\n    return x*torch.sigmoid(beta*x)")
    assert editor.error is None, editor.error_box.value
    assert editor.constants == {"beta": 1.2}
    assert editor.value_boxes["beta"].value == 1.2
    curves = editor.curves()
    x = curves["x"].astype(float)
    np.testing.assert_allclose(curves["f"], x * sigmoid(1.2 * x), rtol=1e-5, atol=1e-6)
    # a value past the slider's default range widens it
    editor.formula.value = "def f(x, beta=40.0):\n    return x*torch.sigmoid(beta*x)"
    editor.refresh()
    assert editor.constants == {"beta": 40.0} and editor.sliders["beta"].max >= 40


def test_precision_rewrites_are_folded_and_parser_notes_shown() -> None:
    """The accuracy engine's per-dtype rewrites go into a <details> under a one-line
    summary; what the parser did (a rewrite to softplus) stays in view."""
    from html import escape

    from symnb.widgets.editor import notes_html

    read = "rewrote log(1 + exp(x)) as softplus(x)"
    engine = [
        "f' in float32: constants multiply the product of the factors last",
        "d/dbeta in float32: a power x^k times a factor that vanishes ...",
    ]
    html = notes_html([read, *engine])
    summary_at = html.index("<details><summary>")
    assert html.index(read) < summary_at  # shown before the fold
    assert "2 rewrites</summary>" in html
    assert all(html.index(escape(n)) > summary_at for n in engine)
    assert "<details>" not in notes_html([read])
    assert notes_html([]) == ""
    assert "&lt;" in notes_html(["x < 0 reads as a condition"])  # escaped
