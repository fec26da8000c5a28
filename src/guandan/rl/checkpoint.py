"""The project's network format: one ``.npz`` file, loaded without pickle.

A checkpoint holds float32 arrays ``w0, b0, w1, b1, ...`` (layer ``i``
maps ``w{i}.shape[0]`` inputs to ``w{i}.shape[1]`` outputs, ``b{i}`` has
``w{i}.shape[1]`` entries) and ``meta``, a JSON string::

    {"format": "guandan-qnet", "version": 1, "encoding": "guandan",
     "sizes": [309, 64, 1], "activation": "relu", "info": {...}}

``encoding`` names the rows the network reads: ``"guandan"`` (309 inputs)
or ``"danzero"`` (555 inputs, DanZero's state and action vectors).

``sizes`` is the input size followed by every layer's output size; the
network is ``relu(x @ w + b)`` for every layer but the last, which is
linear with one output (a Q value). ``info`` is free-form training
information (JSON).

:func:`load_checkpoint` treats the file as untrusted input: it is read with
``allow_pickle=False`` and every property above is checked (one validator,
:func:`validate_layers`), each violation a :class:`CheckpointError` with a
one-line message.

>>> import os, tempfile, numpy as np
>>> rng = np.random.default_rng(0)
>>> layers = [(rng.standard_normal((309, 4), dtype=np.float32), np.zeros(4, np.float32)),
...           (rng.standard_normal((4, 1), dtype=np.float32), np.zeros(1, np.float32))]
>>> tmp = tempfile.TemporaryDirectory()
>>> p = os.path.join(tmp.name, "net.npz")
>>> save_checkpoint(p, layers, {"info": {"note": "doctest"}})
>>> ck = load_checkpoint(p)
>>> ck.sizes, ck.encoding, ck.meta["info"]
([309, 4, 1], 'guandan', {'note': 'doctest'})
>>> tmp.cleanup()
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .._files import atomic_write, read_bounded
from ..errors import GuandanError
from ..vec import ENCODING_DIMS

__all__ = ["Checkpoint", "CheckpointError", "load_checkpoint", "save_checkpoint", "validate_layers",
           "ENCODINGS", "FORMAT", "VERSION", "MAX_LAYERS", "MAX_UNITS", "MAX_WEIGHT_BYTES",
           "MAX_FILE_BYTES"]

FORMAT = "guandan-qnet"
VERSION = 1
MAX_LAYERS = 16
MAX_UNITS = 4096
MAX_WEIGHT_BYTES = 64 * 2 ** 20
MAX_FILE_BYTES = MAX_WEIGHT_BYTES + 2 ** 20
MAX_META_BYTES = 2 ** 16

# encoding name -> its input size (``guandan``: the project's rows, 309;
# ``danzero``: DanZero's rows, 555, a network converted from DanZero's
# checkpoint; both built by :func:`guandan.rl.net.encode` and VecGame.encode)
ENCODINGS: Dict[str, int] = dict(ENCODING_DIMS)

Layers = List[Tuple[np.ndarray, np.ndarray]]


class CheckpointError(GuandanError):
    """A network checkpoint is missing, malformed, or not one this version reads."""


@dataclass(frozen=True)
class Checkpoint:
    """A validated network: ``layers`` as ``(w, b)`` float32 pairs, its
    ``meta`` dictionary, the ``encoding`` name and layer ``sizes``."""

    layers: Layers
    meta: Dict[str, Any]

    @property
    def encoding(self) -> str:
        return str(self.meta["encoding"])

    @property
    def sizes(self) -> List[int]:
        return list(self.meta["sizes"])


def validate_layers(layers: Sequence[Tuple[Any, Any]], encoding: str) -> List[int]:
    """The layer sizes ``[inputs, out0, out1, ...]`` of ``layers`` if they
    form a network this package plays in ``encoding``: at most
    :data:`MAX_LAYERS` layers, 2-D float32 weights and 1-D float32 biases
    whose shapes chain, every value finite, at most :data:`MAX_UNITS` units
    per layer and :data:`MAX_WEIGHT_BYTES` bytes in all, the encoding's
    input size, one output. Else :class:`CheckpointError`."""
    if encoding not in ENCODINGS:
        raise CheckpointError(f"unknown network encoding {encoding!r:.40}; known: {', '.join(ENCODINGS)}")
    if not isinstance(layers, (list, tuple)) or not layers:
        raise CheckpointError("a network has at least one layer")
    if len(layers) > MAX_LAYERS:
        raise CheckpointError(f"a network has at most {MAX_LAYERS} layers, got {len(layers)}")
    sizes: List[int] = []
    total = 0
    for i, pair in enumerate(layers):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise CheckpointError(f"layer {i} is not a (weights, bias) pair")
        w, b = pair
        if not isinstance(w, np.ndarray) or not isinstance(b, np.ndarray):
            raise CheckpointError(f"layer {i}: weights and bias must be numpy arrays")
        if w.dtype != np.float32 or b.dtype != np.float32:
            raise CheckpointError(f"layer {i}: weights and bias must be float32, got {w.dtype} and {b.dtype}")
        if w.ndim != 2:
            raise CheckpointError(f"w{i} must be 2-D, got shape {w.shape}")
        if b.ndim != 1:
            raise CheckpointError(f"b{i} must be 1-D, got shape {b.shape}")
        n_in, n_out = w.shape
        if n_in < 1 or n_out < 1 or n_in > MAX_UNITS or n_out > MAX_UNITS:
            raise CheckpointError(f"w{i}: each size must be 1..{MAX_UNITS}, got shape {w.shape}")
        if b.shape[0] != n_out:
            raise CheckpointError(f"b{i} has {b.shape[0]} entries, w{i} has {n_out} outputs")
        if sizes and n_in != sizes[-1]:
            raise CheckpointError(f"w{i} takes {n_in} inputs, layer {i - 1} gives {sizes[-1]}")
        total += w.nbytes + b.nbytes
        if total > MAX_WEIGHT_BYTES:
            raise CheckpointError(f"the weights exceed {MAX_WEIGHT_BYTES // 2 ** 20} MB")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise CheckpointError(f"layer {i} has a value that is not finite")
        if not sizes:
            sizes.append(n_in)
        sizes.append(n_out)
    if sizes[0] != ENCODINGS[encoding]:
        raise CheckpointError(f"the network takes {sizes[0]} inputs, encoding {encoding!r} "
                              f"gives {ENCODINGS[encoding]}")
    if sizes[-1] != 1:
        raise CheckpointError(f"the network's last layer must have 1 output (a Q value), got {sizes[-1]}")
    return sizes


def _check_meta(meta: Any, layers: Layers) -> Dict[str, Any]:
    if not isinstance(meta, dict):
        raise CheckpointError("the checkpoint's meta is not a JSON object")
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"not a {FORMAT} checkpoint (format {meta.get('format')!r:.40})")
    v = meta.get("version")
    if type(v) is not int or v != VERSION:
        raise CheckpointError(f"checkpoint version {v!r:.20} is not supported (this version reads {VERSION})")
    if meta.get("activation") != "relu":
        raise CheckpointError(f"unknown activation {meta.get('activation')!r:.40}; known: relu")
    enc = meta.get("encoding")
    if not isinstance(enc, str):
        raise CheckpointError("the checkpoint names no encoding")
    sizes = validate_layers(layers, enc)
    if meta.get("sizes") != sizes:
        raise CheckpointError(f"the checkpoint's sizes {meta.get('sizes')!r:.80} do not match its arrays {sizes}")
    if not isinstance(meta.get("info", {}), dict):
        raise CheckpointError("the checkpoint's info is not a JSON object")
    return meta


def _reject_constant(s: str) -> Any:
    raise CheckpointError(f"the checkpoint's meta holds {s}, not JSON")


def load_checkpoint(path: Any) -> Checkpoint:
    """Read and validate the checkpoint at ``path`` (never unpickles;
    :class:`CheckpointError` for anything that is not a valid checkpoint)."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise CheckpointError(f"a checkpoint path is a string, got {type(path).__name__}") from None
    data = read_bounded(path, MAX_FILE_BYTES, "checkpoint", CheckpointError)
    import zipfile   # on first load: not needed to import the package

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            if sum(i.file_size for i in infos) > MAX_FILE_BYTES:
                raise CheckpointError(f"checkpoint {path!r} unpacks to more than {MAX_FILE_BYTES} bytes")
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            names = list(z.files)
            arrays = {n: z[n] for n in names}
    except CheckpointError:
        raise
    except Exception as e:   # zipfile.BadZipFile, ValueError (pickled object arrays), OSError, ...
        raise CheckpointError(f"checkpoint {path!r} is not a readable .npz file: "
                              f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]) from None
    for n, a in arrays.items():   # np.load gives a member that is not a .npy file as raw bytes
        if not isinstance(a, np.ndarray):
            raise CheckpointError(f"checkpoint {path!r}: entry {n[:40]!r} is not a numpy array")
    return _from_arrays(arrays, path)


