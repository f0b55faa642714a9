"""Choosing a backend: ``auto`` (cuda, else cpp, else numpy), fallbacks, ``strict``.

Backends are imported lazily and probed once. Asking for a backend that is not usable falls
back with a warning naming the backend asked for, the one used and why; ``strict=True``
raises ``BackendUnavailable`` instead. Compiled Programs are kept in an in-process cache, so
compiling the same formula again (or with other constant values) costs nothing.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections import OrderedDict
from dataclasses import replace
from typing import Any

import numpy as np

from symnb import config
from symnb.backends import constant_assumptions, layer_assumptions
from symnb.backends.base import BackendStatus
from symnb.backends.kernel import Kernel, LayerKernel, LossKernel
from symnb.checks import check_flag
from symnb.codegen import constant_parts
from symnb.errors import BackendUnavailable, CompileError, FormulaError
from symnb.forksafe import module_lock

_MODULES = {
    "numpy": "symnb.backends.numpy_",
    "cpp": "symnb.backends.cpp",
    "cuda": "symnb.backends.cuda",
}
AUTO_ORDER = ("cuda", "cpp", "numpy")
_DTYPES = ("float32", "float64")

_status: dict[str, BackendStatus] = {}
_programs: OrderedDict = OrderedDict()
_MAX_PROGRAMS = 256
_lock = module_lock(globals(), "_lock", threading.RLock)  # see symnb.forksafe


class FallbackWarning(UserWarning):
    """A backend asked for was not usable and another one was used."""


def _module(name: str):
    return importlib.import_module(_MODULES[name])


def status(name: str, refresh: bool = False) -> BackendStatus:
    """The (cached) availability report of one backend (any case, as ``resolve``)."""
    if not isinstance(name, str):
        raise TypeError(f"backend must be a string, got {type(name).__name__}")
    refresh = check_flag(refresh, "refresh")  # refresh='no' re-probed
    name = name.strip().lower()  # status('CPP') was 'unknown backend'
    if name not in _MODULES:
        raise ValueError(
            f"unknown backend {name!r}; use one of 'auto', {', '.join(map(repr, _MODULES))}"
        )
    with _lock:
        if refresh or name not in _status:
            try:
                _status[name] = _module(name).probe()
            except Exception as exc:  # noqa: BLE001 - a broken probe means unusable
                _status[name] = BackendStatus(
                    name, False, reason=f"probe failed: {type(exc).__name__}: {exc}"
                )
        return _status[name]


def available(refresh: bool = False) -> dict[str, BackendStatus]:
    """Every backend's report: usable or not, and why not."""
    return {name: status(name, refresh) for name in AUTO_ORDER}


def check_dtype(dtype: Any) -> str:
    """``dtype`` as "float32" or "float64", else ValueError: the one dtype check of
    every face (``compile``, ``to_source``, ``MLP``, ``%%symact --dtype``, the CLI).

    It takes NumPy's spellings (``np.float32``, ``"f8"``, ``"double"``) and the two
    names in any case, with spaces around, as backend names are taken:
    ``compile(dtype="FLOAT64")`` was refused while ``%%symact --dtype FLOAT64`` (and
    ``backend="NUMPY"``) worked, and the magic refused ``f8`` that compile took."""
    if dtype is None:  # np.dtype(None) is float64: a silent switch from the default
        raise ValueError(
            "dtype=None is not supported; use 'float32' (the default) or 'float64'"
        )
    if isinstance(dtype, str) and dtype.strip().lower() in _DTYPES:
        return dtype.strip().lower()
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    if name not in _DTYPES:
        raise ValueError(
            f"dtype={dtype!r} is not supported; use 'float32' or 'float64'"
        )
    return name


# CUDA numbers devices with a C int: a larger index can name no device
MAX_DEVICE = 2**31 - 1


def _names_gpu(device: Any) -> bool:
    """Whether ``device`` is spelled as PyTorch names a GPU (``"cuda"``, ``"cuda:N"``,
    a ``torch.device``), not as a bare index (whose default, 0, every call passes)."""
    return isinstance(device, str) or type(device).__name__ == "device"


