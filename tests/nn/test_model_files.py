"""Model files (``MLP.save`` / ``symnb.nn.load``): every broken file is one
``ModelFileError`` naming the file, checked before anything large is allocated or
decompressed; saved files follow the umask."""

from __future__ import annotations

import copy
import io
import json
import os
import stat
import tracemalloc
import zipfile

import numpy as np
import pytest

import symnb
from symnb import nn
from symnb.errors import ModelFileError


def _model():
    act = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_b", beta=symnb.learnable(1.0, per="neuron")
    )
    mask = np.ones((2, 3))
    mask[1, 2] = 0
    return nn.MLP(
        [2, 3, 1],
        activation=[[act, "tanh", act]],
        loss="bce_with_logits",
        backend="numpy",
        masks={0: mask},
        seed=1,
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The members of one good model file: (meta dict, {name: array}), and its path."""
    path = tmp_path_factory.mktemp("model") / "good.npz"
    _model().save(path)
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    return meta, arrays, path


def _npy(array, **kwargs):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), **kwargs)
    return buf.getvalue()


def _write(path, meta, arrays, raw=None, compression=zipfile.ZIP_STORED):
    """A model file with ``meta`` (a dict, or a text written as is) and ``arrays``;
    ``raw`` maps member names to bytes written unchanged."""
    text = meta if isinstance(meta, str) else json.dumps(meta)
    members = {"meta.npy": _npy(np.array(text))}
    members.update({f"{k}.npy": _npy(v) for k, v in arrays.items()})
    members.update(raw or {})
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _npy_header_only(shape, dtype="<f8", data=b""):
    """An .npy member whose header claims ``shape`` but holds only ``data``."""
    buf = io.BytesIO()
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + data


def _set(path_in_meta, value):
    def change(meta, arrays):
        target = meta
        for key in path_in_meta[:-1]:
            target = target[key]
        target[path_in_meta[-1]] = value

    return change


def _delete_in(where, key):
    def change(meta, arrays):
        target = meta
        for k in where:
            target = target[k]
        del target[key]

    return change


def _params(value):
    def change(meta, arrays):
        arrays["parameters"] = value(arrays["parameters"])

    return change


def _huge_sizes(meta, arrays):
    meta["sizes"] = [2, 30000, 30000, 1]
    meta["layers"] = [[0] * 30000, [0] * 30000, None]


# (case id, change to the good meta/arrays, fragment of the message)
META_CASES = [
    ("meta is a list", lambda m, a: "[1, 2]", "JSON object"),
    ("meta not JSON", lambda m, a: '{"format": ', "not valid JSON"),
    ("meta deeply nested", lambda m, a: "[" * 100_000 + "]" * 100_000, "JSON"),
    ("other format", _set(["format"], "keras"), "not a model saved by symnb"),
    ("version text", _set(["version"], "1"), "'version' must be int"),
    ("version newer", _set(["version"], 99), "newer symnb"),
    ("sizes missing", _delete_in([], "sizes"), "'sizes' is missing"),
    ("sizes text", _set(["sizes"], "2,3,1"), "'sizes' must be list"),
    ("size zero", _set(["sizes"], [2, 0, 1]), "positive integers"),
    ("size bool", _set(["sizes"], [2, True, 1]), "positive integers"),
    ("size text", _set(["sizes"], [2, "3", 1]), "positive integers"),
    ("layers missing", _delete_in([], "layers"), "'layers' is missing"),
    ("layers short", _set(["layers"], [None]), "'layers' has 1 entries"),
    ("layer index -1", _set(["layers", 0, 1], -1), "not an activation index"),
    ("layer index too big", _set(["layers", 0, 1], 7), "not an activation index"),
    ("layer index text", _set(["layers", 0, 1], "1"), "not an activation index"),
    ("layer too narrow", _set(["layers", 0], [0, 1]), "one activation per neuron"),
    (
        "more formulas than neurons",
        lambda m, a: m["activations"].extend(m["activations"] * 3),
        "formulas for 4 neurons",
    ),
    ("activations dict", _set(["activations"], {}), "'activations' must be list"),
    ("activation not object", _set(["activations", 0], "tanh"), "JSON object"),
    ("activation text missing", _set(["activations", 0, "text"], None), "'text'"),
    ("activation text gone", _delete_in(["activations", 0], "text"), "'text' is"),
    ("activation text int", _set(["activations", 1, "text"], 3), "'text' must be"),
    (
        "unparsable text under a library name",
        _set(["activations", 1, "text"], "tanh(x"),
        "cannot be rebuilt",
    ),
    (
        "unknown function in text",
        _set(["activations", 1, "text"], "sigmod(x)"),
        "cannot be rebuilt",
    ),
    ("bad derivative", _set(["activations", 1, "derivative"], "2*"), "rebuilt"),
    ("derivative number", _set(["activations", 1, "derivative"], 2), "'derivative'"),
    ("empty derivative", _set(["activations", 1, "derivative"], " "), "empty"),
    ("bad surrogate", _set(["activations", 1, "surrogate"], "nope"), "rebuilt"),
    ("constant text", _set(["activations", 0, "constants", "beta"], "a"), "finite"),
    (
        "constant nan",
        _set(["activations", 0, "constants", "beta"], float("nan")),
        "finite",
    ),
    (
        "learnable per row",
        _set(["activations", 0, "learnable", "beta"], "row"),
        "'layer' or 'neuron'",
    ),
    ("learnable list", _set(["activations", 0, "learnable"], ["beta"]), "dict"),
    ("loss missing", _delete_in([], "loss"), "'loss' is missing"),
    ("loss type", _set(["loss", "type"], "hinge2"), "'type'"),
    ("loss text", _set(["loss", "library"], "no_such_loss"), "loss"),
    ("loss logits", _set(["loss", "logits"], "yes"), "'logits'"),
    ("dtype", _set(["dtype"], "float16"), "'dtype'"),
    ("task", _set(["task"], "ranking"), "'task'"),
    ("backend", _set(["backend"], "tpu"), "'backend'"),
    ("seed negative", _set(["seed"], -1), "'seed'"),
    ("seed float", _set(["seed"], 1.5), "'seed'"),
    ("epochs text", _set(["epochs_trained"], "3"), "'epochs_trained'"),
    ("huge declared sizes", _huge_sizes, "parameters"),
    ("too few parameters", _params(lambda p: p[:-3]), "parameters"),
    ("too many parameters", _params(lambda p: np.r_[p, p]), "parameters"),
    ("parameters 2-D", _params(lambda p: p[None, :]), "shape"),
    ("parameters int", _params(lambda p: p.astype(np.int64)), "dtype"),
    ("parameters text", _params(lambda p: p.astype(str)), "dtype"),
    ("parameters nan", _params(lambda p: np.r_[np.nan, p[1:]]), "finite"),
]


@pytest.mark.parametrize(
    "change, fragment", [c[1:] for c in META_CASES], ids=[c[0] for c in META_CASES]
)
def test_broken_meta_or_arrays(saved, tmp_path, change, fragment):
    meta, arrays, _ = saved
    meta, arrays = copy.deepcopy(meta), dict(arrays)
    replaced = change(meta, arrays)
    path = _write(tmp_path / "broken.npz", replaced or meta, arrays)
    with pytest.raises(ModelFileError, match=fragment) as info:
        nn.load(path)
    assert str(path) in str(info.value) and info.value.path == str(path)
    assert isinstance(info.value, ValueError)


def _mask(value):
    def build(meta, arrays):
        arrays["mask_0"] = value

    return build


def _extra(name, data):
    def build(meta, arrays):
        return {name: data}

    return build


MEMBER_CASES = [
    ("mask wrong shape", _mask(np.ones((3, 2))), None, "shape"),
    ("mask not 0/1", _mask(np.full((2, 3), 0.5)), None, "only 0 and 1"),
    (
        "mask object",
        None,
        {"mask_0.npy": _npy(np.array([None]), allow_pickle=True)},
        "dtype",
    ),
    ("mask of layer -1", None, {"mask_-1.npy": _npy(np.ones((3, 1)))}, "no layer"),
    ("mask of layer 5", None, {"mask_5.npy": _npy(np.ones((3, 1)))}, "no layer"),
    ("meta missing", None, None, "no meta/parameters"),
    (
        "parameters header claims more than the member holds",
        None,
        {"parameters.npy": _npy_header_only((14,), data=b"\0" * 16)},
        "truncated",
    ),
    (
        "parameters header garbage",
        None,
        {"parameters.npy": b"\x93NUMPY\x01"},
        "damaged",
    ),
    ("meta number", None, {"meta.npy": _npy(np.float64(3))}, "dtype"),
]


@pytest.mark.parametrize(
    "arrays_change, raw, fragment",
    [c[1:] for c in MEMBER_CASES],
    ids=[c[0] for c in MEMBER_CASES],
)
def test_broken_members(saved, tmp_path, arrays_change, raw, fragment):
    meta, arrays, _ = saved
    arrays = dict(arrays)
    if arrays_change is not None:
        arrays_change(meta, arrays)
    path = tmp_path / "broken.npz"
    if raw is not None and "parameters.npy" in raw:
        arrays.pop("parameters")
    _write(path, meta, arrays, raw=raw)
    if fragment == "no meta/parameters":
        with zipfile.ZipFile(path, "w") as zf:  # only the arrays, no meta
            zf.writestr("parameters.npy", _npy(arrays["parameters"]))
    with pytest.raises(ModelFileError, match=fragment) as info:
        nn.load(path)
    assert str(path) in str(info.value)


def _damage(saved_path, tmp_path, how):
    data = bytearray(saved_path.read_bytes())
    path = tmp_path / "damaged.npz"
    if how == "empty":
        data = bytearray()
    elif how == "truncated":
        data = data[: len(data) // 2]
    elif how == "text":
        data = bytearray(b"not a model at all")
    elif how == "flipped":  # a byte of the stored parameters: the CRC check fails
        start = data.index(b"parameters.npy")
        data[start + 200] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["empty", "truncated", "text", "flipped"])
def test_damaged_bytes(saved, tmp_path, how):
    path = _damage(saved[2], tmp_path, how)
    with pytest.raises(ModelFileError) as info:
        nn.load(path)
    assert str(path) in str(info.value)


def test_corrupt_deflate_stream(saved, tmp_path):
    meta, arrays, _ = saved
    path = _write(tmp_path / "z.npz", meta, arrays, compression=zipfile.ZIP_DEFLATED)
    data = bytearray(path.read_bytes())
    start = data.index(b"parameters.npy") + len("parameters.npy") + 40
    data[start : start + 30] = b"\xff" * 30
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="damaged") as info:
        nn.load(path)
    assert str(path) in str(info.value)


def _peak_bytes(fn, *args):
    """``fn(*args)``, recording the peak of traced allocations in ``_peak_bytes.last``
    (also when it raises)."""
    tracemalloc.start()
    try:
        return fn(*args)
    finally:
        _peak_bytes.last = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def test_huge_declared_sizes_fail_fast_without_allocating(saved, tmp_path):
    """[2, 30000, 30000, 1] with 18 stored values once allocated 6.7 GiB first."""
    meta, arrays, _ = saved
    meta = copy.deepcopy(meta)
    _huge_sizes(meta, arrays)
    path = _write(tmp_path / "huge.npz", meta, {"parameters": np.zeros(18)})
    with pytest.raises(ModelFileError, match="parameters but the file stores"):
        _peak_bytes(nn.load, path)
    assert _peak_bytes.last < 32 << 20, f"peak {_peak_bytes.last / 2**20:.1f} MiB"


def _zero_bomb(zf, name, n_bytes, header=None):
    """A deflated member of ``n_bytes`` zeros (optionally after an .npy header)."""
    chunk = bytes(1 << 20)
    with zf.open(name, "w", force_zip64=True) as fh:
        if header is not None:
            fh.write(header)
        for _ in range(n_bytes >> 20):
            fh.write(chunk)


def test_unneeded_bomb_member_is_never_decompressed(saved, tmp_path):
    """A 128 MiB member that is not needed is not read: the model loads."""
    meta, arrays, good = saved
    path = _write(tmp_path / "bomb.npz", meta, arrays)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        _zero_bomb(zf, "junk.npy", 128 << 20)
    assert path.stat().st_size < 2 << 20
    model = _peak_bytes(nn.load, path)
    assert _peak_bytes.last < 64 << 20, f"peak {_peak_bytes.last / 2**20:.1f} MiB"
    X = np.random.default_rng(0).normal(size=(20, 2))
    np.testing.assert_array_equal(
        model.decision_function(X), nn.load(good).decision_function(X)
    )


def test_needed_member_with_bomb_ratio_is_refused(saved, tmp_path):
    """A parameters member of 32 MiB zeros that matches its declared sizes (so the
    size check passes) compresses 1000:1 and is refused before decompression."""
    meta, _, _ = saved
    meta = copy.deepcopy(meta)
    width = 2048  # w*w + 5*w + 1 parameters: about 4.2 M float64 values
    meta["sizes"] = [2, width, width, 1]
    meta["layers"] = [[1] * width, [1] * width, None]
    n = 2 * width + width + width * width + width + width + 1
    header = _npy_header_only((n,))
    path = _write(tmp_path / "needed.npz", meta, {})
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        _zero_bomb(zf, "parameters.npy", n * 8 + (1 << 20), header=header)
    with pytest.raises(ModelFileError, match="refusing to decompress"):
        _peak_bytes(nn.load, path)
    assert _peak_bytes.last < 8 << 20, f"peak {_peak_bytes.last / 2**20:.1f} MiB"


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        nn.load(tmp_path / "nothing.npz")


def test_bad_backend_argument_is_not_blamed_on_the_file(saved):
    with pytest.raises(ValueError, match="backend must be one of") as info:
        nn.load(saved[2], backend="tpu")
    assert not isinstance(info.value, ModelFileError)
    with pytest.raises(ValueError, match="device=-1 must be") as info:
        nn.load(saved[2], device=-1)
    assert not isinstance(info.value, ModelFileError)


def test_derivative_and_surrogate_texts_survive(tmp_path):
    """The user's derivative text is kept (it was dropped when the text did not
    parse; now it must parse, and it is used after loading)."""
    act = symnb.Activation("x**3/3", name="cube", derivative="x**2 + 1")
    step = symnb.Activation("heaviside(x)", name="step", surrogate="sigmoid")
    model = nn.MLP([1, 2, 1], activation=[[act, step]], backend="numpy", seed=0)
    path = tmp_path / "d.npz"
    model.save(path)
    loaded = nn.load(path)
    acts = loaded.layers[0].activations
    assert acts[0].derivative_text == "x**2 + 1"
    assert acts[1].surrogate == "sigmoid"
    X = np.linspace(-2, 2, 9).reshape(9, 1)
    y = np.linspace(0, 1, 9)
    np.testing.assert_array_equal(
        loaded.loss_and_gradient(X, y)[1], model.loss_and_gradient(X, y)[1]
    )


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_save_follows_umask(tmp_path, umask):
    model = _model()
    old = os.umask(umask)
    try:
        model.save(tmp_path / "m.npz")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "m.npz").stat().st_mode)
    assert mode == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]  # no temp file left


def test_save_failure_leaves_no_temp_file(tmp_path, monkeypatch):
    model = _model()
    target = tmp_path / "m.npz"

    def fail(src, dst):
        raise OSError("disk full (injected)")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="injected"):
        model.save(target)
    assert list(tmp_path.iterdir()) == []


def test_save_to_a_folder_or_into_a_missing_folder_says_so(tmp_path):
    """A folder as the target, or a target in a folder that does not exist: a clear
    error naming the path, nothing written anywhere (no temp file in the parent)."""
    model = _model()
    (tmp_path / "out").mkdir()
    with pytest.raises(IsADirectoryError, match="it is a directory; give a file name"):
        model.save(tmp_path / "out")
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        model.save(tmp_path / "missing" / "m.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert list((tmp_path / "out").iterdir()) == []


def test_a_network_too_large_for_memory_fails_before_allocating():
    """MLP([2, 10**9, 1]) used to be killed by the system (the notebook kernel with
    it); now a MemoryError names the sizes and the memory, with a bounded peak."""
    tracemalloc.start()
    try:
        with pytest.raises(
            MemoryError,
            match=r"sizes \[2, 1000000000, 1\] \(4e\+09 weights and biases\) needs about",
        ):
            nn.MLP([2, 10**9, 1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_seed_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match="seed must be a non-negative integer or None"):
        nn.MLP([2, 3, 1], seed="a")
    # a negative integer is a ValueError, as in fit(seed=...) and the data sets
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        nn.MLP([2, 3, 1], seed=-1)


def test_every_library_activation_round_trips(tmp_path):
    """Loading rebuilds activations from their saved text only (no fallback on the
    library name), so every library activation must come back from its text."""
    names = symnb.library_activations()
    model = nn.MLP(
        [1, len(names), 1], activation=[list(names)], backend="numpy", seed=2
    )
    model.save(tmp_path / "all.npz")
    loaded = nn.load(tmp_path / "all.npz")
    assert [a.name for a in loaded.layers[0].activations] == list(names)
    X = np.linspace(-3, 3, 41).reshape(-1, 1)
    np.testing.assert_array_equal(
        loaded.hidden_outputs(X)[0], model.hidden_outputs(X)[0]
    )


_LOAD_IN_FRESH_PROCESS = """
import sys, numpy as np
from symnb import nn
from symnb.formula import compose
m = nn.load(sys.argv[1])
d = np.load(sys.argv[2])
loss, grad = m.loss_and_gradient(d["X"], d["y"])
acts = [m.layers[0].activation.activations[i] for i in (0, 1)]
fd = [a.compile(backend="numpy", dtype="float64").forward_with_derivative(d["t"])
      for a in acts]
