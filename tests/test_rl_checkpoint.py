"""guandan.rl.checkpoint (the .npz network format, validated as untrusted
input) and guandan.rl.danzero (the restricted-unpickler converter)."""

from __future__ import annotations

import json
import os
import pickle
import time

import numpy as np
import pytest

from guandan.errors import GuandanError
from guandan.rl import checkpoint as ckm
from guandan.rl.checkpoint import CheckpointError, load_checkpoint, save_checkpoint, validate_layers
from guandan.rl.danzero import convert_danzero, read_array_pickle

D = 309


def _layers(sizes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((a, b)).astype(dtype), rng.standard_normal(b).astype(dtype))
            for a, b in zip(sizes, sizes[1:])]


def _meta(**kw):
    m = {"format": "guandan-qnet", "version": 1, "encoding": "guandan", "sizes": [D, 4, 1],
         "activation": "relu", "info": {}}
    m.update(kw)
    return m


def _write(path, arrays, meta=None):
    if meta is not None:
        arrays = dict(arrays, meta=np.array(json.dumps(meta) if not isinstance(meta, str) else meta))
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _arrays(layers):
    out = {}
    for i, (w, b) in enumerate(layers):
        out[f"w{i}"], out[f"b{i}"] = w, b
    return out


def test_round_trip(tmp_path):
    layers = _layers([D, 8, 3, 1])
    p = tmp_path / "net.npz"
    save_checkpoint(p, layers, {"info": {"samples": 12, "note": "x"}})
    ck = load_checkpoint(p)
    assert ck.sizes == [D, 8, 3, 1] and ck.encoding == "guandan"
    assert ck.meta["format"] == "guandan-qnet" and ck.meta["version"] == 1 and ck.meta["activation"] == "relu"
    assert ck.meta["info"] == {"samples": 12, "note": "x"}
    for (w, b), (w2, b2) in zip(layers, ck.layers):
        assert w2.dtype == np.float32 and np.array_equal(w, w2) and np.array_equal(b, b2)
    assert sorted(os.listdir(tmp_path)) == ["net.npz"]      # atomic: no temporary left


def test_save_converts_to_float32_and_validates(tmp_path):
    p = tmp_path / "n.npz"
    save_checkpoint(p, _layers([D, 4, 1], dtype=np.float64))
    assert load_checkpoint(p).layers[0][0].dtype == np.float32
    with pytest.raises(CheckpointError, match="1 output"):
        save_checkpoint(p, _layers([D, 4, 2]))
    with pytest.raises(CheckpointError, match="info"):
        save_checkpoint(p, _layers([D, 4, 1]), {"info": 3})
    with pytest.raises(CheckpointError, match="JSON"):
        save_checkpoint(p, _layers([D, 4, 1]), {"info": {"x": float("nan")}})
    with pytest.raises(CheckpointError, match="unknown checkpoint meta key"):
        save_checkpoint(p, _layers([D, 4, 1]), {"bogus": 1})
    with pytest.raises(CheckpointError, match="unknown network encoding"):
        save_checkpoint(p, _layers([D, 4, 1]), {"encoding": "nope"})


@pytest.mark.parametrize("make, match", [
    (lambda: [], "at least one layer"),
    (lambda: _layers([D] + [4] * 17 + [1]), "at most 16 layers"),
    (lambda: [(np.zeros((D, 1), np.float32),)], "pair"),
    (lambda: [([[0.0]], np.zeros(1, np.float32))], "numpy arrays"),
    (lambda: _layers([D, 4, 1], dtype=np.float64), "float32"),
    (lambda: [(np.zeros(D, np.float32), np.zeros(1, np.float32))], "2-D"),
    (lambda: [(np.zeros((D, 1), np.float32), np.zeros((1, 1), np.float32))], "1-D"),
    (lambda: [(np.zeros((D, 4097), np.float32), np.zeros(4097, np.float32))], "1..4096"),
    (lambda: [(np.zeros((D, 1), np.float32), np.zeros(2, np.float32))], "entries"),
    (lambda: [(np.zeros((D, 4), np.float32), np.zeros(4, np.float32)),
              (np.zeros((5, 1), np.float32), np.zeros(1, np.float32))], "takes 5 inputs"),
    (lambda: [(np.full((D, 1), np.inf, np.float32), np.zeros(1, np.float32))], "not finite"),
    (lambda: [(np.zeros((D, 1), np.float32), np.array([np.nan], np.float32))], "not finite"),
    (lambda: _layers([D + 1, 4, 1]), "310 inputs"),
    (lambda: _layers([D, 4, 2]), "1 output"),
])
def test_validate_layers_branches(make, match):
    with pytest.raises(CheckpointError, match=match):
        validate_layers(make(), "guandan")


