"""An activation the Playground uses that stops being defined (its editor gets a
formula with an error, a typo while typing; a registered activation is removed):
Reset used to lose the whole network to "unknown activation 'myact'", and the saved
setup referred to a name with no definition. The network now keeps the last
definition, says so in the status line, and the setup carries it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import symnb
from symnb.widgets import ActivationEditor, Playground, _common


def _activation_objects(fake_nn) -> list:
    model = fake_nn.instances[-1]
    acts = model.activation
    flat = []
    for layer in acts:
        flat.extend(layer if isinstance(layer, list) else [layer])
    return flat


def test_editor_with_an_error_keeps_the_networks_activation(fake_nn) -> None:
    editor = ActivationEditor("x*tanh(a*x)", name="myact_e", debounce=0.0)
    editor.set_constants(a=2.0)
    pg = Playground()
    pg.set_activation("myact_e")
    pg.step()
    assert pg.errors == []
    editor.formula.value = "x*tanh("  # typing: the editor has an error now
    editor.refresh()
    assert editor.activation is None
    pg.reset()
    assert pg.errors == [] and pg.model is not None
    assert "no longer defined" in pg.status.value and "myact_e" in pg.status.value
    used = [a for a in _activation_objects(fake_nn) if not isinstance(a, str)]
    assert used and all(a.text == "x*tanh(a*x)" for a in used)
    assert all(a.constants == {"a": 2.0} for a in used)
    setup = json.loads(json.dumps(pg.config))
    assert setup["custom_activations"]["myact_e"] == {
        "formula": "x*tanh(a*x)",
        "constants": {"a": 2.0},
    }
    editor.close()
    again = Playground(config=setup)  # elsewhere, without the editor
    assert again.errors == [] and again.model is not None
    editor.formula.value = "x*sigmoid(x)"  # fixed: the new formula is used
    editor.refresh()


def test_real_network_keeps_computing_the_last_formula() -> None:
    act = symnb.Activation("x*tanh(x)", name="xt_lost")
    key = _common.register_activation(act)
    try:
        pg = Playground(config={"backend": "numpy", "hidden": [3]})
        pg.set_activation(key)
        pg.step()
    finally:
        del _common._REGISTRY[key]
    pg.reset()
    assert pg.errors == [] and pg.model is not None
    X = pg._data["X_small"][:7]
    P = {p.name: np.asarray(p.data, np.float64) for p in pg.model.parameters()}
    z = X.astype(np.float64) @ P["layers.0.weight"] + P["layers.0.bias"]
    hidden = np.asarray(pg.model.hidden_outputs(X)[0])
    np.testing.assert_allclose(hidden, z * np.tanh(z), rtol=2e-5, atol=1e-6)
    pg.step()
    assert pg.errors == [] and pg.epoch == 1


def test_a_name_never_defined_is_still_an_error() -> None:
    real = Playground(config={"backend": "numpy", "activations": "never_defined_x"})
    assert real.model is None
    assert "never_defined_x" in real.status.value
    assert "no longer defined" not in real.status.value


@pytest.fixture(autouse=True)
def _no_leftover_editors():
    yield
    with _common._REGISTRY_LOCK:
        _common._EDITORS.clear()
