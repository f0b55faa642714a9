"""Argument checks shared across the API (one wording for one mistake)."""

from __future__ import annotations

import decimal
import inspect
import keyword
import math
import numbers
import os
import re
import sys
import unicodedata
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from symnb.errors import FormulaError


def is_list_like(value: Any) -> bool:
    """Whether ``list(value)`` reads entries: iterable, and not a 0-d NumPy array
    (which claims to be iterable, and raised "iteration over a 0-d array" or
    "len() of unsized object" where a list was expected, naming neither the
    argument nor the fix)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return False
    return isinstance(value, Iterable)


def check_flag(value: Any, what: str) -> bool:
    """``value`` as a bool (NumPy's too), or a ``TypeError`` naming ``what``: a
    string such as ``"no"`` is truthy and silently meant True (``progress="no"``
    showed a bar, ``shuffle="no"`` shuffled)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, got {value!r:.80}")
    return bool(value)


def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as None or an int >= 0; a ``ValueError`` for a negative integer and a
    ``TypeError`` naming ``what`` for anything else. NumPy's ``default_rng`` also
    takes True (as 1), lists and generators: ``seed=True`` trained with seed 1 and
    ``MLP(seed=[1, 2])`` failed later in ``int()`` with a message that named no
    argument."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise ValueError(
                f"{what} must be a non-negative integer or None, got {seed!r}"
            )
        return int(seed)
    hint = ""
    if isinstance(seed, (bool, np.bool_)):
        hint = " (a bool: pass 1 for True, 0 for False)"
    elif isinstance(
        seed, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)
    ):
        # a NumPy generator named no way to use it (symnb stores the seed: save,
        # pickling and compare's run keys need an integer)
        hint = (
            "; symnb keeps the seed as an integer (saved with the model and in "
            f"run keys): draw one from it, e.g. {what}=int(rng.integers(2**32))"
        )
    raise TypeError(
        f"{what} must be a non-negative integer or None, got {seed!r:.60}{hint}"
    )


#: Most epochs one training call runs (``fit``, ``compare``, ``search``): the
#: history keeps one record per epoch, so ``fit(epochs=10**12)`` ran on for days
#: while its history grew without end (the Playground has the same limit).
MAX_EPOCHS = 1_000_000


def check_epochs(
    epochs: Any,
    what: str = "epochs",
    minimum: int = 0,
    fix: str = "train in parts: each fit continues from the weights the last one left",
) -> int:
    """``epochs`` as an int in [minimum, MAX_EPOCHS], or a ``ValueError`` naming
    ``what`` and ending with ``fix`` when too large (NumPy integers are taken; bools, floats such as 1e3 and text are
    not: ``epochs=2.5`` has no meaning, and ``True`` would train one epoch)."""
    integer = isinstance(epochs, (int, np.integer)) and not isinstance(
        epochs, (bool, np.bool_)
    )
    if not integer or epochs < minimum:
        kind = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        hint = (
            f"; write it as an integer, e.g. {what}={int(epochs)}"
            if isinstance(epochs, float)
            and epochs.is_integer()
            and minimum <= epochs <= MAX_EPOCHS
            else f"; e.g. {what}=40"
        )
        raise ValueError(f"{what} must be {kind}, got {epochs!r:.60}{hint}")
    if epochs > MAX_EPOCHS:
        raise ValueError(
            f"{what}={int(epochs):,} is more than the {MAX_EPOCHS:,} epochs one call "
            f"trains (the history keeps one record per epoch); {fix}"
        )
    return int(epochs)