def _from_arrays(arrays: Mapping[str, np.ndarray], path: str) -> Checkpoint:
    if "meta" not in arrays:
        raise CheckpointError(f"checkpoint {path!r} has no meta")
    m = arrays["meta"]
    if m.ndim != 0 or m.dtype.kind != "U" or m.nbytes > 4 * MAX_META_BYTES:
        raise CheckpointError(f"checkpoint {path!r}: meta is not a JSON string")
    try:
        meta = json.loads(str(m), parse_constant=_reject_constant)
    except ValueError as e:
        if isinstance(e, CheckpointError):
            raise
        why = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise CheckpointError(f"checkpoint {path!r}: meta is not valid JSON ({why})") from None
    n = 0
    while f"w{n}" in arrays or f"b{n}" in arrays:
        if f"w{n}" not in arrays or f"b{n}" not in arrays:
            raise CheckpointError(f"checkpoint {path!r} has {'w' if f'w{n}' in arrays else 'b'}{n} "
                                  f"without {'b' if f'w{n}' in arrays else 'w'}{n}")
        n += 1
        if n > MAX_LAYERS:
            raise CheckpointError(f"a network has at most {MAX_LAYERS} layers")
    expected = {"meta"} | {f"{c}{i}" for i in range(n) for c in "wb"}
    extra = sorted(set(arrays) - expected)
    if extra:
        raise CheckpointError(f"checkpoint {path!r} holds unexpected arrays: {', '.join(extra)[:80]}")
    layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
    meta = _check_meta(meta, layers)
    return Checkpoint(layers, meta)


