"""The public kernel objects: argument checks at the boundary, then a backend's Program.

Arrays crossing into a Program are always of the kernel's dtype, C-contiguous and of checked
shapes. Inputs of another dtype or layout are converted (with a warning, once per kernel);
``out=`` arrays are never converted: a wrong ``out`` is a ``TypeError``/``ValueError``.
``out`` may be the input itself (in place) but may not partially overlap it.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from symnb.checks import (
    check_no_booleans,
    check_no_underflow,
    check_probabilities,
    real_value,
    refuse_constant_attribute,
)
from symnb.errors import FormulaError


def _array_module(backend: str):
    if backend == "cuda":
        import cupy

        return cupy
    return np


class _Checked:
    """Input/output checks shared by all kernel objects."""

    backend: str
    dtype: np.dtype
    xp: Any

    #: What the compiled code was built for; set once, then refused (see __setattr__).
    _FIXED = frozenset(
        {
            "dtype",
            "backend",
            "device",
            "xp",
            "activation",
            "loss",
            "activations",
            "n",
            "forms",
            "ids",
            "offsets",
        }
    )

    def __setattr__(self, name: str, value: Any) -> None:
        # kernel.dtype = float64 made the checks convert inputs to float64 for code
        # that reads float32: silent garbage ([1, 2, 9.9e177, 1.6e-06] for relu of
        # [1, 2, -3, 4]); layer.n = 3000 read its neuron table past the end
        if name in self._FIXED and name in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.{name} is fixed by the compiled code "
                f"({name}={self.__dict__[name]!r:.60}); compile again for another "
                f"one, e.g. activation.compile(backend=..., dtype=...)"
            )
        super().__setattr__(name, value)

    def _setup(
        self, program: Any, dtype: str, backend: str, device: int | None
    ) -> None:
        self._program = program
        self.dtype = np.dtype(dtype)
        self.backend = backend
        self.device = device
        self.xp = _array_module(backend)
        self._warned: set[str] = set()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling, ``copy.copy`` and ``copy.deepcopy`` compile the formula again
        (usually from the disk cache) on the same backend, device and dtype, with the
        current constants: the compiled code holds ctypes pointers and device memory,
        which cannot be pickled."""
        kind, source = self._compiled_from()
        params = self._params if self.xp is np else self._params.get()
        # constants changed in place to NaN or out of their domain: refused now, as
        # the next call refuses them (the pickle was written, and loading it failed)
        self._check_in_place(np.asarray(params))
        if self.__dict__.get("_given") is not None:  # the float64 values as given
            params = np.array(self._given_constants())
        return (
            _from_pickle,
            (
                kind,
                source,
                self.backend,
                self.device,
                self.dtype.name,
                np.array(params),
            ),
        )

    def _compiled_from(self) -> tuple[str, Any]:
        """What to compile again: ("activation" | "loss" | "layer", the formulas)."""
        raise NotImplementedError

    @property
    def source(self) -> str:
        """The generated source (for numpy: the lambdified expressions)."""
        return self._program.source

    @property
    def cache_hit(self) -> bool:
        """Whether the compiled artifact came from the disk cache."""
        return bool(self._program.cache_hit)

    @property
    def compile_seconds(self) -> float:
        """Seconds spent generating and compiling (0 on an in-process cache hit)."""
        return float(self._program.compile_seconds)

    @property
    def params(self) -> Any:
        """The constants the kernel reads: a 1-D array of the kernel's dtype.

        It may be changed in place (``k.params[0] = 2.0``). Assigning a new array
        (``k.params = np.array([2.0])``) copies its values into this array after
        checking them: the same length, real, finite and representable in the kernel's
        dtype (a float32 kernel refuses 1e300). ``set_constants`` does the same by name.
        """
        return self._params

    @params.setter
    def params(self, value: Any) -> None:
        current = getattr(self, "_params", None)
        host = self._checked_params(value, None if current is None else current.shape)
        self._check_domain(host, "params")
        if current is None:
            self._params = self.xp.asarray(host)
        else:
            current[...] = self.xp.asarray(host)
        self._remember_given(None, value)
        self._keep_assumptions()

    def write_params(
        self, values: Any, positions: Any = None, *, domain: bool = True
    ) -> None:
        """Write ``values`` into ``params`` in place: all of them, or the entries at
        ``positions`` (an integer array). Checked like the ``params`` setter (finite,
        representable in the kernel's dtype, within a library formula's domain:
        else ``FormulaError`` naming the constant, and nothing is written), but
        without a host round trip for arrays of the kernel's own module (training
        loops call this every step).

        ``domain=False`` skips the domain tests and trusts the values until they
        change again: the trainer's writes, where an optimizer step may cross a
        bound; ``fit`` tests the domains at each epoch's end and stops there
        (an exception inside a step would leave the step half done)."""
        xp = self.xp
        vals = _real_array(xp, values, "write_params: values", numbers_only=True)
        size = int(self._params.size)
        if positions is None:
            if vals.shape != (size,):
                raise ValueError(
                    f"write_params: values has shape {vals.shape}; it must hold one "
                    f"value per constant, shape ({size},) (or pass positions)"
                )
        else:
            positions = self._checked_positions(positions, vals.shape, size)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            stored = vals.astype(self.dtype)
            bad = ~xp.isfinite(stored) | ((vals != 0) & (stored == 0))
        if bool(bad.any()):
            i = int(xp.flatnonzero(bad.reshape(-1))[0])
            at = i if positions is None else int(xp.asarray(positions).reshape(-1)[i])
            _check_fits(self._param_label(at), float(vals.reshape(-1)[i]), self.dtype)
        if domain and self._domain_slots():
            host = self._host_params().astype(np.float64)
            new = stored if xp is np else stored.get()
            if positions is None:
                host[...] = new
            else:
                host[np.asarray(positions if xp is np else positions.get())] = new
            self._check_domain(host, "write_params")
        if positions is None:
            self._params[...] = stored
        else:
            self._params[positions] = stored
        self._remember_given(positions, vals)
        self._keep_assumptions()
        if not domain and xp is np:  # finite, checked above: no check at the call
            self.__dict__["_checked_bytes"] = self._params.tobytes()

    def _checked_positions(self, positions: Any, shape: tuple, size: int) -> Any:
        """``positions`` as an integer array of ``shape`` with entries in
        [0, size). On CuPy the last array checked is remembered (training loops
        pass the same one every step, and the range check costs a device sync):
        change a positions array in place and its new entries are not checked."""
        known = getattr(self, "_known_positions", None)
        if (
            self.xp is not np
            and known is not None
            and known[0] is positions
            and known[1] == shape
        ):
            return known[2]
        pos = self.xp.asarray(positions)
        if pos.size == 0 and pos.dtype.kind == "f":  # [] is float64 to NumPy
            pos = pos.astype(np.int64)
        if pos.dtype.kind not in "iu":
            raise TypeError(
                f"write_params: positions has dtype {pos.dtype}; it must hold "
                "integer indices into params"
            )
        if pos.shape != shape:
            raise ValueError(
                f"write_params: positions has shape {pos.shape} and values "
                f"{shape}; they must match (one value per position)"
            )
        if pos.size and (int(pos.min()) < 0 or int(pos.max()) >= size):
            raise IndexError(
                f"write_params: positions must be in [0, {size}) (params has {size} "
                f"entries); got {int(pos.min())}..{int(pos.max())}"
            )
        if pos.size > 1:
            seen = np.unique(pos if self.xp is np else pos.get(), return_counts=True)
            if (seen[1] > 1).any():
                # positions=[0, 0] with two values kept the last one without a word
                twice = int(seen[0][np.argmax(seen[1] > 1)])
                raise ValueError(
                    f"write_params: positions holds {twice} more than once; give "
                    "each position once, with its one value"
                )
        self._known_positions = (positions, shape, pos)
        return pos

    def _param_label(self, index: int) -> str:
        return f"params[{index}]"

    def _formulas_with_slots(self) -> list[tuple[Any, list[int], str]]:
        """(formula, the positions of its constants in ``params``, where it is in
        the kernel: "" or "neuron 3") for each formula the kernel computes."""
        raise NotImplementedError

    def _domain_slots(self) -> list[tuple[Any, list[int], str]]:
        """The pairs of :meth:`_formulas_with_slots` whose formula has domain tests
        on its constants (softplus's beta != 0, huber's delta > 0), computed once."""
        slots = self.__dict__.get("_domain_slots_cache")
        if slots is None:
            slots = [
                slot
                for slot in self._formulas_with_slots()
                if getattr(slot[0], "has_domain", False)
            ]
            self.__dict__["_domain_slots_cache"] = slots
        return slots

    def _host_params(self) -> np.ndarray:
        return self._params if self.xp is np else self._params.get()

    def _check_domain(self, host: np.ndarray, where: str, how: str = "") -> None:
        """A FormulaError naming ``where`` when the constants ``host`` (all of
        ``params``) leave a library formula's domain: ``set_constants`` and
        ``Activation.with_constants`` refused softplus's beta=0 or huber's
        delta=-1, but ``kernel.params = ...`` and ``write_params`` took them and
        the kernel computed a division by zero or a loss that falls as the error
        grows, without a word."""
        for formula, positions, label in self._domain_slots():
            names = tuple(formula.internal.param_names)
            values = {n: float(host[i]) for n, i in zip(names, positions)}
            try:
                formula.check_domain(values)
            except FormulaError as err:
                notes = ", ".join(n for n in (label, how) if n)
                at = f" ({notes})" if notes else ""
                raise FormulaError(
                    f"{where}{at}: {err.message}",
                    suggestion=f"keep the constants of {formula.kind} "
                    f"{formula.name!r} in its domain (nothing was changed)",
                ) from None

    def domain_problem(self) -> str | None:
        """What is wrong when the current ``params`` leave a library formula's
        domain (the message of the first failed test), else None."""
        if not self._domain_slots():
            return None
        try:
            self._check_domain(self._host_params(), "constants")
        except FormulaError as err:
            return err.message
        return None

    def _call_params(self) -> Any:
        """``params`` for a call into the program, checked again when it changed
        in place since the last call (``kernel.params[0] = np.nan`` or ``= -1``
        cannot be intercepted when it is written, and the kernel computed NaN or
        a value outside the formula's domain without a word): finite, and within
        the library formulas' domains. On the host the comparison with the last
        checked bytes costs about 0.2 us. CuPy's params are not checked here: a
        copy to the host would wait for the device at every call (the setter and
        ``write_params`` still check what they write)."""
        params = self._params
        if self.xp is np:
            key = params.tobytes()
            if key != self.__dict__.get("_checked_bytes"):
                self._check_in_place(params)
                self._keep_assumptions()
                self.__dict__["_checked_bytes"] = key
        parts = getattr(self._program, "constant_parts", None)
        return self._with_parts(params, parts) if parts else params

    def _remember_given(self, positions: Any, values: Any) -> None:
        """Keep the float64 values written (all, or those at ``positions``): the
        parts of the formula that depend only on its constants are computed from
        them (``constant_parts``: 1 - t at t = 0.99999999 is 1e-8, not 1 - 1.0 = 0
        as a float32 ``params`` holds it). Only kernels with such parts keep them."""
        if not self._params.size:
            return  # (kept for every kernel with constants: a change may move it
            # to a program with constant parts, which are computed from them)
        self.__dict__["_given_key"] = self.__dict__.get("_given_key", 0) + 1
        self.__dict__.pop("_parts_cache", None)
        if type(values).__module__.startswith("cupy"):
            values = values.get()
        vals = np.asarray(values, dtype=np.float64).reshape(-1)
        given = self.__dict__.get("_given")
        if positions is None or given is None:
            if positions is not None or vals.size != self._params.size:
                return  # (cannot happen: checked before)
            self.__dict__["_given"] = vals.copy()
            return
        if type(positions).__module__.startswith("cupy"):
            positions = positions.get()
        given[np.asarray(positions).reshape(-1)] = vals

    def _keep_assumptions(self) -> None:
        """Run a program whose forms hold at the current constants: the forms
        were lowered at the constants compiled, and some are wrong for others
        (:mod:`symnb.backends.constant_assumptions`: a constant moved to 0 or
        across it, a float32 part that now cancels). Where the current program's
        assumptions break, one built before for this kernel that holds is taken,
        else one is built at the current constants (``select.rebuild``, through the
        caches); a change that keeps them costs a few microseconds."""
        assumptions = getattr(self._program, "assumptions", None)
        if assumptions is None:
            return
        held = self._host_params().tolist()
        # (the setter checks, then the next call sees the bytes changed: once)
        seen = (self._program, held, self.__dict__.get("_given_key"))
        if seen == self.__dict__.get("_assumed_for"):
            return
        if assumptions.watched:  # float32 parts: judged at the values as given
            values = self._given_constants()
        else:  # sign and scale: of the values held (a nonzero never rounds to 0)
            values = held
        if assumptions.broken(values) is None:
            self.__dict__["_assumed_for"] = seen
            return
        values = self._given_constants()
        built = self.__dict__.setdefault("_programs_built", [self._program])
        for program in built:
            if program.assumptions.broken(values) is None:
                break
        else:
            from symnb.backends import select

            formula = self._formulas_with_slots()[0][0]
            program = select.rebuild(
                formula.internal,
                values,
                self._program.kind,
                self.backend,
                self.dtype.name,
                self.device,
            )
            built.append(program)
        self._program = program
        self.__dict__["_built_at"] = values if program is not built[0] else None
        self.__dict__.pop("_parts_cache", None)

    def _lowered_forms(self) -> tuple[tuple, tuple]:
        """(forms, ids) as the program running now was lowered from: code that
        generates its own kernels from them (``nn.fused``) matches it."""
        form = self._formulas_with_slots()[0][0].internal
        at = self.__dict__.get("_built_at")
        if at is not None:
            from dataclasses import replace

            form = replace(form, param_values=tuple(float(v) for v in at))
        return (form,), (0,)

    def _given_constants(self) -> list[float]:
        """The constants as last given (float64) where ``params`` still holds their
        rounding, else as ``params`` holds them (changed in place)."""
        host = self._host_params()
        given = self.__dict__.get("_given")
        if given is not None and given.size == host.size <= 8:
            # a few constants (a Kernel's): in Python, about 3x quicker
            narrow = self.dtype.type
            return [
                g if float(narrow(g)) == h else h
                for g, h in zip(given.tolist(), host.tolist())
            ]
        held = np.asarray(host).astype(np.float64)
        if given is None or given.shape != held.shape:
            return held.tolist()
        with np.errstate(over="ignore", under="ignore"):
            same = given.astype(self.dtype).astype(np.float64) == held
        return np.where(same, given, held).tolist()

    def _with_parts(self, params: Any, parts: Any) -> Any:
        """``params`` followed by the formula's constant parts, computed in float64
        from the constants as given (where ``params`` still holds their rounding;
        an entry changed in place counts as its new value) and rounded once to the
        kernel's dtype. Recomputed when the constants change: on the host when
        ``params``' bytes differ, on a GPU when set through ``set_constants``,
        ``params = ...`` or ``write_params`` (a change in place in device memory is
        not seen, as the checks there do not see it)."""
        key = params.tobytes() if self.xp is np else None
        cached = self.__dict__.get("_parts_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        host = np.asarray(self._host_params())
        with np.errstate(all="ignore"):
            extra = parts.values(np.array(self._given_constants())).astype(self.dtype)
        full = self.xp.asarray(np.concatenate([host, extra]))
        self.__dict__["_parts_cache"] = (key, full)
        return full

    def _check_in_place(self, host: np.ndarray) -> None:
        """A FormulaError naming the constant when ``host`` (all of ``params``,
        as the kernel holds them) has an entry that is not finite (a float32
        kernel turns 1e300 written in place into inf) or leaves a domain."""
        bad = ~np.isfinite(host)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            label = self._param_label(i)
            shown = label if label.startswith("params[") else f"params[{i}] ({label})"
            raise FormulaError(
                f"{shown} was changed in place to "
                f"{float(host[i])!r}; constants must be finite (and fit the "
                f"kernel's {self.dtype})",
                suggestion="write a finite value, or use set_constants(name=value), "
                "which checks it before writing",
            )
        self._check_domain(host, "params", "changed in place")

    def _checked_params(self, value: Any, shape: tuple | None) -> np.ndarray:
        if type(value).__module__.startswith("cupy"):
            value = value.get()
        raw = _real_array(np, value, "params", numbers_only=True)
        arr = raw.astype(np.float64).reshape(-1) if raw.ndim <= 1 else raw
        if shape is not None and arr.shape != tuple(shape):
            raise ValueError(
                f"params has shape {raw.shape}; it must be {tuple(shape)}, one value "
                "per constant (or use set_constants(name=value))"
            )
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            stored = arr.astype(self.dtype)
            bad = ~np.isfinite(stored) | ((arr != 0) & (stored == 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _check_fits(self._param_label(i), float(arr[i]), self.dtype)
        return stored

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(message, UserWarning, stacklevel=4)

    def _input(self, a: Any, name: str) -> Any:
        xp = self.xp
        if type(a) is xp.ndarray and a.dtype == self.dtype and a.flags.c_contiguous:
            return a
        if xp is not np and isinstance(a, np.ndarray):
            raise TypeError(
                f"{name} is a NumPy array but this kernel runs on the GPU "
                f"(backend 'cuda', device {self.device}); pass cupy.asarray({name})"
            )
        if xp is np and type(a).__module__.startswith("cupy"):
            raise TypeError(
                f"{name} is a CuPy array but this kernel runs on the CPU "
                f"(backend {self.backend!r}); pass {name}.get() or compile with "
                "backend='cuda'"
            )
        arr = _real_array(xp, a, name)
        if arr.dtype != self.dtype or not arr.flags.c_contiguous:
            _check_copy_fits(arr, name, self.dtype)
        if arr.dtype != self.dtype:
            if arr.dtype.kind == "f":
                # only float32/float64 kernels exist: advise compiling for the
                # input's dtype only when it is one of them, in native byte order
                if arr.dtype in (np.float32, np.float64) and arr.dtype.isnative:
                    fix = f"compile with dtype='{arr.dtype}' to avoid the copy"
                elif arr.dtype.isnative:
                    fix = "kernels exist for float32 and float64 only"
                else:
                    fix = (
                        "it is in non-native byte order; pass "
                        f"{name}.astype('{self.dtype}') to avoid the copy"
                    )
                shown = arr.dtype if arr.dtype.isnative else arr.dtype.str
                self._warn_once(
                    "dtype",
                    f"{name} has dtype {shown}; converting to the kernel's "
                    f"{self.dtype} ({fix})",
                )
            elif arr.dtype.kind in "iu" and arr.size:
                _warn_if_integers_round(self, arr, name)
            arr = _converted(arr, self.dtype, name)
        if not arr.flags.c_contiguous:
            self._warn_once(
                "layout",
                f"{name} is not C-contiguous; copying it (pass a contiguous array to "
                "avoid the copy)",
            )
            arr = xp.ascontiguousarray(arr)
        return arr

    def _pair_outputs(self, out: Any, x: Any) -> tuple[Any, Any]:
        """Outputs of ``forward_with_derivative``: either may be ``x`` itself (the
        backend reads each element before writing it), but not each other."""
        y_out, dy_out = _pair(out)
        y = self._output(y_out, x.shape, "out[0]", (x,))
        dy = self._output(dy_out, x.shape, "out[1]", (x,))
        if y_out is not None and dy_out is not None and self._may_overlap(y, dy):
            raise ValueError(
                "out[0] and out[1] overlap; f(x) and f'(x) need two separate arrays "
                "(either one may be x itself)"
            )
        return y, dy

    def _forward_and_backward_outputs(
        self, out: Any, x: Any, grad: Any
    ) -> tuple[Any, Any]:
        """Outputs of ``forward_and_backward``: either may be ``x`` or ``grad``
        itself, but not each other."""
        y_out, dx_out = _pair(out, "(y_out, dx_out) of arrays for f(x) and grad*f'(x)")
        y = self._output(y_out, x.shape, "out[0]", (x, grad))
        dx = self._output(dx_out, x.shape, "out[1]", (x, grad))
        if y_out is not None and dx_out is not None and self._may_overlap(y, dx):
            raise ValueError(
                "out[0] and out[1] overlap; f(x) and grad*f'(x) need two separate "
                "arrays (either one may be x or grad itself)"
            )
        return y, dx

    def _may_overlap(self, a: Any, b: Any) -> bool:
        """Do two output arrays share memory? Two distinct NumPy arrays that each
        allocated their own memory cannot (the quick path of :meth:`_output`; the
        search cost 0.4 us of a 1e5-element relu fwd+bwd's ~25)."""
        if self.xp is np and a is not b and a.flags.owndata and b.flags.owndata:
            return False
        return _overlaps(a, b)

    def _output(self, out: Any, shape: tuple, name: str, inputs: tuple) -> Any:
        xp = self.xp
        if out is None:
            return xp.empty(shape, dtype=self.dtype)
        if not isinstance(out, xp.ndarray):
            raise TypeError(
                f"{name} must be a {xp.__name__}.ndarray, got {type(out).__name__}"
            )
        if out.dtype != self.dtype:
            raise TypeError(f"{name} has dtype {out.dtype}; it must be {self.dtype}")
        if out.shape != shape and tuple(out.shape) != tuple(shape):
            raise ValueError(f"{name} has shape {out.shape}; it must be {tuple(shape)}")
        flags = out.flags
        # (older CuPy flags have no ``writeable``)
        if not flags.c_contiguous or not getattr(flags, "writeable", True):
            raise ValueError(f"{name} must be C-contiguous and writeable")
        # NumPy arrays that each allocated their own memory cannot overlap (CuPy's
        # owndata is only "base is None", which an alias on a MemoryPointer also has)
        owner = xp is np and flags.owndata
        for a in inputs:
            if a is None or a is out or (owner and a.flags.owndata):
                continue
            if _overlaps(a, out) and not _same_view(a, out):
                raise ValueError(
                    f"{name} partially overlaps an input; use a separate array or the "
                    "input itself"
                )
        return out


#: Copies below this size are not checked against the machine's memory.
_CHECKED_COPY_BYTES = 1 << 28


def _from_pickle(
    kind: str, source: Any, backend: str, device: Any, dtype: str, params: Any
) -> _Checked:
    """The kernel :meth:`_Checked.__reduce__` describes, on the backend it had
    (``BackendUnavailable`` where that backend is missing, e.g. CUDA on a machine
    without a GPU)."""
    from . import select

    compile_kernel = {
        "activation": select.compile_activation,
        "loss": select.compile_loss,
        "layer": select.compile_layer,
    }[kind]
    kernel = compile_kernel(
        source,
        backend=backend,
        device=0 if device is None else device,
        dtype=dtype,
        strict=True,
    )
    kernel.params = params
    return kernel


def _check_copy_fits(arr: Any, name: str, dtype: np.dtype) -> None:
    """MemoryError naming ``name`` before copying a huge view: a broadcast or strided
    view of billions of elements occupies almost nothing, but the contiguous copy a
    kernel needs (and its output of the same size) does; past physical memory the
    system kills the process instead of NumPy raising."""
    need = int(arr.size) * dtype.itemsize * 2  # the copy and the output
    if need < _CHECKED_COPY_BYTES:
        return
    from symnb.memory import check_fits

    check_fits(
        need,
        f"{name} of shape {tuple(arr.shape)} (a {arr.dtype} view, not contiguous "
        f"{dtype}): its contiguous {dtype} copy and the output",
        f"Pass a smaller array or process {name} in chunks.",
    )


def _converted(arr: Any, dtype: np.dtype, name: str) -> Any:
    """``arr.astype(dtype)``; finite values beyond ``dtype``'s range (1e300 into a
    float32 kernel) become +-inf, with one warning in symnb's words instead of
    NumPy's bare "overflow encountered in cast" (checked only when NumPy reports
    the overflow, so the usual conversion costs nothing more)."""
    if not isinstance(arr, np.ndarray):
        return arr.astype(dtype)
    with np.errstate(over="raise"):
        try:
            return arr.astype(dtype)
        except FloatingPointError:
            pass
    with np.errstate(over="ignore"):
        converted = arr.astype(dtype)
    lost = np.flatnonzero(np.isinf(converted).ravel() & np.isfinite(arr).ravel())
    if lost.size:
        at = int(lost[0])
        where = tuple(int(i) for i in np.unravel_index(at, arr.shape))
        where = where if arr.ndim > 1 else at
        warnings.warn(
            f"{name} holds {lost.size} value(s) beyond the kernel's {dtype} range "
            f"(largest {float(np.finfo(dtype).max):.4g}), e.g. "
            f"{float(arr.ravel()[at])!r} at index {where}: they become +-inf; scale "
            "the input or compile with dtype='float64'",
            RuntimeWarning,
            stacklevel=4,
        )
    return converted


def _warn_if_integers_round(kernel: Any, arr: Any, name: str) -> None:
    """Warn once when integers of ``arr`` do not fit the kernel's float exactly
    (float32 holds integers up to 2**24, float64 up to 2**53)."""
    bits = np.finfo(kernel.dtype).nmant + 1
    if arr.dtype.itemsize * 8 <= bits:
        return
    limit = 2**bits
    if int(arr.max()) > limit or int(arr.min()) < -limit:
        fix = (
            "compile with dtype='float64'"
            if kernel.dtype == np.float32
            else "scale them first"
        )
        kernel._warn_once(
            "integers",
            f"{name} holds integers beyond 2**{bits} (dtype {arr.dtype}); "
            f"{kernel.dtype} rounds them ({fix})",
        )


def _check_grad_shape(grad: Any, x: Any) -> None:
    """grad must have x's shape (the kernels read grad at x's positions)."""
    if grad.shape != x.shape:
        raise ValueError(f"grad has shape {grad.shape}; it must match x's {x.shape}")


def _real_array(xp: Any, a: Any, name: str, numbers_only: bool = False) -> Any:
    """``a`` as an array of ``xp``, refusing what is not real numbers (and, with
    ``numbers_only``, booleans: a constant set to ``[True]`` became 1.0)."""
    if (
        isinstance(a, np.ma.MaskedArray)
        and np.ma.getmask(a) is not np.ma.nomask
        and np.ma.getmaskarray(a).any()
    ):
        # asarray drops the mask: the masked entries' hidden data would be computed
        # and returned as ordinary numbers
        raise TypeError(
            f"{name} is a masked array with masked entries; kernels compute every "
            f"entry: pass {name}.filled(value) or {name}.compressed()"
        )
    try:
        arr = xp.asarray(a)
    except Exception as exc:  # noqa: BLE001
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if numbers_only:
        check_no_booleans(a, arr, name, "constants")
    if arr.dtype.kind == "O" and isinstance(arr, np.ndarray):
        _refuse_huge_integers(arr, name)
    if arr.dtype.kind not in "fiub":
        if arr.dtype.kind == "c":
            fix = "pass the real part (.real) or the magnitude (abs)"
        elif arr.dtype.kind == "O" and isinstance(arr, np.ndarray):
            fix = _object_fix(a, arr, name)
        else:
            fix = "convert it to numbers first (e.g. .astype(float))"
        kinds = "int or float" if numbers_only else "bool, int or float"
        raise TypeError(
            f"{name} has dtype {arr.dtype}; it must hold real numbers ({kinds}): {fix}"
        )
    return arr


def _object_fix(a: Any, arr: np.ndarray, name: str) -> str:
    """What to do about input NumPy could only hold as Python objects: an iterator
    (a generator became one object, refused as "dtype object ... .astype(float)",
    which an iterator does not have), a missing value, or an entry of another type."""
    if isinstance(a, Iterator):
        return (
            f"it is a {type(a).__name__}, which NumPy keeps as one object; pass "
            f"list({name}) or np.fromiter({name}, dtype=float)"
        )
    for at, v in enumerate(arr.ravel()):
        real = not isinstance(v, (complex, np.complexfloating))
        if real and isinstance(v, (numbers.Number, np.number)):
            continue  # Fraction, Decimal: float() converts them
        where = tuple(int(i) for i in np.unravel_index(at, arr.shape))
        where = where if arr.ndim > 1 else at
        if v is None:
            return (
                f"it holds None at index {where} (a missing value): replace it by "
                "a number, or np.nan to mark it"
            )
        return (
            f"it holds a {type(v).__name__} at index {where} ({v!r:.40}); pass "
            "numbers only"
        )
    return f"convert it to floats first, e.g. np.asarray({name}, dtype=float)"


def _refuse_huge_integers(arr: np.ndarray, name: str) -> None:
    """A ``TypeError`` naming the problem when an object array holds a Python int
    that no integer dtype holds (``[10**400]`` was refused as "dtype object", not
    as a number too large): beyond the float64 range it cannot be computed at all;
    within it, converting to floats first works."""
    largest = np.finfo(np.float64).max
    for at, v in enumerate(arr.ravel()):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            continue
        if -(2**63) <= v < 2**64:
            continue
        where = tuple(int(i) for i in np.unravel_index(at, arr.shape))
        where = where if arr.ndim > 1 else at
        digits = len(str(abs(int(v))))
        shown = f"{v}" if digits <= 30 else f"an integer of {digits} digits"
        if abs(int(v)) > int(largest):
            raise TypeError(
                f"{name} holds {shown} at index {where}, beyond the float range "
                f"(largest float64 {largest:.4g}): no kernel dtype can hold it; "
                "scale the values first (e.g. divide them as Python ints)"
            )
        raise TypeError(
            f"{name} holds {shown} at index {where}, too large for an integer "
            "dtype (NumPy kept it as Python objects): convert to floats first, "
            f"e.g. np.asarray({name}, dtype=float)"
        )


def _overlaps(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.shares_memory(a, b))
    try:
        import cupy

        return bool(cupy.shares_memory(a, b))
    except Exception:  # noqa: BLE001
        return False


def _same_view(a: Any, b: Any) -> bool:
    ia = (
        a.__array_interface__
        if isinstance(a, np.ndarray)
        else a.__cuda_array_interface__
    )
    ib = (
        b.__array_interface__
        if isinstance(b, np.ndarray)
        else b.__cuda_array_interface__
    )
    return (
        ia["data"][0] == ib["data"][0] and a.shape == b.shape and a.strides == b.strides
    )


def check_constants(
    owner: str, names: tuple[str, ...], values: dict[str, Any], dtype: np.dtype
) -> None:
    """Refuse (``FormulaError``) a name ``owner`` lacks, a value that is not a real
    number, or one that is not finite or does not fit ``dtype``."""
    for k, v in values.items():
        if k not in names:
            raise FormulaError.unknown_constant(owner, k, names)
        if real_value(v) is None:  # Fraction and Decimal are numbers too
            one = getattr(v, "shape", None) == () and hasattr(v, "item")
            raise FormulaError(
                f"constant {k!r} must be a number, got {v!r:.60} ({type(v).__name__})",
                # a tensor that needs grad or lives on a GPU: its number is .item()
                suggestion=f"pass its number, {k}=value.item()"
                if one
                else f"pass a finite real number, e.g. {k}=1.0",
            )
        _check_fits(f"constant {k!r}", v, dtype)


def _check_fits(what: str, value: Any, dtype: np.dtype) -> None:
    """Refuse a value that is not finite or that ``dtype`` cannot hold.

    A float32 kernel would otherwise turn ``1e300`` into inf and ``1e-50`` into 0
    without a word.
    """
    try:
        number = float(value)
    except OverflowError:  # an int beyond even float64
        number = None
    except (TypeError, ValueError):  # Decimal('sNaN')
        number = math.nan
    if number is not None and not math.isfinite(number):
        raise FormulaError(
            f"{what} must be finite, got {value!r}",
            suggestion="pass a finite real number",
        )
    if number is not None and np.ndim(value) == 0:
        check_no_underflow(what, value, number)
    with np.errstate(over="ignore", under="ignore"):
        stored = math.inf if number is None else float(dtype.type(number))
    if not math.isfinite(stored) or (number != 0.0 and stored == 0.0):
        info = np.finfo(dtype)
        shown = repr(value) if len(repr(value)) <= 30 else repr(value)[:27] + "..."
        raise FormulaError(
            f"{what} = {shown} does not fit the kernel's {dtype} (finite values "
            f"from {info.smallest_subnormal:.3g} to {info.max:.4g} in magnitude)",
            suggestion="use a value in that range, or compile with dtype='float64'",
        )


def _pair(
    out: Any, what: str = "(y_out, dy_out) of arrays for f(x) and f'(x)"
) -> tuple[Any, Any]:
    """``out`` of ``forward_with_derivative`` (or of ``forward_and_backward``, with
    its ``what``): ``None`` or a pair of arrays."""
    if out is None:
        return None, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(
            f"out must be a pair {what}, or "
            f"None; got {type(out).__name__}"
            + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else "")
        )
    return out[0], out[1]


class _SingleFormula(_Checked):
    """A kernel of one formula: owns its constants as a small ``params`` array."""

    _owner_kind = "activation"

    def _own_constants(self, formula: Any) -> None:
        self._formula = formula
        self._names = tuple(formula.internal.param_names)
        self.params = np.array(formula.internal.param_values, dtype=np.float64)

    def _param_label(self, index: int) -> str:
        return f"constant {self._names[index]!r}"

    def _formulas_with_slots(self) -> list[tuple[Any, list[int], str]]:
        return [(self._formula, list(range(len(self._names))), "")]

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__.get("_names", ()):  # (set with _formula)
            refuse_constant_attribute(
                self,
                name,
                self._names,
                f"{self._owner_kind} {self._formula.name!r}",
                f"set it with kernel.set_constants({name}=value)",
            )
        super().__setattr__(name, value)

    @property
    def constants(self) -> dict[str, float]:
        """Current constant values."""
        vals = self.params.tolist() if self.xp is np else self.params.get().tolist()
        return dict(zip(self._names, vals))

    def set_constants(self, **values: float) -> None:
        """Change constants in place (no re-parse; no recompile unless the
        program's forms do not hold for them: :meth:`_keep_assumptions`)."""
        owner = f"{self._owner_kind} {self._formula.name!r}"
        check_constants(owner, self._names, values, self.dtype)
        check_domain = getattr(self._formula, "check_domain", None)
        if check_domain is not None:
            check_domain({**self.constants, **values})
        current = self._given_constants()
        self.params = np.array(
            [float(values.get(n, v)) for n, v in zip(self._names, current)],
            dtype=np.float64,
        )


class Kernel(_SingleFormula):
    """Compiled forward and derivative of one activation, elementwise on any shape.

    Constants are kernel arguments: ``set_constants`` changes them without recompiling.
    """

    def __init__(
        self,
        activation: Any,
        program: Any,
        dtype: str,
        backend: str,
        device: int | None,
    ) -> None:
        self._setup(program, dtype, backend, device)
        self.activation = activation
        self._own_constants(activation)

    def _compiled_from(self) -> tuple[str, Any]:
        return "activation", self.activation

    def __repr__(self) -> str:
        return (
            f"<symnb.Kernel {self.activation.name!r} backend={self.backend!r} "
            f"device={self.device} dtype={self.dtype} constants={self.constants}>"
        )

    def forward(self, x: Any, out: Any = None) -> Any:
        """f(x), elementwise."""
        x = self._input(x, "x")
        y = self._output(out, x.shape, "out", (x,))
        if x.size:
            params = self._call_params()  # may change the program (assumptions)
            self._program.forward(x, y, params)
        return y

    def backward(self, x: Any, grad: Any, out: Any = None) -> Any:
        """grad * f'(x): the gradient w.r.t. x given the gradient w.r.t. f(x)."""
        x = self._input(x, "x")
        grad = self._input(grad, "grad")
        _check_grad_shape(grad, x)
        dx = self._output(out, x.shape, "out", (x, grad))
        if x.size:
            params = self._call_params()
            self._program.backward(x, grad, dx, params)
        return dx

    def forward_with_derivative(self, x: Any, out: Any = None) -> tuple[Any, Any]:
        """(f(x), f'(x)) in one pass; ``out`` is a pair ``(y_out, dy_out)`` or None.

        Either output may be ``x`` itself (in place); they may not overlap each other.
        """
        x = self._input(x, "x")
        y, dy = self._pair_outputs(out, x)
        if x.size:
            params = self._call_params()
            self._program.forward_derivative(x, y, dy, params)
        return y, dy

    def forward_and_backward(
        self, x: Any, grad: Any, out: Any = None
    ) -> tuple[Any, Any]:
        """(f(x), grad * f'(x)) in one pass: the value and the gradient w.r.t. x for
        a caller that has both x and the upstream gradient (a vjp, a recomputing
        backward); ``out`` is a pair ``(y_out, dx_out)`` or None.

        Each output may be ``x`` or ``grad`` itself (in place); they may not overlap
        each other. One pass reads x and grad once and shares the work of f and f'
        (``forward`` then ``backward`` reads x twice and computes the shared terms
        twice)."""
        x = self._input(x, "x")
        grad = self._input(grad, "grad")
        _check_grad_shape(grad, x)
        y, dx = self._forward_and_backward_outputs(out, x, grad)
        if x.size:
            params = self._call_params()
            self._program.forward_backward(x, grad, y, dx, params)
        return y, dx

    def constant_gradient(self, x: Any, grad: Any) -> dict[str, float]:
        """sum(grad * df/dc) for each constant c: the gradient a learnable constant gets."""
        x = self._input(x, "x")
        grad = self._input(grad, "grad")
        _check_grad_shape(grad, x)
        if not self._names:
            return {}
        if x.size == 0:
            return {n: 0.0 for n in self._names}
        params = self._call_params()
        out = self._program.constant_gradient(x, grad, params)
        out = out if isinstance(out, np.ndarray) else out.get()
        return dict(zip(self._names, (float(v) for v in out)))

    __call__ = forward


class LayerKernel(_Checked):
    """A heterogeneous layer: column j of a (batch, n) array uses ``activations[j]``.

    One compiled kernel for the whole layer; each neuron owns its constants in ``params``
    (``params[offsets[j] : offsets[j] + k_j]``).
    """

    def __init__(
        self,
        activations: list,
        forms: list,
        ids: np.ndarray,
        program: Any,
        dtype: str,
        backend: str,
        device: int | None,
        plan: Any = None,
    ) -> None:
        self._setup(program, dtype, backend, device)
        if plan is not None:  # the program's forms per neuron key (compile_layer)
            self.__dict__["_plan"] = plan
            self.__dict__["_run_ids"] = self.xp.asarray(plan.run_ids)
        self.activations = list(activations)
        self.n = len(activations)
        self.forms = tuple(forms)  # distinct formulas; column j uses forms[ids[j]]
        counts = [len(a.internal.param_names) for a in activations]
        offsets = np.zeros(self.n, dtype=np.int32)
        if self.n > 1:
            offsets[1:] = np.cumsum(counts[:-1])
        values = [v for a in activations for v in a.internal.param_values]
        self._ids_host = np.ascontiguousarray(ids, dtype=np.int32)
        self._offsets_host = offsets
        self.ids = self.xp.asarray(self._ids_host)
        self.offsets = self.xp.asarray(offsets)
        self.params = np.array(values, dtype=np.float64)

    def _compiled_from(self) -> tuple[str, Any]:
        return "layer", self.activations

    def _layer_args(self) -> tuple[Any, Any, Any]:
        """(ids, offsets, params) for a call into the program: with the forms'
        constant parts (``constant_parts``), each neuron's constants followed by
        its parts, computed in float64 from the constants as given."""
        params = self._call_params()  # may change the program (assumptions)
        parts = getattr(self._program, "layer_parts", None)
        ids = self.__dict__.get("_run_ids", self.ids)
        if not parts:
            return ids, self.offsets, params
        key = params.tobytes() if self.xp is np else None
        cached = self.__dict__.get("_parts_cache")
        if cached is None or cached[0] != key:
            cached = (key, *self._layer_with_parts(parts))
            self.__dict__["_parts_cache"] = cached
        return ids, cached[1], cached[2]

    def _lowered_forms(self) -> tuple[tuple, tuple]:
        """(forms, ids) as the program running now was lowered from (one form per
        neuron key, :mod:`symnb.backends.layer_assumptions`)."""
        plan = self.__dict__.get("_plan")
        if plan is None:
            return tuple(self.forms), tuple(int(v) for v in self._ids_host)
        from symnb.backends import layer_assumptions as la

        return la.run_forms(self.forms, plan), tuple(int(v) for v in plan.run_ids)

    def _run_ids_host(self) -> np.ndarray:
        """Neuron j's form in the program (``ids`` unless its constants moved it:
        :mod:`symnb.backends.layer_assumptions`)."""
        plan = self.__dict__.get("_plan")
        return self._ids_host if plan is None else plan.run_ids

    def _keep_assumptions(self) -> None:
        """Run a program whose forms hold for every neuron's constants
        (:mod:`symnb.backends.layer_assumptions`): where a neuron's constants
        left the signs (or float32 cancellations) of the form it runs, the
        program gets one form per such key, built through the caches; a change
        that keeps them costs a few microseconds."""
        if not self._params.size:
            return
        from symnb.backends import layer_assumptions as la

        old = self.__dict__.get("_plan")
        # (the setter checks, then the next call sees the bytes changed: once)
        held_bytes = self._host_params().tobytes()
        seen = (self._program, held_bytes, self.__dict__.get("_given_key"))
        if seen == self.__dict__.get("_assumed_for"):
            return
        if old is not None and not any(old.parts):  # signs only: of the values held
            held = self._host_params()
            if la.holds(old, self.forms, self._ids_host, self._offsets_host, held):
                self.__dict__["_assumed_for"] = seen
                return
        given = np.asarray(self._given_constants(), dtype=np.float64)
        at = (self.forms, self._ids_host, self._offsets_host, given, self.dtype.name)
        if old is not None and any(old.parts) and la.holds(old, *at[:4]):
            self.__dict__["_assumed_for"] = seen
            return
        new = la.plan(*at, old)
        compiled = tuple((i, f.param_values) for i, f in enumerate(self.forms))
        if (old is not None and new.keys == old.keys) or (
            old is None
            and tuple((k[0], v) for k, v in zip(new.keys, new.values)) == compiled
        ):
            program = self._program  # the neurons moved between its forms
        else:
            from symnb.backends import select

            program = select.rebuild_forms(
                la.run_forms(self.forms, new),
                "layer",
                self.backend,
                self.dtype.name,
                self.device,
            )
        self.__dict__["_plan"] = new
        self.__dict__["_run_ids"] = self.xp.asarray(new.run_ids)
        self._program = program
        for cached in ("_parts_cache", "_own_positions_cache"):
            self.__dict__.pop(cached, None)

    def _layer_with_parts(self, parts: tuple) -> tuple[Any, Any]:
        """(offsets, params) of the program's layout: neuron j's constants at
        ``offsets[j]``, then the parts of its form (rounded to the dtype)."""
        ids = self._run_ids_host()
        given = np.array(self._given_constants(), dtype=np.float64)
        counts = np.array([len(a.internal.param_names) for a in self.activations])
        extra = np.array([len(p.exprs) if p else 0 for p in parts])[ids]
        offsets = np.zeros(self.n, dtype=np.int64)
        if self.n > 1:
            offsets[1:] = np.cumsum((counts + extra)[:-1])
        full = np.zeros(int((counts + extra).sum()), dtype=self.dtype)
        own = self._own_positions()
        full[own] = np.asarray(self._host_params())
        for i, p in enumerate(parts):
            cols = np.flatnonzero(ids == i)
            if not p or not cols.size:
                continue
            start = self._offsets_host[cols]
            values = [given[start + k] for k in range(p.n_constants)]
            with np.errstate(all="ignore"):
                out = p.values_of_columns(values)
            for j, v in enumerate(out):
                full[offsets[cols] + p.n_constants + j] = v.astype(self.dtype)
        xp = self.xp
        return xp.asarray(offsets.astype(np.int32)), xp.asarray(full)

    def _own_positions(self) -> np.ndarray:
        """Where each entry of ``params`` sits in the program's layout (with parts)."""
        pos = self.__dict__.get("_own_positions_cache")
        if pos is None:
            parts = self._program.layer_parts
            counts = [len(a.internal.param_names) for a in self.activations]
            extra = [
                len(parts[i].exprs) if parts[i] else 0 for i in self._run_ids_host()
            ]
            pos, at = [], 0
            for k, m in zip(counts, extra):
                pos += range(at, at + k)
                at += k + m
            pos = np.array(pos, dtype=np.int64)
            self.__dict__["_own_positions_cache"] = pos
        return pos

    def _own_slots(self, out: np.ndarray) -> np.ndarray:
        """The constants' gradient in ``params``' layout (without the parts)."""
        if not getattr(self._program, "layer_parts", None):
            return out
        return np.asarray(out)[self._own_positions()]

    def __repr__(self) -> str:
        names = sorted({a.name for a in self.activations})
        return (
            f"<symnb.LayerKernel n={self.n} activations={names} backend={self.backend!r} "
            f"device={self.device} dtype={self.dtype}>"
        )

    def constant_names(self, neuron: int) -> tuple[str, ...]:
        """Names of neuron ``neuron``'s constants, in its ``params`` slots' order."""
        return tuple(self.activations[self._neuron_index(neuron)].internal.param_names)

    def set_constants(
        self, neuron: int | list[int] | None = None, **values: float
    ) -> None:
        """Set constants of one neuron, a list of neurons, or (None) every neuron having them."""
        if neuron is None:
            targets = [
                j for j in range(self.n) if set(values) <= set(self.constant_names(j))
            ]
            if not targets:
                raise FormulaError(
                    f"no neuron of this layer has all of the constants {sorted(values)}"
                )
        else:
            if isinstance(neuron, np.ndarray) and neuron.ndim == 0:
                neuron = neuron.item()  # np.array(1) is the index 1, as np.int64(1)
            many = isinstance(neuron, (list, tuple, range, np.ndarray))
            targets = [self._neuron_index(j) for j in (neuron if many else [neuron])]
        host = np.array(self._given_constants())  # (float64, as given)
        for j in targets:
            names = self.constant_names(j)
            check_constants(
                f"neuron {j} ({self.activations[j].name!r})", names, values, self.dtype
            )
            for k, nm in enumerate(names):
                if nm in values:
                    host[self._offsets_host[j] + k] = float(values[nm])
        self.params = host

    def _formulas_with_slots(self) -> list[tuple[Any, list[int], str]]:
        start = self._offsets_host
        return [
            (
                a,
                [int(start[j]) + k for k in range(len(a.internal.param_names))],
                f"neuron {j}",
            )
            for j, a in enumerate(self.activations)
        ]

    def _neuron_index(self, j: Any) -> int:
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
            raise TypeError(
                f"neuron must be an int index in range(0, {self.n}) (or a list of "
                f"them, or None for every neuron), got {j!r}"
            )
        if not 0 <= int(j) < self.n:
            raise IndexError(
                f"neuron {j} is out of range: neuron must be an int index in "
                f"range(0, {self.n}) for this layer of {self.n}"
            )
        return int(j)

    def _param_label(self, index: int) -> str:
        j = int(np.searchsorted(self._offsets_host, index, side="right")) - 1
        while j > 0 and not self.constant_names(j):
            j -= 1
        names = self.constant_names(j)
        k = index - int(self._offsets_host[j])
        name = names[k] if 0 <= k < len(names) else "?"
        return f"params[{index}] (constant {name!r} of neuron {j})"

    def _input2d(self, a: Any, name: str) -> Any:
        a = self._input(a, name)
        if a.ndim != 2 or a.shape[1] != self.n:
            raise ValueError(
                f"{name} has shape {a.shape}; a layer of {self.n} neurons needs "
                f"(batch, {self.n})"
            )
        return a

    def _along(self, a: Any, name: str, axis: Any) -> tuple[Any, int]:
        """``a`` checked for a feature axis ``axis`` of length ``n``: (array, axis >= 0)."""
        a = self._input(a, name)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(
                f"axis must be an int (the axis of {name} that holds the {self.n} "
                f"features), got {axis!r}"
            )
        if a.ndim == 0 or not -a.ndim <= axis < a.ndim:
            raise ValueError(
                f"{name} has shape {a.shape}; it has no axis {axis} (the axis that "
                f"holds the layer's {self.n} features)"
            )
        ax = int(axis) % a.ndim
        if a.shape[ax] != self.n:
            raise ValueError(
                f"{name} has shape {a.shape}: axis {axis} has {a.shape[ax]} entries; "
                f"a layer of {self.n} neurons needs {self.n} there"
            )
        return a, ax

    def _layout(self, shape: tuple, ax: int) -> tuple[int, int]:
        """(planes, inner): the entries before and including the feature axis, and
        after it."""
        inner = int(np.prod(shape[ax + 1 :], dtype=np.int64))
        return int(np.prod(shape[: ax + 1], dtype=np.int64)), inner

    def _rows(self, a: Any, ax: int) -> Any:
        """(…, n) rows with the feature axis last: a view when it is last already."""
        if ax == a.ndim - 1:
            return a.reshape(-1, self.n)
        xp = self.xp
        return xp.ascontiguousarray(xp.moveaxis(a, ax, -1)).reshape(-1, self.n)

    def _unrows(self, rows: Any, like: Any, ax: int, out: Any) -> None:
        """Write rows (feature last) back into ``out`` of ``like``'s layout (nothing
        to do when the feature axis is last: the rows are a view of ``out``)."""
        if ax == like.ndim - 1:
            return
        moved = self.xp.moveaxis(like, ax, -1).shape
        out[...] = self.xp.moveaxis(rows.reshape(moved), -1, ax)

    def _forward_along(self, x: Any, out: Any, axis: Any) -> Any:
        x, ax = self._along(x, "x", axis)
        y = self._output(out, x.shape, "out", (x,))
        if not x.size:
            return y
        planes, inner = self._layout(x.shape, ax)
        args = self._layer_args()
        if inner > 1 and self._program.has_planes:
            self._program.layer_planes_forward(x, y, planes, inner, *args)
            return y
        rows = self._rows(x, ax)
        y_rows = y.reshape(-1, self.n) if ax == x.ndim - 1 else self.xp.empty_like(rows)
        self._program.layer_forward(rows, y_rows, *args)
        self._unrows(y_rows, x, ax, y)
        return y

    def _backward_along(self, x: Any, grad: Any, out: Any, axis: Any) -> Any:
        x, ax = self._along(x, "x", axis)
        grad, _ = self._along(grad, "grad", axis)
        _check_grad_shape(grad, x)
        dx = self._output(out, x.shape, "out", (x, grad))
        if not x.size:
            return dx
        planes, inner = self._layout(x.shape, ax)
        args = self._layer_args()
        if inner > 1 and self._program.has_planes:
            self._program.layer_planes_backward(x, grad, dx, planes, inner, *args)
            return dx
        rows, g_rows = self._rows(x, ax), self._rows(grad, ax)
        last = ax == x.ndim - 1
        d_rows = dx.reshape(-1, self.n) if last else self.xp.empty_like(rows)
        self._program.layer_backward(rows, g_rows, d_rows, *args)
        self._unrows(d_rows, x, ax, dx)
        return dx

    def _constant_gradient_along(self, x: Any, grad: Any, axis: Any) -> Any:
        x, ax = self._along(x, "x", axis)
        grad, _ = self._along(grad, "grad", axis)
        _check_grad_shape(grad, x)
        if self.params.size == 0 or x.size == 0:
            return np.zeros(self.params.size, dtype=np.float64)
        planes, inner = self._layout(x.shape, ax)
        args = self._layer_args()
        out = None
        if inner > 1 and self._program.has_planes:
            out = self._program.layer_planes_constant_gradient(
                x, grad, planes, inner, *args
            )
        if out is None:
            out = self._program.layer_constant_gradient(
                self._rows(x, ax), self._rows(grad, ax), *args
            )
        return self._own_slots(out if isinstance(out, np.ndarray) else out.get())

    def forward(self, x: Any, out: Any = None, *, axis: Any = None) -> Any:
        """Column-wise activations of a (batch, n) array; with ``axis``, of an array
        of any shape whose axis ``axis`` holds the n features (``axis=1``:
        per-channel activations of an NCHW batch), computed without a transposed
        copy by C++ layers."""
        if axis is not None:
            return self._forward_along(x, out, axis)
        x = self._input2d(x, "x")
        y = self._output(out, x.shape, "out", (x,))
        if x.size:
            args = self._layer_args()
            self._program.layer_forward(x, y, *args)
        return y

    def backward(self, x: Any, grad: Any, out: Any = None, *, axis: Any = None) -> Any:
        """grad * f_j'(x[:, j]) column-wise (``axis``: as in :meth:`forward`)."""
        if axis is not None:
            return self._backward_along(x, grad, out, axis)
        x = self._input2d(x, "x")
        grad = self._input2d(grad, "grad")
        _check_grad_shape(grad, x)
        dx = self._output(out, x.shape, "out", (x, grad))
        if x.size:
            args = self._layer_args()
            self._program.layer_backward(x, grad, dx, *args)
        return dx

    def forward_with_derivative(
        self, x: Any, out: Any = None, *, axis: Any = None
    ) -> tuple[Any, Any]:
        """(f(x), f'(x)) column-wise, in one pass (``axis``: as in :meth:`forward`;
        a feature axis that is not the last one is computed on a transposed copy)."""
        if axis is None:
            x = self._input2d(x, "x")
            ax = 1
        else:
            x, ax = self._along(x, "x", axis)
        y, dy = self._pair_outputs(out, x)
        if x.size:
            rows = self._rows(x, ax)
            last = ax == x.ndim - 1
            y_rows = y.reshape(-1, self.n) if last else self.xp.empty_like(rows)
            d_rows = dy.reshape(-1, self.n) if last else self.xp.empty_like(rows)
            args = self._layer_args()
            self._program.layer_forward_derivative(rows, y_rows, d_rows, *args)
            self._unrows(y_rows, x, ax, y)
            self._unrows(d_rows, x, ax, dy)
        return y, dy

    def forward_and_backward(
        self, x: Any, grad: Any, out: Any = None, *, axis: Any = None
    ) -> tuple[Any, Any]:
        """(f(x), grad * f'(x)) column-wise; ``out`` is a pair ``(y_out, dx_out)`` or
        None, each may be ``x`` or ``grad`` itself, not each other (``axis``: as in
        :meth:`forward`).

        The layer's one pass computes f and f' together (``forward_with_derivative``)
        and a multiplication by ``grad`` follows; elementwise kernels do both in one
        pass (:meth:`Kernel.forward_and_backward`)."""
        if axis is not None:
            x, _ = self._along(x, "x", axis)
            grad, _ = self._along(grad, "grad", axis)
            _check_grad_shape(grad, x)
            y, dx = self._forward_and_backward_outputs(out, x, grad)
            if x.size:
                y_t, d_t = self.forward_with_derivative(x, axis=axis)
                self.xp.multiply(d_t, grad, out=d_t)
                dx[...] = d_t
                y[...] = y_t
            return y, dx
        x = self._input2d(x, "x")
        grad = self._input2d(grad, "grad")
        _check_grad_shape(grad, x)
        y, dx = self._forward_and_backward_outputs(out, x, grad)
        if x.size:
            xp = self.xp
            # an output that is grad is written last: grad is read by the product
            y_t = xp.empty_like(x) if _overlaps(y, grad) else y
            d_t = xp.empty_like(x) if _overlaps(dx, grad) else dx
            args = self._layer_args()
            self._program.layer_forward_derivative(x, y_t, d_t, *args)
            xp.multiply(d_t, grad, out=d_t)
            if d_t is not dx:
                dx[...] = d_t
            if y_t is not y:
                y[...] = y_t
        return y, dx

    def constant_gradient(self, x: Any, grad: Any, *, axis: Any = None) -> Any:
        """sum over the batch of grad * df_j/dc, in ``params``' layout (float64)
        (``axis``: as in :meth:`forward`; the sum runs over every other axis)."""
        if axis is not None:
            return self._constant_gradient_along(x, grad, axis)
        x = self._input2d(x, "x")
        grad = self._input2d(grad, "grad")
        _check_grad_shape(grad, x)
        if self.params.size == 0 or x.size == 0:
            return np.zeros(self.params.size, dtype=np.float64)
        args = self._layer_args()
        out = self._program.layer_constant_gradient(x, grad, *args)
        return self._own_slots(out if isinstance(out, np.ndarray) else out.get())

    __call__ = forward


class LossKernel(_SingleFormula):
    """Compiled value (mean over elements) and gradient of an elementwise loss."""

    _owner_kind = "loss"

    def __init__(
        self, loss: Any, program: Any, dtype: str, backend: str, device: int | None
    ) -> None:
        self._setup(program, dtype, backend, device)
        self.loss = loss
        self._own_constants(loss)
        self._probabilities = _is_library_bce(loss)

    def _compiled_from(self) -> tuple[str, Any]:
        return "loss", self.loss

    def __repr__(self) -> str:
        return f"<symnb.LossKernel {self.loss.name!r} backend={self.backend!r} dtype={self.dtype}>"

    def _pair(self, y_pred: Any, y_true: Any) -> tuple[Any, Any]:
        p = self._input(y_pred, "y_pred")
        t = self._input(y_true, "y_true")
        if p.shape != t.shape:
            raise ValueError(
                f"y_pred has shape {p.shape} and y_true {t.shape}; they must match "
                "(reshape y_true, e.g. y_true.reshape(y_pred.shape))"
            )
        if getattr(self, "_probabilities", False):
            check_probabilities(
                self.loss.name,
                p,
                t,
                "pass probabilities (a sigmoid of the logits), "
                "or use symnb.loss('bce_with_logits') on the logits",
            )
        return p, t

    def value(self, y_pred: Any, y_true: Any) -> float:
        """Mean of the elementwise loss (PyTorch's default reduction)."""
        p, t = self._pair(y_pred, y_true)
        if p.size == 0:
            warnings.warn("loss of empty arrays is NaN", RuntimeWarning, stacklevel=2)
            return float("nan")
        params = self._call_params()  # may change the program (assumptions)
        return self._program.loss_value(p, t, params) / p.size

    def gradient(self, y_pred: Any, y_true: Any, out: Any = None) -> Any:
        """Gradient of the mean loss w.r.t. y_pred (as autograd gives it)."""
        p, t = self._pair(y_pred, y_true)
        g = self._output(out, p.shape, "out", (p, t))
        if p.size:
            params = self._call_params()
            self._program.loss_gradient(p, t, g, params, 1.0 / p.size)
        return g

    __call__ = value


def _is_library_bce(loss: Any) -> bool:
    """Whether ``loss`` is the library's ``bce`` (by name or as the same formula)."""
    signature = getattr(getattr(loss, "internal", None), "signature", None)
    return signature is not None and signature() == _library_bce_signature()


@functools.cache
def _library_bce_signature() -> str:
    """The library ``bce``'s form signature, built once: building it per loss kernel
    (13.5 ms: parse, derivative, LaTeX) doubled the time of a small network's whole
    training run (two_moons 2-16-16-1, 40 epochs: 10 -> 21 ms of CPU)."""
    from symnb.formula.formula import loss as library_loss

    return library_loss("bce").internal.signature()