def _is_cpu(device: Any) -> bool:
    """Whether ``device`` is PyTorch's spelling of the CPU (``"cpu"``, a cpu
    ``torch.device``)."""
    return _names_gpu(device) and str(device).strip().lower() == "cpu"


def check_device(device: Any) -> int:
    """The GPU index of ``device``: an int >= 0, or as PyTorch spells it, ``"cuda"``,
    ``"cuda:N"`` or a ``torch.device`` of type cuda (the CPU backends ignore an
    index; ``compile`` refuses a named GPU with them)."""
    if _names_gpu(device):
        text = str(device).strip().lower()
        kind, _, index = text.partition(":")
        if kind == "cuda" and (not index or (index.isdigit() and index.isascii())):
            return _in_range(device, int(index or 0))
        raise ValueError(
            f"device={device!r} is not a GPU: use an index >= 0, 'cuda' or 'cuda:N'"
            " (the cpp and numpy backends run on the CPU and need no device)"
        )
    if (
        isinstance(device, bool)
        or not isinstance(device, (int, np.integer))
        or device < 0
    ):
        raise ValueError(
            f"device={device!r} must be a GPU index >= 0 (0 is the first GPU),"
            " 'cuda' or 'cuda:N'"
        )
    return _in_range(device, int(device))


def device_from_text(text: str) -> int:
    """A device typed as text (``%%symact --device``, ``%symnb device``, the CLI's
    ``--device``): ``"0"``, or PyTorch's ``"cuda"`` / ``"cuda:1"`` as
    :func:`check_device` takes them (the magic refused 'cuda:0', which
    ``compile(device=...)`` takes); a ValueError otherwise."""
    text = str(text).strip()
    try:
        value: Any = int(text)
    except ValueError:
        if not text.lower().startswith("cuda"):
            raise ValueError(
                f"a device is a GPU index such as 0 (or 'cuda:N'), not {text!r}"
            ) from None
        value = text
    return check_device(value)


def _in_range(device: Any, index: int) -> int:
    if index > MAX_DEVICE:
        raise ValueError(
            f"device={device!r} is no GPU index: CUDA numbers GPUs 0, 1, ... up to "
            f"{MAX_DEVICE} at most; use the index of one of this machine's GPUs "
            "(0 is the first; %symnb info or symnb.backends.available() lists them)"
        )
    return index


def check_backend(backend: Any) -> str:
    """A backend name as every face takes it: 'auto', 'numpy', 'cpp' or 'cuda' in
    any case, with spaces around (as ``compile`` and ``MLP`` always folded it;
    ``to_torch``, ``to_torch_layer`` and ``nn.load`` refused 'CPP'). The name in
    lower case; a TypeError or ValueError naming it otherwise."""
    if not isinstance(backend, str):
        raise TypeError(
            "backend must be a string: 'auto', "
            f"{', '.join(map(repr, _MODULES))}; got {type(backend).__name__}"
        )
    name = backend.strip().lower()
    if name != "auto" and name not in _MODULES:
        raise ValueError(
            f"unknown backend {backend!r}: backend must be one of 'auto', "
            f"{', '.join(map(repr, _MODULES))}"
        )
    return name


_settings_warned: set[tuple[str, str]] = set()


def _warn_unusable_setting(preferred: str | None, chosen: str) -> None:
    """One FallbackWarning per session when ``auto`` passes over what a setting
    asked for: ``SYMNB_BACKEND=cpp`` or ``SYMNB_CXX=/opt/gcc/bin/g++`` that cannot
    work here (a typo in the path) made every kernel NumPy's without a word."""
    asked = []
    if preferred is not None and preferred != chosen:
        asked.append((f"SYMNB_BACKEND={preferred}", preferred))
    if config.cxx_is_set() and chosen != "cpp" and chosen != "cuda":
        asked.append((f"SYMNB_CXX={config.cxx()}", "cpp"))
    for setting, name in asked:
        key = (setting, chosen)
        if key in _settings_warned:
            continue
        _settings_warned.add(key)
        st = status(name)
        warnings.warn(
            f"{setting} is set, but backend {name!r} is not usable ({st.reason}); "
            f"backend='auto' uses {chosen!r}. Fix: {st.fix or 'correct the setting'}",
            FallbackWarning,
            stacklevel=5,
        )


