"""Learned policies (no training framework needed to play them).

* :mod:`guandan.rl.checkpoint`: the project's network format (``.npz``,
  loaded without pickle, validated as untrusted input);
* :mod:`guandan.rl.danzero`: a converter from DanZero's pickled arrays,
  read with a restricted unpickler;
* :mod:`guandan.rl.net`: the project's encoding and :class:`NetPolicy`,
  numpy inference of a Q(s, a) network (natively in ``simulate`` and
  ``VecGame``), registered as ``net:path=FILE``; the network shipped in
  the package plays as ``learned``.

Importing this package registers the ``net`` and ``learned`` policies (the
package's ``__init__`` imports it).
"""

from __future__ import annotations

from typing import Any

from ..registry import policy_names, register
from .checkpoint import Checkpoint, CheckpointError, load_checkpoint, save_checkpoint
from .net import LEARNED_PATH, NetPolicy, encode, learned_native_code, learned_policy, net_native_code, net_policy

__all__ = ["Checkpoint", "CheckpointError", "load_checkpoint", "save_checkpoint", "convert_danzero",
           "NetPolicy", "encode", "LEARNED_PATH"]



def __getattr__(name: str) -> Any:
    if name == "convert_danzero":   # imported on first use (pickle is not needed to play)
        from .danzero import convert_danzero
        return convert_danzero
    raise AttributeError(f"module 'guandan.rl' has no attribute {name!r}")


if "net" not in policy_names():
    register("net", net_policy, native=net_native_code, options=True, usage="net:path=FILE")
if "learned" not in policy_names():
    register("learned", learned_policy, native=learned_native_code)
