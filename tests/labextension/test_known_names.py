"""The lab extension's highlighter knows every name a formula may use."""

from __future__ import annotations

import re
from pathlib import Path

TOKENIZER_TS = (
    Path(__file__).resolve().parents[2] / "labextension" / "src" / "tokenizer.ts"
)


def _ts_set(name: str) -> set[str]:
    text = TOKENIZER_TS.read_text(encoding="utf-8")
    block = re.search(
        rf"{name}: ReadonlySet<string> = new Set\(\[(.*?)\]\);", text, re.DOTALL
    )
    assert block, f"{name} not found in tokenizer.ts"
    return set(re.findall(r"'([A-Za-z_0-9]+)'", block.group(1)))


def test_every_allowed_function_is_highlighted():
    from symnb.formula.functions import ALLOWED_FUNCTIONS

    missing = set(ALLOWED_FUNCTIONS) - _ts_set("KNOWN_FUNCTIONS")
    assert not missing, (
        f"add to KNOWN_FUNCTIONS in labextension/src/tokenizer.ts: {missing}"
    )


def test_every_library_activation_is_highlighted():
    from symnb.formula.library import activation_names

    missing = set(activation_names()) - _ts_set("KNOWN_FUNCTIONS")
    assert not missing, (
        f"add to KNOWN_FUNCTIONS in labextension/src/tokenizer.ts: {missing}"
    )


def test_every_library_loss_is_highlighted():
    # a loss formula may call them: huber(y_pred, y_true, delta=0.5) + 0.1*mse(...)
    from symnb.formula import library

    missing = set(library.LOSSES) - _ts_set("KNOWN_FUNCTIONS")
    assert not missing, (
        f"add to KNOWN_FUNCTIONS in labextension/src/tokenizer.ts: {missing}"
    )


def test_named_constants_match():
    from symnb.formula.functions import ALLOWED_CONSTANTS

    # e is Euler's number unless declared (symnb.formula.parse)
    assert set(ALLOWED_CONSTANTS) | {"e"} == _ts_set("KNOWN_CONSTANTS")


def test_other_libraries_spellings_are_highlighted():
    from symnb.formula import foreign_losses, spellings

    text = TOKENIZER_TS.read_text(encoding="utf-8")
    block = re.search(
        r"MODULES: ReadonlySet<string> = new Set\(\[(.*?)\]\);", text, re.DOTALL
    )
    assert block and set(re.findall(r"'([A-Za-z_.]+)'", block.group(1))) == set(
        spellings.MODULES
    )
    known = _ts_set("KNOWN_FUNCTIONS") | _ts_set("MODULE_FUNCTIONS")
    names = {*spellings._COMMON, *spellings._REWRITTEN, *spellings.BARE}
    names |= {name for table in spellings._DISTRIBUTIONS.values() for name in table}
    names |= set(spellings.LOSS_FUNCTIONS)
    names |= {name for _, name in spellings.FOREIGN_LOSSES}
    names |= {name for _, name in foreign_losses.LOSSES}
    missing = names - known
    assert not missing, f"add to MODULE_FUNCTIONS in tokenizer.ts: {missing}"
    assert set(spellings.BARE) <= _ts_set("KNOWN_FUNCTIONS")


def test_activation_layer_classes_are_highlighted():
    from symnb.formula.layer_objects import LAYERS

    assert set(LAYERS) == _ts_set("LAYER_CLASSES"), (
        "keep LAYER_CLASSES in labextension/src/tokenizer.ts equal to "
        "symnb.formula.layer_objects.LAYERS"
    )


def test_short_names_of_model_code_match():
    from symnb.formula import spellings

    assert set(spellings._SHORT_NAMES) == _ts_set("SHORT_NAMES")
