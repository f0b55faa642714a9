"""A callback that raises ends ``fit``: the exception propagates, and the History the
model keeps says so (it said "completed", and ``on_train_end`` was told "completed")."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, Callback


def _data():
    X = np.random.default_rng(0).normal(size=(64, 2))
    return X, (X[:, 0] > 0).astype(float)


class _RaiseAtEpoch(Callback):
    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs):
        if epoch == self.epoch:
            raise ValueError(f"boom at {epoch}")


class _EndBoom(Callback):
    def on_train_end(self, logs):
        raise RuntimeError("end boom")


class _Ends(Callback):
    def __init__(self) -> None:
        self.logs = []

    def on_train_end(self, logs):
        self.logs.append(logs)


def test_history_of_a_fit_ended_by_a_callback_exception_is_not_completed():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)
    ends = _Ends()
    with pytest.raises(ValueError, match="boom at 3"):
        model.fit(X, y, epochs=5, callbacks=[_RaiseAtEpoch(3), ends])
    history = model.history
    assert history.stop_reason == "error"
    assert "ValueError: boom at 3" in history.message
    assert "epoch 3" in history.message
    # the complete epochs stay, and the model agrees with them
    assert len(history) == 3 and model.epochs_trained == 3
    assert ends.logs == [{"stop_reason": "error", "message": history.message}]
    assert np.isfinite(model.get_flat_parameters()).all()


def test_step_callback_exception_mid_epoch_keeps_complete_epochs():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)

    class StepBoom(Callback):
        def on_step_end(self, step, logs):
            if logs["epoch"] == 2 and step == 1:
                raise RuntimeError("step boom")

    with pytest.raises(RuntimeError, match="step boom"):
        model.fit(X, y, epochs=5, batch_size=8, callbacks=[StepBoom()], step_rate=None)
    assert model.history.stop_reason == "error"
    assert "epoch 2" in model.history.message
    assert len(model.history) == 1 and model.epochs_trained == 1


def test_function_callback_exception():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)
    with pytest.raises(ZeroDivisionError):
        model.fit(X, y, epochs=5, callbacks=lambda e, logs: 1 / 0 if e == 2 else None)
    assert model.history.stop_reason == "error"
    assert "ZeroDivisionError" in model.history.message
    assert len(model.history) == 2


def test_keyboard_interrupt_raised_by_a_callback_is_interrupted():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)

    class Interrupt(Callback):
        def on_epoch_end(self, epoch, logs):
            if epoch == 2:
                raise KeyboardInterrupt

    with (
        pytest.warns(RuntimeWarning, match="interrupted"),
        pytest.raises(KeyboardInterrupt),
    ):
        model.fit(X, y, epochs=5, callbacks=[Interrupt()])
    assert model.history.stop_reason == "interrupted"
    assert len(model.history) == 2


def test_on_train_end_error_does_not_replace_the_exception_that_ended_fit():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)

    with pytest.raises(ValueError, match="boom at 3") as info:
        model.fit(X, y, epochs=5, callbacks=[_RaiseAtEpoch(3), _EndBoom()])
    notes = getattr(info.value, "__notes__", None)
    if notes is not None:  # Python >= 3.11
        assert any(
            "_EndBoom.on_train_end raised RuntimeError: end boom" in n for n in notes
        )


def test_on_train_end_error_after_a_completed_fit_still_raises():
    X, y = _data()
    model = MLP([2, 4, 1], loss="bce_with_logits", seed=0)

    with pytest.raises(RuntimeError, match="end boom"):
        model.fit(X, y, epochs=2, callbacks=[_EndBoom()])
    assert model.history.stop_reason == "completed" and len(model.history) == 2