def resolve(backend: str = "auto", strict: bool = False) -> str:
    """The backend that will be used for a request, warning on fallback."""
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string, got {type(backend).__name__}")
    backend = backend.strip().lower()
    # strict='no' was truthy: raised where a fallback was asked for
    strict = check_flag(strict, "strict")
    if backend == "auto":
        preferred = config.preferred_backend()
        order = ((preferred,) if preferred else ()) + AUTO_ORDER
        chosen = next((name for name in order if status(name).usable), "numpy")
        _warn_unusable_setting(preferred, chosen)
        return chosen
    st = status(backend)
    if st.usable:
        return backend
    if strict:
        raise BackendUnavailable(backend, st.reason, st.fix)
    for name in AUTO_ORDER[AUTO_ORDER.index(backend) + 1 :]:  # numpy always usable
        if status(name).usable:
            warnings.warn(
                f"backend {backend!r} is not usable ({st.reason}); using {name!r} instead "
                "(pass strict=True to raise instead)",
                FallbackWarning,
                stacklevel=4,
            )
            return name
    return "numpy"


def _build(
    forms: tuple, kind: str, backend: str, dtype: str, device: int | None, strict: bool
):
    """A Program from the in-process cache or freshly built; falls back on compile errors.

    The key holds the constants' values: the forms are lowered (``robust.lower_all``)
    at those values, so one formula with other values may lower to another form. Keyed
    on the formula alone, a process gave ``x*sigmoid(beta*x)`` with beta = 1.5 the form
    lowered for an earlier beta = 1.0 (right, but other roundings than a fresh process:
    a Dask sweep's rows differed from the serial rows in the 9th digit)."""
    key = (
        tuple((f.signature(), repr(tuple(f.param_values))) for f in forms),
        kind,
        backend,
        dtype,
        device,
    )
    with _lock:
        prog = _programs.get(key)
        if prog is not None:
            _programs.move_to_end(key)
            return prog, backend
    try:
        prog = _built(forms, kind, backend, dtype, device)
    except (CompileError, BackendUnavailable) as exc:
        if strict or backend == "numpy" or getattr(exc, "timed_out", False):
            raise  # a compile timeout is reported, never silently replaced
        nxt = AUTO_ORDER[AUTO_ORDER.index(backend) + 1]
        warnings.warn(
            f"backend {backend!r} failed to build {kind} kernel "
            f"({str(exc).splitlines()[0]}); using {nxt!r} instead",
            FallbackWarning,
            stacklevel=4,
        )
        return _build(forms, kind, resolve(nxt), dtype, None, strict)
    with _lock:
        _programs[key] = prog
        while len(_programs) > _MAX_PROGRAMS:
            _programs.popitem(last=False)
    return prog, backend


#: Backends whose elementwise programs compute the constants' gradients only when
#: first asked for (``build(..., whole=...)``): their analysis waits until then.
_LAZY_GRADIENTS = ("cpp", "numpy")


def _built(forms: tuple, kind: str, backend: str, dtype: str, device: int | None):
    """The backend's Program of the forms lowered for ``dtype`` (numerical robustness,
    issue 8). An elementwise kernel with constants on a CPU backend is built from f
    and f' analysed alone, and given the lowering with the constants' gradients to
    use when one is first asked for: most constants are never learned, and that
    analysis took about twice as long as f's and f''s."""
    from symnb.robust import engine

    module = _module(backend)
    given = forms
    # the parts that cancel in float32 are hoisted before the analysis, so the form
    # analysed is the one compiled (after it, the kernels' common subexpressions
    # changed from the analysed form's: the Charbonnier loss's f' overflowed)
    forms, parts = _hoisted(forms, kind, dtype)
    if kind != "elementwise" or backend not in _LAZY_GRADIENTS:
        lowered = engine.lower_all(forms, dtype)
        prog = module.build(lowered, kind, dtype, device)
    else:
        lowered = engine.lower_all(forms, dtype, gradients=False)
        prog = module.build(
            lowered, kind, dtype, device, whole=lambda: engine.lower_all(forms, dtype)
        )
    if kind != "layer" and given[0].params:
        # what the forms assume of the constants: a kernel whose constants break
        # it runs a program built for them (:func:`rebuild`)
        prog.assumptions = constant_assumptions.of(given, lowered, dtype)
    return _with_parts(prog, parts)