def real_value(value: Any) -> float | None:
    """``value`` as a float when it is one real number: an int, a float, a NumPy
    integer or floating scalar, a ``fractions.Fraction`` (any ``numbers.Real``) or a
    ``decimal.Decimal``; None for bools, complex numbers, text, arrays and the rest.
    A 0-d array of ints or floats (``np.array(2.0)``) is its number, as in NumPy.
    The float may be inf or NaN (a huge integer or Decimal overflows to inf): the
    caller decides on finiteness. Decimal is no ``numbers.Real`` in Python, so a
    constant ``beta=Decimal("1.5")`` was refused as "not a finite real number"."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if getattr(value, "shape", None) == () and hasattr(value, "dtype"):
        value = _zero_d(value)
    if not isinstance(value, (numbers.Real, decimal.Decimal)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int beyond float64
        return math.inf if value > 0 else -math.inf
    except (TypeError, ValueError):  # Decimal('sNaN')
        return math.nan


def _zero_d(value: Any) -> Any:
    """The number of a 0-d array (NumPy's ``np.array(2.0)``, a 0-d JAX array or
    CPU tensor without grad), as ``float(value)`` reads it; ``value`` itself for a
    bool, complex or other dtype, or an array NumPy cannot read without a copy from a
    device (then refused as before)."""
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - a tensor that needs grad, on a GPU, ...
        return value
    if arr.shape == () and arr.dtype.kind in "iuf":
        return arr[()]
    return value


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` pointed at the first frame outside symnb: the user's line
    (a fixed ``stacklevel`` is wrong for one warning reached along several paths,
    ``Activation.to_torch`` and ``symnb.interop.torch.to_torch`` alike)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1)


def check_no_nul(path: str, what: str) -> None:
    """A ``ValueError`` naming ``what`` when the file name ``path`` holds a NUL
    character (the OS layer's bare "embedded null byte" named nothing)."""
    if "\0" in path:
        raise ValueError(
            f"{what} {path!r:.80} contains a NUL character (\\x00), which no file "
            "name can hold; remove it"
        )


def refuse_constant_attribute(
    obj: Any, attr: str, names: Any, owner: str, fix: str
) -> None:
    """An ``AttributeError`` when ``attr``, about to be assigned on ``obj``, is one
    of the constant ``names`` of ``owner`` (e.g. "activation 'sw'") and no
    attribute ``obj`` has itself: ``act.beta = 2.0`` (or on a kernel or a torch
    module) made a plain attribute that nothing reads, and the computation kept
    beta=1 without a word. ``fix`` says how to set the constant."""
    if attr in names and attr not in obj.__dict__ and not hasattr(type(obj), attr):
        raise AttributeError(f"{attr!r} is a constant of {owner}; {fix}")


#: Longest name of an activation, loss or constant (the Python API and ``%%symact``
#: alike: a 10 MB name was kept and shown whole in every message about it).
MAX_NAME_CHARS = 100
#: Most constants one formula takes: each gets a gradient kernel of its own, so
#: 5,000 unused constants ran g++ past its timeout (and 100,000 took 10 s to read).
MAX_CONSTANTS = 128


#: Unicode categories a name cannot hold: control (newline, tab, NUL, ESC), format
#: (zero-width, right-to-left override), surrogates, private use, unassigned, and line
#: and paragraph separators. Names go into LaTeX, legends, file names, messages and
#: widget labels, where these break lines or hide what the name says.
_UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def is_formula_name(name: str) -> bool:
    """Whether ``name`` can stand in a formula: ASCII letters, digits and '_', not
    starting with a digit, and no Python keyword (``lambda``)."""
    return name.isascii() and name.isidentifier() and not keyword.iskeyword(name)


def check_name(name: str, what: str) -> None:
    """A ``FormulaError`` when ``name`` (a ``what``) is longer than MAX_NAME_CHARS or
    holds a control or invisible character (``name="a\nb"`` was kept)."""
    shown = name if len(name) <= 40 else name[:37] + "..."
    if len(name) > MAX_NAME_CHARS:
        raise FormulaError(
            f"{what} {shown!r} is {len(name):,} characters long; names of "
            f"activations, losses and constants have at most {MAX_NAME_CHARS}",
            suggestion="choose a shorter name",
        )
    for position, char in enumerate(name):
        if unicodedata.category(char) in _UNPRINTABLE_CATEGORIES:
            label = unicodedata.name(char, "a control character")
            kept = "".join(
                c
                for c in name
                if unicodedata.category(c) not in _UNPRINTABLE_CATEGORIES
            )
            raise FormulaError(
                f"{what} {shown!r} holds {label} (U+{ord(char):04X}) at position "
                f"{position}; names are shown in LaTeX, plots, messages and file "
                "names, so they cannot hold control or invisible characters",
                suggestion=f"use printable characters only, e.g. {kept or 'f'!r}",
            )


def check_constant_count(count: int, what: str) -> None:
    """A ``FormulaError`` when ``what`` is given more than MAX_CONSTANTS constants."""
    if count > MAX_CONSTANTS:
        raise FormulaError(
            f"{what} is given {count:,} constants; a formula takes at most "
            f"{MAX_CONSTANTS} (each one gets a gradient kernel of its own)",
            suggestion="pass only the constants the formula uses",
        )


def nonzero_literal(literal: str | None) -> bool:
    """Whether a number literal that Python reads as 0.0 has a nonzero digit before
    its exponent (``1e-400``: an underflow; ``0e5``, ``0.0``: a real zero)."""
    if not literal:
        return False
    digits = re.split(r"[eE]", literal.lower().replace("_", ""), maxsplit=1)[0]
    return bool(re.search(r"[1-9]", digits))


def check_no_booleans(given: Any, arr: np.ndarray, what: str, kind: str) -> None:
    """A ``TypeError`` when ``given`` (read as ``arr``) holds booleans, which NumPy
    takes as 1.0 and 0.0 (also in a list with numbers, ``[1.0, True]``): ``what``
    names the argument and ``kind`` what its values are (constants, parameters)."""
    booleans = arr.dtype.kind == "b" or (
        isinstance(given, (list, tuple))
        and any(isinstance(v, (bool, np.bool_)) for v in np.asarray(given, object).flat)
    )
    if booleans:
        shown = repr(given)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise TypeError(
            f"{what} holds booleans ({shown}); {kind} are numbers: pass floats, "
            "e.g. 1.0 for True"
        )


def masked_entries(given: Any) -> tuple[int, str] | None:
    """(how many entries are masked, the first one's index as "i, j") when
    ``given`` is a masked array with masked entries, else None: ``np.asarray``
    drops the mask, so the values hidden under it would be used."""
    if not isinstance(given, np.ma.MaskedArray):
        return None
    mask = np.ma.getmaskarray(given)
    if not mask.any():
        return None
    return int(mask.sum()), ", ".join(str(int(i)) for i in np.argwhere(mask)[0])


def check_not_masked(given: Any, what: str) -> None:
    """A ``ValueError`` when ``given`` has masked entries (``what`` names the
    argument): their hidden values were written as parameters without a word."""
    masked = masked_entries(given)
    if masked:
        raise ValueError(
            f"{what} is a masked array with {masked[0]} masked entries (the first "
            f"at [{masked[1]}]); the values hidden under the mask would be "
            "written: fill them first (values.filled(value))"
        )


def check_hook(fn: Any, where: str, args: tuple[str, ...], kinds: str) -> None:
    """A TypeError naming ``where`` unless ``fn`` can be called with ``args``
    (``kinds`` says what it may be): fit called a hook only after the first epoch's
    work, and a function of the wrong arity failed there with Python's bare
    "<lambda>() takes 0 positional arguments but 2 were given"; a callback class
    (``callbacks=[EarlyStopping]``) was called as a function f(epoch, logs) and said
    "monitor must be a metric name, got 1"; an initialiser f(shape) failed the same
    way inside MLP."""
    if isinstance(fn, type):
        raise TypeError(
            f"{where} is the class {fn.__name__}, not an instance of it; pass "
            f"{fn.__name__}(...)"
        )
    if not callable(fn):
        raise TypeError(f"{where} must be {kinds}, got {fn!r:.60}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # some builtins have none: called as given
        return
    try:
        signature.bind(*args)
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise TypeError(
            f"{where} is called as f({', '.join(args)}), but {name}{signature} "
            f"cannot take {len(args)} positional argument"
            f"{'s' if len(args) > 1 else ''}; define it as "
            f"def f({', '.join(args)}): ..."
        ) from None


def check_probabilities(name: str, pred: Any, target: Any, pred_fix: str) -> None:
    """``bce`` takes probabilities: like ``torch.nn.BCELoss``, a ValueError for a
    prediction or a target outside [0, 1] (a negative loss and a gradient of 1e12
    came back without a word); NaN passes (a diverged network's NaN stop)."""
    for what, array in (("prediction", pred), ("target", target)):
        if array.size and bool(((array < 0) | (array > 1)).any()):
            lo, hi = float(array.min()), float(array.max())
            fix = pred_fix if what == "prediction" else "binary targets are 0 or 1"
            raise ValueError(
                f"loss {name!r} takes probabilities: every {what} must be in "
                f"[0, 1], got values in [{lo:.6g}, {hi:.6g}]; {fix}"
            )


def check_no_underflow(what: str, value: Any, number: float) -> None:
    """A ``FormulaError`` when ``value`` is not zero but its float ``number`` is:
    ``Decimal('1e-400')`` and ``Fraction(1, 10**400)`` became the constant 0.0
    without a word (the literal 1e-400 in a formula is refused the same way)."""
    if number == 0.0 and value != 0:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise FormulaError(
            f"{what} = {shown} is too small for a float (it would be 0); the "
            "smallest nonzero magnitude is about 5e-324",
            suggestion="give 0 if 0 is meant, or rescale the formula",
        )
