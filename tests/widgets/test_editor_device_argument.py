"""``ActivationEditor(device=...)`` is checked as ``compile(device=...)`` is: before,
any value that was not one of the device list's entries (``'x'``, ``-1``, ``True``)
was dropped without a word, and ``'cuda:1'`` (PyTorch's spelling) never matched."""

from __future__ import annotations

import pytest

from symnb.widgets import ActivationEditor


@pytest.mark.parametrize("device", ["x", -1, True, 1.5, "cuda:x"])
def test_a_device_that_names_no_gpu_is_refused(device) -> None:
    with pytest.raises(ValueError) as info:
        ActivationEditor(device=device)
    message = str(info.value)
    assert message.startswith(f"ActivationEditor: device={device!r}")
    assert "'cuda:N'" in message


@pytest.mark.parametrize("device", [None, "default", "cpu", 0, "cuda", "cuda:0"])
def test_devices_the_editor_knows_are_taken(device) -> None:
    editor = ActivationEditor(device=device)
    try:
        assert editor.device.value in [v for _, v in editor.device.options]
    finally:
        editor.close()