def test_validate_weight_bytes_and_encoding(monkeypatch):
    with pytest.raises(CheckpointError, match="unknown network encoding"):
        validate_layers(_layers([D, 1]), "nope")
    monkeypatch.setattr(ckm, "MAX_WEIGHT_BYTES", 1000)
    with pytest.raises(CheckpointError, match="weights exceed"):
        validate_layers(_layers([D, 4, 1]), "guandan")


def test_danzero_encoding_input_size():
    assert validate_layers(_layers([555, 4, 1]), "danzero") == [555, 4, 1]
    with pytest.raises(CheckpointError, match="encoding 'danzero' gives 555"):
        validate_layers(_layers([554, 4, 1]), "danzero")


@pytest.mark.parametrize("arrays, meta, match", [
    (_arrays(_layers([D, 4, 1])), None, "has no meta"),
    ({"w0": np.zeros((D, 1), np.float32)}, _meta(sizes=[D, 1]), "w0 without b0"),
    ({"b0": np.zeros(1, np.float32)}, _meta(sizes=[D, 1]), "b0 without w0"),
    (dict(_arrays(_layers([D, 4, 1])), w5=np.zeros((1, 1), np.float32)), _meta(), "unexpected arrays: w5"),
    (dict(_arrays(_layers([D, 4, 1])), extra=np.zeros(1)), _meta(), "unexpected arrays: extra"),
    (_arrays(_layers([D, 4, 1])), _meta(format="other"), "not a guandan-qnet"),
    (_arrays(_layers([D, 4, 1])), _meta(version=2), "version 2"),
    (_arrays(_layers([D, 4, 1])), _meta(version=True), "version True"),
    (_arrays(_layers([D, 4, 1])), _meta(activation="tanh"), "activation"),
    (_arrays(_layers([D, 4, 1])), _meta(encoding=None), "names no encoding"),
    (_arrays(_layers([D, 4, 1])), _meta(encoding="x"), "unknown network encoding"),
    (_arrays(_layers([D, 4, 1])), _meta(sizes=[D, 5, 1]), "do not match"),
    (_arrays(_layers([D, 4, 1])), _meta(info=[1]), "info is not"),
    (_arrays(_layers([D, 4, 1])), [1, 2], "not a JSON object"),
    (_arrays(_layers([D, 4, 1])), "{not json", "not valid JSON"),
    (_arrays(_layers([D, 4, 1])), '{"format": NaN}', "holds NaN"),
    (_arrays(_layers([D, 4, 2])), _meta(sizes=[D, 4, 2]), "1 output"),
    (_arrays(_layers([D, 4, 1], dtype=np.float64)), _meta(), "float32"),
])
def test_load_branches(tmp_path, arrays, meta, match):
    p = _write(tmp_path / "c.npz", arrays, meta)
    with pytest.raises(CheckpointError, match=match) as e:
        load_checkpoint(p)
    assert "\n" not in str(e.value)


def test_load_file_level_errors(tmp_path, monkeypatch):
    with pytest.raises(CheckpointError, match="cannot read"):
        load_checkpoint(tmp_path / "missing.npz")
    with pytest.raises(CheckpointError, match="not a file"):
        load_checkpoint(tmp_path)
    with pytest.raises(CheckpointError, match="path is a string"):
        load_checkpoint(3.5)
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match="not a readable .npz"):
        load_checkpoint(tmp_path / "junk.npz")
    # meta must be a string; an object array (a pickle inside the npz) is never loaded
    _write(tmp_path / "m.npz", dict(_arrays(_layers([D, 4, 1])), meta=np.array(3)))
    with pytest.raises(CheckpointError, match="meta is not a JSON string"):
        load_checkpoint(tmp_path / "m.npz")
    _write(tmp_path / "o.npz", dict(_arrays(_layers([D, 4, 1])), meta=np.array([{"a": 1}], dtype=object)))
    with pytest.raises(CheckpointError, match="not a readable .npz"):
        load_checkpoint(tmp_path / "o.npz")
    good = tmp_path / "good.npz"
    save_checkpoint(good, _layers([D, 4, 1]))
    monkeypatch.setattr(ckm, "MAX_FILE_BYTES", 100)
    with pytest.raises(CheckpointError, match="more than 100"):
        load_checkpoint(good)


