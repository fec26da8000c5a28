"""Convert a DanZero checkpoint (a pickle of numpy arrays) to the project's format.

DanZero publishes its network as a pickle of numpy arrays, the weights and
biases of an MLP. A pickle can run any code when it is loaded, so this
module never calls :func:`pickle.load` on it: :class:`ArrayUnpickler`
admits only the globals needed to rebuild numpy arrays
(``numpy.core.multiarray._reconstruct`` / ``numpy._core.multiarray._reconstruct``,
``numpy.core.numeric._frombuffer`` / ``numpy._core.numeric._frombuffer`` (numpy's
protocol-5 form), ``numpy.ndarray``, ``numpy.dtype``,
``numpy.core.multiarray.scalar`` / ``numpy._core.multiarray.scalar``, and
``_codecs.encode`` for latin-1 text only (protocol 2's form of bytes)), each
replaced by a checking stand-in: numpy itself never sees the pickle's
arguments or states; every array is built with ``numpy.frombuffer`` from
checked bytes, a numeric dtype and a shape that matches the data, and refuses every other global with a
:class:`~guandan.errors.GuandanError` naming it, before anything runs.
Arrays of object dtype are refused too (their items would be further
pickles).

Accepted layouts (the pickle's top-level object):

* a list or tuple of arrays ``[w0, b0, w1, b1, ...]``, alternating 2-D
  weights and 1-D biases;
* a dict whose values are such arrays, taken in the dict's order (the
  order they were pickled in), keys ignored;
* a list/tuple/dict nesting of those (flattened depth first), at most 4
  levels deep.

A weight of shape ``(n_out, n_in)`` (the PyTorch/TensorFlow-kernel-transposed
convention) is transposed when that is the only way the shapes chain; the
network must end in one output. The result is written with
:func:`guandan.rl.checkpoint.save_checkpoint` with encoding ``"danzero"``
and the layer sizes as found; which input layout DanZero used is not
claimed here.
"""

from __future__ import annotations

import io
import os
import pickle
from typing import Any, List, Optional, Tuple

import numpy as np

from .._files import read_bounded
from ..errors import GuandanError
from .checkpoint import MAX_FILE_BYTES, CheckpointError, save_checkpoint, validate_layers

__all__ = ["ArrayUnpickler", "read_array_pickle", "convert_danzero"]

_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),
}


_DTYPES = {"f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"}
_MAX_ELEMENTS = 2 ** 26


class _NdarrayToken:
    """What ``numpy.ndarray`` resolves to: a token only :func:`_safe_reconstruct`
    accepts (not callable, so the pickle cannot allocate arrays of its own size)."""


_NDARRAY = _NdarrayToken()


class _DtypeStub:
    """Stands for ``numpy.dtype(spec)``: a numeric dtype, whose pickled state
    may only set its byte order (numpy never sees the pickle's state)."""

    def __init__(self, spec: str) -> None:
        self.dtype = np.dtype(spec)

    def __setstate__(self, state: Any) -> None:
        if (not isinstance(state, tuple) or len(state) < 5 or state[1] not in ("<", ">", "|", "=")
                or any(x is not None for x in state[2:5])):
            raise GuandanError("the pickle gives a dtype an unexpected state")
        if state[1] in "<>":
            self.dtype = self.dtype.newbyteorder(state[1])


class _ArrayStub:
    """Stands for an array rebuilt by ``_reconstruct``; its pickled state
    ``(version, shape, dtype, fortran, data)`` is checked and the array is
    built with ``numpy.frombuffer`` from the data's bytes."""

    array: Any = None

    def __setstate__(self, state: Any) -> None:
        if not isinstance(state, tuple) or len(state) != 5:
            raise GuandanError("the pickle gives an array an unexpected state")
        _version, shape, dtype, fortran, data = state
        self.array = _build(data, dtype, shape, "F" if fortran is True else "C")


def _build(data: Any, dtype: Any, shape: Any, order: str) -> np.ndarray:
    if not isinstance(dtype, _DtypeStub):
        raise GuandanError("the pickle rebuilds an array whose dtype is not a number type")
    if not isinstance(data, (bytes, bytearray)):
        raise GuandanError("the pickle rebuilds an array whose data are not bytes (an object array?)")
    if not isinstance(shape, tuple) or len(shape) > 8 or not all(type(n) is int and n >= 0 for n in shape):
        raise GuandanError("the pickle rebuilds an array of an unexpected shape")
    count = 1
    for n in shape:
        count *= n
    if count > _MAX_ELEMENTS or count * dtype.dtype.itemsize != len(data):
        raise GuandanError("the pickle's array data does not match its shape")
    flat = np.frombuffer(bytes(data), dtype=dtype.dtype)
    return (flat.reshape(tuple(shape), order="F") if order == "F" else flat.reshape(tuple(shape))).copy()


def _safe_reconstruct(cls: Any, shape: Any, dtype: Any) -> _ArrayStub:
    if cls is not _NDARRAY:
        raise GuandanError("the pickle rebuilds an array of a class other than numpy.ndarray")
    if shape != (0,) or not isinstance(dtype, bytes):
        raise GuandanError("the pickle rebuilds an array in an unexpected way")
    return _ArrayStub()


def _safe_dtype(spec: Any, *args: Any) -> _DtypeStub:
    if not isinstance(spec, str) or spec not in _DTYPES:
        raise GuandanError(f"the pickle holds an array of dtype {spec!r:.20}, not numbers")
    return _DtypeStub(spec)