def rebuild(form: Any, values: Any, kind: str, backend: str, dtype: str, device: Any):
    """The Program of ``form`` (one formula's internal form) lowered at the
    constants ``values`` (float64, as given) on ``backend``, for a kernel whose
    constants moved where its program's forms do not hold
    (:mod:`symnb.backends.constant_assumptions`); from the in-process or disk
    cache where built before."""
    moved = replace(form, param_values=tuple(float(v) for v in values))
    return rebuild_forms((moved,), kind, backend, dtype, device)


def rebuild_forms(forms: tuple, kind: str, backend: str, dtype: str, device: Any):
    """The Program of ``forms`` already moved to their new constants (a layer's
    forms, one per group of neurons), on ``backend`` with no fallback; from the
    in-process or disk cache where built before."""
    return _build(forms, kind, backend, dtype, device, strict=True)[0]


def _hoisted(forms: tuple, kind: str, dtype: str) -> tuple[tuple, Any]:
    """The forms (not yet analysed) with their input-free parts that cancel in
    ``dtype`` as extra constants (:mod:`symnb.codegen.constant_parts`: computed in
    float64 once per change of the constants), and those parts (a layer: a tuple,
    one per form); the forms themselves and None where none are hoisted."""
    if dtype not in constant_parts.DTYPES:
        return forms, None
    hoisted = [constant_parts.hoist(form) for form in forms]
    if not any(parts for _, parts in hoisted):
        return forms, None
    new = tuple(form for form, _ in hoisted)
    if kind == "layer":
        return new, tuple(parts or None for _, parts in hoisted)
    return new, hoisted[0][1]


def _with_parts(prog: Any, parts: Any) -> Any:
    """``prog`` with its hoisted constant parts, for the kernels that call it (a
    layer's: one per form)."""
    if isinstance(parts, tuple):
        prog.layer_parts = parts
    else:
        prog.constant_parts = parts
    return prog


def _prepare(
    backend: str, device: Any, dtype: Any, strict: bool
) -> tuple[str, str, int | None]:
    dtype = check_dtype(dtype)
    if not isinstance(strict, (bool, np.bool_)):  # 'no' and 'false' are truthy
        raise TypeError(
            f"strict must be True or False, got {strict!r} (True: raise instead of "
            "falling back to another backend)"
        )
    asked = backend.strip().lower() if isinstance(backend, str) else backend
    if _is_cpu(device):  # device="cpu", as PyTorch spells it: a CPU backend
        if asked == "cuda":
            raise ValueError(
                f"backend={backend!r} runs on a GPU, but device={str(device)!r} asks "
                "for the CPU; pass backend='cpp', 'numpy' or 'auto', or a GPU device"
            )
        if asked == "auto":
            backend = "cpp" if status("cpp").usable else "numpy"
        return resolve(backend, strict), dtype, None
    index = check_device(device)
    if asked in ("cpp", "numpy") and _names_gpu(device):
        # as PyTorch would, refuse a GPU named with a CPU backend rather than run on
        # the CPU anyway
        raise ValueError(
            f"backend={backend!r} runs on the CPU, but device={str(device)!r} asks for "
            f"a GPU; pass backend='cuda' (or 'auto') to run on {str(device)!r}, or "
            "leave device out to run on the CPU"
        )
    name = resolve(backend, strict)
    if name != "cuda" and _names_gpu(device):
        # backend 'auto' with device='cuda:0': the GPU named is not usable here
        cuda = status("cuda")
        why = (
            f"SYMNB_BACKEND={config.preferred_backend()!r} chose {name!r}"
            if cuda.usable
            else f"backend 'cuda' is not usable ({cuda.reason})"
        )
        warnings.warn(
            f"device={str(device)!r} names a GPU, but {why}; running on {name!r} "
            "(the CPU) instead (pass backend='cuda', strict=True to raise instead)",
            FallbackWarning,
            stacklevel=4,
        )
    return name, dtype, (index if name == "cuda" else None)