def test_load_bounds_unpacked_size(tmp_path, monkeypatch):
    good = tmp_path / "good.npz"
    save_checkpoint(good, _layers([D, 4, 1]))
    size = os.path.getsize(good)
    monkeypatch.setattr(ckm, "MAX_FILE_BYTES", size)     # the file fits, its contents (uncompressed) too
    load_checkpoint(good)
    with open(tmp_path / "z.npz", "wb") as f:            # compressed: small file, large contents
        np.savez_compressed(f, w0=np.zeros((D, 4000), np.float32), b0=np.zeros(4000, np.float32),
                            meta=np.array(json.dumps(_meta(sizes=[D, 4000]))))
    assert os.path.getsize(tmp_path / "z.npz") < size
    with pytest.raises(CheckpointError, match="unpacks to more than"):
        load_checkpoint(tmp_path / "z.npz")


# -- the DanZero converter ---------------------------------------------------------------------

def _pickle(obj, path):
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def test_convert_list_round_trip(tmp_path):
    layers = _layers([555, 16, 16, 1], seed=3)
    flat = [a for wb in layers for a in wb]
    src = _pickle(flat, tmp_path / "dz.pkl")
    assert convert_danzero(src, tmp_path / "dz.npz") == [555, 16, 16, 1]
    ck = load_checkpoint(tmp_path / "dz.npz")
    assert ck.encoding == "danzero" and ck.sizes == [555, 16, 16, 1]
    assert ck.meta["info"]["converted_from"] == "dz.pkl"
    for (w, b), (w2, b2) in zip(layers, ck.layers):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)


@pytest.mark.parametrize("protocol", range(0, pickle.HIGHEST_PROTOCOL + 1))
def test_convert_every_protocol(tmp_path, protocol):
    layers = _layers([555, 3, 1], seed=protocol)
    with open(tmp_path / "p.pkl", "wb") as f:
        pickle.dump([a for wb in layers for a in wb], f, protocol=protocol)
    convert_danzero(tmp_path / "p.pkl", tmp_path / "p.npz")
    for (w, b), (w2, b2) in zip(layers, load_checkpoint(tmp_path / "p.npz").layers):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)


def test_convert_dict_nested_transposed_and_protocol2(tmp_path):
    layers = _layers([555, 8, 1], seed=4, dtype=np.float64)
    obj = {"params": {"l0/w": layers[0][0].T, "l0/b": layers[0][1], "l1/w": layers[1][0].T, "l1/b": layers[1][1]}}
    with open(tmp_path / "d.pkl", "wb") as f:
        pickle.dump(obj, f, protocol=2)
    convert_danzero(tmp_path / "d.pkl", tmp_path / "d.npz")
    ck = load_checkpoint(tmp_path / "d.npz")
    assert ck.sizes == [555, 8, 1]
    assert np.allclose(ck.layers[0][0], layers[0][0].astype(np.float32))


def test_convert_danzero_real_shapes(tmp_path):
    t = time.perf_counter()
    flat = [a for wb in _layers([555, 512, 512, 512, 512, 1], seed=5) for a in wb]
    convert_danzero(_pickle(flat, tmp_path / "big.pkl"), tmp_path / "big.npz")
    assert load_checkpoint(tmp_path / "big.npz").sizes == [555, 512, 512, 512, 512, 1]
    assert time.perf_counter() - t < 10


def test_scalars_are_rebuilt_but_not_layers(tmp_path):
    assert read_array_pickle(_pickle([np.float32(1.5), {"a": (1, "x")}], tmp_path / "s.pkl")) == \
        [np.float32(1.5), {"a": (1, "x")}]
    with pytest.raises(CheckpointError, match="holds a float32"):
        convert_danzero(tmp_path / "s.pkl", tmp_path / "s.npz")


