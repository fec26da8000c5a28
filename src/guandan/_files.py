"""Files on disk are always complete or absent: :func:`atomic_write` writes
to a temporary file in the target's folder and renames it over the target
only once everything is written (``os.replace`` is atomic on POSIX and
Windows), so an interrupted save (Ctrl-C, a crash, a full disk) never leaves
a truncated file behind; the file gets the permissions the user's umask
gives a new file (0644 under the usual 022). :func:`read_bounded` reads a
file from outside whole, refusing one larger than its limit before reading it.

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
import stat
import tempfile
from typing import IO, Any, Iterator

__all__ = ["atomic_write", "read_bounded"]


def _umask() -> int:
    """The process's umask, read without changing it where the system says
    it (Linux), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
        os.chmod(tmp, 0o666 & ~_umask())        # as open() would create it (mkstemp makes 0600)
        with os.fdopen(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_bounded(path: Any, limit: int, what: str, error: type = OSError) -> bytes:
    """The whole content of the file ``path``, at most ``limit`` bytes; a
    missing or unreadable file, a folder or a larger file raises ``error``
    (a GuandanError subclass at the callers) with a one-line message naming
    ``what`` and the path."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} {path!r} is not a file")
        size = st.st_size
        if size > limit:
            raise error(f"{what} {path!r} is {size:,} bytes, more than {limit:,}")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        if isinstance(e, error):
            raise
        raise error(f"cannot read {what} {path!r}: {e.strerror or e}") from None
    if len(data) > limit:
        raise error(f"{what} {path!r} is more than {limit:,} bytes")
    return data
