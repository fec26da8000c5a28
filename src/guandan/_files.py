"""Files on disk are always complete or absent: :func:`atomic_write` writes
to a temporary file in the target's folder and renames it over the target
only once everything is written (``os.replace`` is atomic on POSIX and
Windows), so an interrupted save (Ctrl-C, a crash, a full disk) never leaves
a truncated file behind.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> with atomic_write(os.path.join(d, "x.json"), "w") as f:
...     _ = f.write("{}")
>>> sorted(os.listdir(d))
['x.json']
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, Any, Iterator

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "wb", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success it is
    flushed, synced and renamed to ``path``; on any exception (including
    KeyboardInterrupt) it is removed and ``path`` is left untouched."""
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write writes whole files: mode 'w' or 'wb'")
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