np.savez(sys.argv[3], out=m.decision_function(d["X"]), loss=loss, grad=grad,
         f=np.array([p[0] for p in fd]), df=np.array([p[1] for p in fd]),
         names=np.array([a.name for a in acts]), registered=len(compose.registered()))
"""


def test_composed_activations_load_in_a_fresh_process(tmp_path):
    """An MLP whose activations call session-named activations (a kink, a step with a
    surrogate, a name that replaced a library activation) loads in a process without
    those names with the same outputs, gradients and derivative conventions."""
    import subprocess
    import sys

    from symnb.formula import compose

    names = ("cmp_kink", "cmp_step", "softsign", "cmp_one", "cmp_two")
    try:
        symnb.Activation("Max(0, x) + a*Min(0, x)", name="cmp_kink", a=0.2)
        symnb.Activation("x + sign(x)", name="cmp_step", surrogate="sigmoid")
        symnb.Activation("2*x + sin(x)", name="softsign", replace=True)
        one = symnb.Activation("gelu(x) + cmp_kink(x) + cmp_step(x)", name="cmp_one")
        two = symnb.Activation(
            "c*softsign(x) + cmp_kink(2*x)", name="cmp_two", c=symnb.learnable(0.5)
        )
        model = nn.MLP(
            [3, 4, 1],
            activation=[[one, two, one, two]],
            loss="mse",
            backend="numpy",
            dtype="float64",
            seed=3,
        )
        rng = np.random.default_rng(0)
        X, y = rng.normal(size=(16, 3)), rng.normal(size=(16, 1))
        t = np.array([-1.5, -0.25, 0.0, 0.25, 1.5])
        path, data, result = (tmp_path / n for n in ("m.npz", "d.npz", "r.npz"))
        model.save(path)
        np.savez(data, X=X, y=y, t=t)
        loss, grad = model.loss_and_gradient(X, y)
        fd = [
            a.compile(backend="numpy", dtype="float64").forward_with_derivative(t)
            for a in (one, two)
        ]
    finally:
        for name in names:
            compose.unregister(name)
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_IN_FRESH_PROCESS, path, data, result],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    r = np.load(result)
    assert list(r["names"]) == ["cmp_one", "cmp_two"]
    assert int(r["registered"]) == 0  # loading binds no session name
    np.testing.assert_allclose(r["out"], model.decision_function(X), rtol=1e-12)
    np.testing.assert_allclose(r["loss"], loss, rtol=1e-12)
    np.testing.assert_allclose(r["grad"], grad, rtol=1e-12, atol=1e-15)
    # kinks (t = 0) and the step's surrogate derivative as in the saving process
    np.testing.assert_allclose(r["f"], [p[0] for p in fd], rtol=1e-12)
    np.testing.assert_allclose(r["df"], [p[1] for p in fd], rtol=1e-12)
    # independent references: the user's softsign (2x + sin x), not the library's
    c, x = 0.5, t
    kink2 = np.where(2 * x > 0, 2 * x, 0.2 * 2 * x)
    np.testing.assert_allclose(r["f"][1], c * (2 * x + np.sin(x)) + kink2, rtol=1e-6)
    dkink2 = np.where(x > 0, 2.0, 0.4)
    np.testing.assert_allclose(
        r["df"][1][t != 0], (c * (2 + np.cos(x)) + dkink2)[t != 0], rtol=1e-6
    )


def test_composed_activation_entry_must_be_complete(saved, tmp_path):
    """A saved composite whose named activation is missing from the file fails to
    load with one ModelFileError; no library or session function is used instead."""
    from symnb.formula import compose

    try:
        symnb.Activation("x + 1", name="cmp_gone")
        act = symnb.Activation("cmp_gone(x)*2", name="cmp_user")
        model = nn.MLP([1, 2, 1], activation=act, backend="numpy", seed=0)
        path = tmp_path / "c.npz"
        model.save(path)
        with np.load(path) as f:
            meta = json.loads(str(f["meta"][()]))
            arrays = {k: f[k] for k in f.files}
        assert meta["activations"][0]["uses"]["cmp_gone"]["text"] == "x + 1"
        assert meta["version"] == 2  # an older symnb refuses the file
        del meta["activations"][0]["uses"]["cmp_gone"]
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(tmp_path / "broken.npz", **arrays)
        # cmp_gone is still registered in this session; the file must not borrow it
        with pytest.raises(ModelFileError, match="cmp_gone"):
            nn.load(tmp_path / "broken.npz")
    finally:
        compose.unregister("cmp_gone")
        compose.unregister("cmp_user")