def save_checkpoint(path: Any, layers: Sequence[Tuple[Any, Any]], meta: Optional[Mapping[str, Any]] = None) -> None:
    """Write ``layers`` (``(w, b)`` pairs, converted to float32) and ``meta``
    (``encoding``, default ``"guandan"``, and ``info``; ``format``,
    ``version``, ``sizes`` and ``activation`` are filled in) to ``path``
    atomically. The network is validated as :func:`load_checkpoint` does."""
    meta = dict(meta or {})
    encoding = meta.get("encoding", "guandan")
    pairs = [(np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32))
             for w, b in layers]
    sizes = validate_layers(pairs, encoding)
    info = meta.get("info", {})
    if not isinstance(info, dict):
        raise CheckpointError("a checkpoint's info is a dictionary")
    for k in meta:
        if k not in ("encoding", "info", "format", "version", "sizes", "activation"):
            raise CheckpointError(f"unknown checkpoint meta key {k!r:.40}")
    full = {"format": FORMAT, "version": VERSION, "encoding": encoding, "sizes": sizes,
            "activation": "relu", "info": info}
    try:
        text = json.dumps(full, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"a checkpoint's info must be JSON: {e}") from None
    if len(text) > MAX_META_BYTES:
        raise CheckpointError(f"a checkpoint's meta is at most {MAX_META_BYTES} bytes")
    arrays: Dict[str, Any] = {"meta": np.array(text)}
    for i, (w, b) in enumerate(pairs):
        arrays[f"w{i}"] = w
        arrays[f"b{i}"] = b
    with atomic_write(os.fspath(path), "wb") as f:
        np.savez(f, **arrays)
