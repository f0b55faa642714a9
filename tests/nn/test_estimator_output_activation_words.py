"""MLPClassifier's refusals speak of its own option, ``output_activation=``, not
MLP's ``output=`` (a hostile-input probe, 2026-12-06): a sigmoid output layer under
cross-entropy with three classes said "output='sigmoid' ... leave output out", an
argument the estimator does not take."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, MLPClassifier


def _data(classes: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(30, 2)), np.arange(30) % classes


def test_sigmoid_output_with_three_classes_names_output_activation() -> None:
    X, y = _data(3)
    clf = MLPClassifier(hidden_layer_sizes=(4,), output_activation="sigmoid", epochs=1)
    with pytest.raises(ValueError) as info:
        clf.fit(X, y)
    message = str(info.value)
    assert "output_activation='sigmoid'" in message
    assert "leave output_activation out" in message
    assert "output=" not in message.replace("output_activation=", "")
    # the 3-class softmax bound the message quotes: e / (e + 2)
    assert f"{np.e / (np.e + 2):.2f}" in message


def test_mlp_itself_keeps_its_own_option_name() -> None:
    with pytest.raises(ValueError, match=r"output='sigmoid'"):
        MLP([2, 4, 3], output="sigmoid", loss="cross_entropy")
