"""A device typed as text reads the same in the magic, ``%symnb device`` and the CLI
as ``compile(device=...)`` takes it: ``'cuda'`` and ``'cuda:1'`` were refused by
``%%symact --device`` and ``symnb compile --device`` ("a device is a GPU index such
as 0"), and the CLI had its own copy of the check with other words."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from symnb import cli
from symnb.backends.select import check_device, device_from_text
from symnb.notebook import state


@pytest.mark.parametrize(
    ("text", "index"), [("0", 0), (" 3 ", 3), ("cuda", 0), ("cuda:2", 2), ("CUDA:1", 1)]
)
def test_text_reads_as_the_api_reads_it(text, index) -> None:
    assert device_from_text(text) == index == state.device_index(text)
    if not text.strip().isdigit():
        assert check_device(text.strip()) == index


@pytest.mark.parametrize("text", ["-1", "1.5", "gpu", "cuda:x", "cpu", ""])
def test_bad_text_is_a_value_error_naming_the_device(text) -> None:
    with pytest.raises(ValueError) as info:
        device_from_text(text)
    assert "device" in str(info.value) and "'cuda:N'" in str(info.value)


def test_the_magic_takes_cuda_n(shell) -> None:
    with capture_output():
        shell.run_cell_magic(
            "symact", "-q --no-compile --backend numpy --device cuda:0", "fd(x) = x"
        )
    assert shell.user_ns["fd"].name == "fd"
    refused = r"^--device: device='cuda:x' is not a GPU"
    with pytest.raises(UsageError, match=refused), capture_output():
        shell.run_cell_magic("symact", "-q --device cuda:x", "fd2(x) = x")


def test_the_cli_says_what_the_api_says(capsys) -> None:
    assert cli.main(["compile", "x", "--device", "cuda:x"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    with pytest.raises(ValueError) as info:
        check_device("cuda:x")
    assert f"argument --device: {info.value}" in err