@pytest.mark.parametrize("obj, match", [
    ([np.zeros((3, 4), np.float32)], "alternating"),
    ([np.zeros((3, 4), np.float32), np.zeros(5, np.float32)], "do not chain"),
    ([np.zeros(3, np.float32), np.zeros(3, np.float32)], "2-D"),
    ([np.full((3, 1), np.nan, np.float32), np.zeros(1, np.float32)], "not finite"),
    ([np.zeros((555, 2), np.float32), np.zeros(2, np.float32)], "1 output"),
    ([np.zeros((3, 1), np.float32), np.zeros(1, np.float32)], "takes 3 inputs, encoding 'danzero' gives 555"),
    ([[[[[[np.zeros(1)]]]]]], "more than 4 deep"),
    ([np.zeros(1)] * 65, "more than 64 arrays"),
])
def test_convert_refuses_bad_shapes(tmp_path, obj, match):
    with pytest.raises(CheckpointError, match=match):
        convert_danzero(_pickle(obj, tmp_path / "b.pkl"), tmp_path / "b.npz")
    assert not (tmp_path / "b.npz").exists()


def test_convert_file_errors(tmp_path, monkeypatch):
    with pytest.raises(CheckpointError, match="cannot read"):
        convert_danzero(tmp_path / "none.pkl", tmp_path / "x.npz")
    (tmp_path / "t.pkl").write_bytes(b"\x80\x04garbage")
    with pytest.raises(CheckpointError, match="not a readable pickle"):
        convert_danzero(tmp_path / "t.pkl", tmp_path / "x.npz")
    import guandan.rl.danzero as dz
    p = _pickle([np.zeros((555, 1), np.float32), np.zeros(1, np.float32)], tmp_path / "ok.pkl")
    monkeypatch.setattr(dz, "MAX_FILE_BYTES", 100)
    with pytest.raises(CheckpointError, match="more than 100"):
        convert_danzero(p, tmp_path / "x.npz")


# -- malicious pickles: refused before anything runs ----------------------------------------------

MARKER = None


class _System:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _Eval:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w').close()",))


class _Sub(np.ndarray):
    """An ndarray subclass whose unpickling would write the marker."""

    def __setstate__(self, state):
        open(MARKER, "w").close()
        super().__setstate__(state)


def _evil(kind, marker):
    global MARKER
    MARKER = str(marker)
    if kind == "system":
        return [np.zeros((555, 1), np.float32), _System(marker)]
    if kind == "eval":
        return {"w": _Eval(marker)}
    if kind == "object-array":
        return [np.array([_System(marker), 1], dtype=object)]
    if kind == "object-array-plain":
        return [np.array([1, "x"], dtype=object)]
    if kind == "subclass":
        return [np.zeros((555, 1), np.float32).view(_Sub), np.zeros(1, np.float32)]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind, refused", [
    ("system", "system"),
    ("eval", "builtins.eval"),
    ("object-array", "dtype"),
    ("object-array-plain", "dtype"),
    ("subclass", "_Sub"),
])
def test_malicious_pickles_are_refused(tmp_path, kind, refused):
    marker = tmp_path / "ran"
    src = _pickle(_evil(kind, marker), tmp_path / "evil.pkl")
    with pytest.raises(GuandanError, match=refused) as e:
        convert_danzero(src, tmp_path / "evil.npz")
    assert "refused" in str(e.value) or "dtype" in str(e.value)
    assert not marker.exists(), "the pickle ran code"
    assert not (tmp_path / "evil.npz").exists()
    # the same pickle really is malicious: a plain unpickler would have run it
    if kind in ("system", "eval"):
        with open(src, "rb") as f:
            pickle.load(f)
        assert marker.exists()


def _handmade(ops: bytes) -> bytes:
    return b"\x80\x02" + ops + b"."