def _safe_scalar(dtype: Any, data: Any = None) -> Any:
    if not isinstance(dtype, _DtypeStub) or not isinstance(data, bytes) or len(data) != dtype.dtype.itemsize:
        raise GuandanError("the pickle holds a numpy scalar that is not a number")
    return np.frombuffer(data, dtype=dtype.dtype, count=1)[0]


def _safe_frombuffer(buf: Any, dtype: Any, shape: Any, order: Any) -> np.ndarray:
    # numpy >= 1.24 pickles a contiguous array (protocol 5) as _frombuffer(bytes, dtype, shape, order)
    if order not in ("C", "F"):
        raise GuandanError("the pickle rebuilds an array in an unexpected way")
    return _build(buf, dtype, shape, order)


_MAX_NODES = 100_000


def _materialize(obj: Any, depth: int = 0, budget: Optional[List[int]] = None) -> Any:
    """``obj`` with every array stub replaced by its array (at most
    ``_MAX_NODES`` objects visited: a pickle can share one list many times)."""
    budget = [_MAX_NODES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        raise CheckpointError(f"the pickle holds more than {_MAX_NODES} objects")
    if depth > 8:
        raise CheckpointError("the pickle nests containers more than 8 deep")
    if isinstance(obj, _ArrayStub):
        if obj.array is None:
            raise GuandanError("the pickle rebuilds an array without its data")
        return obj.array
    if isinstance(obj, (_DtypeStub, _NdarrayToken)):
        raise GuandanError("the pickle holds a numpy dtype or class, not arrays")
    if isinstance(obj, list):
        return [_materialize(v, depth + 1, budget) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_materialize(v, depth + 1, budget) for v in obj)
    if isinstance(obj, dict):
        return {k: _materialize(v, depth + 1, budget) for k, v in obj.items()}
    return obj


def _safe_encode(text: Any, encoding: Any = "utf-8") -> bytes:
    # protocols 0-2 store an array's raw bytes as _codecs.encode(str, "latin1")
    if not isinstance(text, str) or encoding != "latin1":
        raise GuandanError("the pickle calls _codecs.encode other than for array bytes")
    return text.encode("latin1")


class ArrayUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds numpy arrays of numbers and plain
    containers only; any other global is refused (GuandanError)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise GuandanError(f"the pickle refers to {module}.{name}, which is not a numpy array part: refused")
        if name == "_frombuffer":
            return _safe_frombuffer
        if name == "encode":
            return _safe_encode
        if name == "_reconstruct":
            return _safe_reconstruct
        if name == "scalar":
            return _safe_scalar
        if name == "dtype":
            return _safe_dtype
        return _NDARRAY

    def persistent_load(self, pid: Any) -> Any:
        raise GuandanError("the pickle uses persistent ids: refused")


def read_array_pickle(path: Any) -> Any:
    """The object in the pickle at ``path``, rebuilt by :class:`ArrayUnpickler`
    (size-bounded; GuandanError for a refused or malformed pickle)."""
    data = read_bounded(path, MAX_FILE_BYTES, "pickle", CheckpointError)
    try:
        return _materialize(ArrayUnpickler(io.BytesIO(data)).load())
    except GuandanError:
        raise
    except Exception as e:   # UnpicklingError, EOFError, TypeError, ValueError, ...
        raise CheckpointError(f"{path!r} is not a readable pickle of arrays: {type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''}"[:200]) from None


def _flatten(obj: Any, out: List[np.ndarray], depth: int = 0) -> None:
    if depth > 4:
        raise CheckpointError("the checkpoint nests containers more than 4 deep")
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "fiub":
            raise CheckpointError(f"the checkpoint holds an array of dtype {obj.dtype}, not numbers")
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _flatten(v, out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _flatten(v, out, depth + 1)
    else:
        raise CheckpointError(f"the checkpoint holds a {type(obj).__name__}, not arrays")
    if len(out) > 64:
        raise CheckpointError("the checkpoint holds more than 64 arrays")


def _pairs(arrays: List[np.ndarray]) -> List[Tuple[np.ndarray, np.ndarray]]:
    if not arrays or len(arrays) % 2:
        raise CheckpointError(f"expected alternating weights and biases, got {len(arrays)} arrays")
    layers = []
    prev = None
    for i in range(0, len(arrays), 2):
        w, b = arrays[i], arrays[i + 1]
        if w.ndim != 2 or b.ndim != 1:
            raise CheckpointError(f"array {i} must be 2-D and array {i + 1} 1-D, got shapes {w.shape}, {b.shape}")
        fits = (prev is None or w.shape[0] == prev) and w.shape[1] == b.shape[0]
        fits_t = (prev is None or w.shape[1] == prev) and w.shape[0] == b.shape[0]
        if not fits and fits_t:
            w = w.T
        elif not fits:
            raise CheckpointError(f"layer {i // 2}: weights {w.shape} and bias {b.shape} do not chain")
        if not np.isfinite(w).all() or not np.isfinite(b).all():
            raise CheckpointError(f"layer {i // 2} has a value that is not finite")
        layers.append((np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32)))
        prev = w.shape[1]
    return layers


def convert_danzero(src: Any, dst: Any) -> List[int]:
    """Read the DanZero checkpoint ``src`` (restricted unpickler; see the
    module docstring for the layouts accepted) and write it to ``dst`` in
    the project's format (encoding ``"danzero"``). Returns the layer sizes."""
    obj = read_array_pickle(src)
    arrays: List[np.ndarray] = []
    _flatten(obj, arrays)
    layers = _pairs(arrays)
    sizes = validate_layers(layers, "danzero")
    save_checkpoint(dst, layers, {"encoding": "danzero",
                                  "info": {"converted_from": os.path.basename(os.fspath(src))}})
    return sizes