def _compile_one(
    formula: Any,
    kind: str,
    cls: type,
    backend: str,
    device: Any,
    dtype: Any,
    strict: bool,
) -> Any:
    name, dtype, dev = _prepare(backend, device, dtype, strict)
    prog, used = _build((formula.internal,), kind, name, dtype, dev, strict)
    return cls(formula, prog, dtype, used, dev if used == "cuda" else None)


def compile_activation(
    activation: Any,
    backend: str = "auto",
    device: int = 0,
    dtype: str = "float32",
    strict: bool = False,
) -> Kernel:
    """Compile one activation (used by ``Activation.compile``)."""
    return _compile_one(
        activation, "elementwise", Kernel, backend, device, dtype, strict
    )


def compile_loss(
    loss: Any,
    backend: str = "auto",
    device: int = 0,
    dtype: str = "float32",
    strict: bool = False,
) -> LossKernel:
    """Compile one loss (used by ``Loss.compile``)."""
    return _compile_one(loss, "loss", LossKernel, backend, device, dtype, strict)


def per_neuron_activations(specs: Any, what: str = "neuron") -> list[Any]:
    """One ``Activation`` per entry of ``specs`` (``as_activation``, errors naming
    "neuron j", or ``what`` j); a name or formula text is parsed once, not once per
    neuron (['relu'] * 10**5 parsed 'relu' 10**5 times: about 5 ms each, minutes in
    all)."""
    from symnb.formula.formula import Activation, as_activation

    parsed: dict[str, Activation] = {}
    acts = []
    for j, a in enumerate(specs):
        if isinstance(a, str):
            if a not in parsed:
                parsed[a] = as_activation(a, f"{what} {j}")
            acts.append(parsed[a])
        else:
            acts.append(as_activation(a, f"{what} {j}"))
    return acts


def compile_layer(
    activations: Any,
    backend: str = "auto",
    device: int = 0,
    dtype: str = "float32",
    strict: bool = False,
) -> LayerKernel:
    """Compile a heterogeneous layer: neuron j uses ``activations[j]`` with its own constants.

    Neurons with the same formula share one branch of the kernel; each keeps its own
    constants, so ``[swish.with_constants(beta=b) for b in betas]`` is one branch.
    """
    from symnb.formula.formula import Activation

    if isinstance(activations, (str, Activation)):
        raise TypeError(
            "compile_layer expects a list with one activation per neuron, e.g. "
            "[relu, relu, swish]"
        )
    try:
        specs = list(activations)
    except TypeError:
        raise TypeError(
            "compile_layer expects a list with one activation per neuron, e.g. "
            f"[relu, relu, swish], got {activations!r:.80}"
        ) from None
    if isinstance(activations, (set, frozenset, dict)):
        raise TypeError(
            "compile_layer expects an ordered list with one activation per neuron "
            f"(neuron j uses entry j), got a {type(activations).__name__}"
        )
    acts = per_neuron_activations(specs)
    if not acts:
        raise ValueError("compile_layer needs at least one activation")
    forms: list = []
    index: dict[str, int] = {}
    ids = np.empty(len(acts), dtype=np.int32)
    for j, a in enumerate(acts):
        sig = a.internal.signature()
        if sig not in index:
            index[sig] = len(forms)
            forms.append(a.internal)
        ids[j] = index[sig]
    name, dtype, dev = _prepare(backend, device, dtype, strict)
    # one program form per formula and sign/scale of its neurons' constants
    plan, run = layer_assumptions.initial(acts, tuple(forms), ids, dtype)
    prog, used = _build(run, "layer", name, dtype, dev, strict)
    return LayerKernel(
        acts, forms, ids, prog, dtype, used, dev if used == "cuda" else None, plan
    )


def clear_program_cache() -> None:
    """Forget every in-process Program (the disk cache is untouched)."""
    with _lock:
        _programs.clear()


__all__ = [
    "FallbackWarning",
    "FormulaError",
    "available",
    "compile_activation",
    "compile_layer",
    "compile_loss",
    "resolve",
    "status",
]