@pytest.mark.parametrize("data, match", [
    # numpy.ndarray called directly (REDUCE): the allowed name is not callable
    (_handmade(b"cnumpy\nndarray\n(I1000000000000\ntR"), "not a readable pickle"),
    # _reconstruct with a class other than ndarray
    (_handmade(b"cnumpy.core.multiarray\n_reconstruct\n(cnumpy\ndtype\n(I0\ntU\x01btR"), "numpy.dtype|class other"),
    # _reconstruct with a shape other than (0,)
    (_handmade(b"cnumpy.core.multiarray\n_reconstruct\n(cnumpy\nndarray\n(I99999999999\ntU\x01btR"), "unexpected way"),
    # a look-alike module name
    (_handmade(b"cnumpy.core.multiarray\nsystem\n(U\x02lstR"), "numpy.core.multiarray.system"),
    (_handmade(b"cposix\nsystem\n(U\x02lstR"), "posix.system"),
    (_handmade(b"U\x01xQ"), "persistent"),
    # _codecs.encode for anything but array bytes
    (_handmade(b"c_codecs\nencode\n(U\x01xU\x05utf-8tR"), "_codecs.encode"),
])
def test_handmade_pickles_are_refused(tmp_path, data, match):
    (tmp_path / "h.pkl").write_bytes(data)
    with pytest.raises(GuandanError, match=match):
        convert_danzero(tmp_path / "h.pkl", tmp_path / "h.npz")


def test_frombuffer_shape_must_match_its_data(tmp_path):
    data = pickle.dumps(np.arange(4, dtype=np.float32), protocol=5)
    assert b"_frombuffer" in data and data.count(b"K\x04\x85") == 1
    (tmp_path / "f.pkl").write_bytes(data.replace(b"K\x04\x85", b"K\x05\x85"))
    with pytest.raises(GuandanError, match="does not match"):
        read_array_pickle(tmp_path / "f.pkl")


def test_converter_is_reachable_from_the_package_lazily():
    import subprocess
    import sys
    code = ("import sys, guandan; "
            "assert 'guandan.rl.danzero' not in sys.modules; "
            "from guandan.rl import convert_danzero as c; "
            "import guandan.rl.danzero as d; assert c is d.convert_danzero; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
    with pytest.raises(AttributeError):
        import guandan.rl
        guandan.rl.nothing_here


def test_dtype_and_array_states_are_checked():
    from guandan.rl import danzero as dz
    d = dz._safe_dtype("f4", False, True)
    d.__setstate__((3, ">", None, None, None, -1, -1, 0x3f))      # flags ignored: only the byte order is read
    assert d.dtype == np.dtype(">f4")
    for bad in [(3, "<", None, ("a",), {"a": 1}, -1, -1, 0), (3, "?", None, None, None, -1, -1, 0), "x"]:
        with pytest.raises(GuandanError, match="unexpected state"):
            dz._safe_dtype("f4").__setstate__(bad)
    with pytest.raises(GuandanError, match="dtype"):
        dz._safe_dtype("O8")
    a = dz._safe_reconstruct(dz._NDARRAY, (0,), b"b")
    with pytest.raises(GuandanError, match="does not match"):
        a.__setstate__((1, (3,), dz._safe_dtype("f4"), False, b"\x00" * 8))
    with pytest.raises(GuandanError, match="not bytes"):
        a.__setstate__((1, (2,), dz._safe_dtype("f4"), False, [1, 2]))
    with pytest.raises(GuandanError, match="not a number type"):
        a.__setstate__((1, (2,), np.dtype("f4"), False, b"\x00" * 8))
    a.__setstate__((1, (2, 1), dz._safe_dtype("f4"), True, b"\x00" * 8))
    assert a.array.shape == (2, 1) and a.array.dtype == np.float32


def test_shared_references_are_bounded(tmp_path):
    x = [np.float32(0)] * 100
    for _ in range(6):
        x = [x] * 100                                         # 100**7 leaves, a small pickle
    p = _pickle(x, tmp_path / "laughs.pkl")
    assert os.path.getsize(p) < 10_000
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match="more than 100000 objects"):
        read_array_pickle(p)
    assert time.perf_counter() - t < 2


def test_npz_member_that_is_not_an_array(tmp_path):
    import zipfile
    with zipfile.ZipFile(tmp_path / "raw.npz", "w") as z:
        z.writestr("meta.txt", "hello")
    with pytest.raises(CheckpointError, match="not a numpy array"):
        load_checkpoint(tmp_path / "raw.npz")


def test_byte_order_is_kept(tmp_path):
    w = np.arange(555, dtype=">f4").reshape(555, 1)
    p = _pickle([w, np.ones(1, ">f8")], tmp_path / "be.pkl")
    convert_danzero(p, tmp_path / "be.npz")
    ck = load_checkpoint(tmp_path / "be.npz")
    assert np.array_equal(ck.layers[0][0], w.astype(np.float32)) and ck.layers[0][1][0] == 1.0
