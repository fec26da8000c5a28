"""Files on disk are always complete or absent: :func:`atomic_write` writes
to a temporary file in the target's folder and renames it over the target
only once everything is written (``os.replace`` is atomic on POSIX and
Windows), so an interrupted save (Ctrl-C, a crash, a full disk) never leaves
a truncated file behind; the file gets the permissions the user's umask
gives a new file (0644 under the usual 022). :func:`read_bounded` reads a
file from outside whole, refusing one larger than its limit before reading it.
:func:`check_output_path` is the one check of a path a command will write
(a file or a folder of files), made before the work starts.

>>> import os, tempfile
>>> tmp = tempfile.TemporaryDirectory()
>>> d = tmp.name
>>> with atomic_write(os.path.join(d, "x.json"), "w") as f:
...     _ = f.write("{}")
>>> sorted(os.listdir(d))
['x.json']
>>> tmp.cleanup()
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from typing import IO, Any, Iterator, Optional

from .errors import GuandanError

__all__ = ["atomic_write", "read_bounded", "check_output_path"]


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


def read_bounded(path: Any, limit: int, what: str, error: type = OSError, *,
                 shown: Optional[str] = None) -> bytes:
    """The whole content of the file ``path``, at most ``limit`` bytes; a
    missing or unreadable file, a folder or a larger file raises ``error``
    (a GuandanError subclass at the callers) with a one-line message naming
    ``what`` and the path (``shown`` instead, when given: a server names
    the file as its client knows it, not where it lies)."""
    path = os.fspath(path)
    name = path if shown is None else shown
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} {name!r} is not a file")
        size = st.st_size
        if size > limit:
            raise error(f"{what} {name!r} is {size:,} bytes, more than {limit:,}")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        if isinstance(e, error):
            raise
        raise error(f"cannot read {what} {name!r}: {e.strerror or e}") from None
    if len(data) > limit:
        raise error(f"{what} {name!r} is more than {limit:,} bytes")
    return data


def check_output_path(path: Any, what: str = "output", *, folder: bool = False) -> str:
    """The check of a path a command will write, made before the work starts
    so that hours of work never end in "cannot write": for a file (the
    default), a file name whose folder exists and is writable, and that is
    not a folder (nor an existing file that cannot be replaced); with
    ``folder``, a writable folder or one that can be created (its nearest
    existing parent is a writable folder). ``what`` names the option in the
    message (``"--out"``). Returns the path as a string; raises
    GuandanError with a one-line message."""
    if not isinstance(path, (str, os.PathLike)):
        raise GuandanError(f"{what}: a path is a string, got {type(path).__name__}")
    path = os.fspath(path)
    if not isinstance(path, str) or not path.strip():
        raise GuandanError(f"{what}: an empty path")
    if "\0" in path:
        raise GuandanError(f"{what}: a path without NUL characters, got {path!r:.80}")
    full = os.path.abspath(path)
    if folder:
        if os.path.exists(full):
            if not os.path.isdir(full):
                raise GuandanError(f"{what}: cannot write into {path}: it is not a folder")
            if not os.access(full, os.W_OK | os.X_OK):
                raise GuandanError(f"{what}: cannot write into {path}: the folder is not writable")
            return path
        parent = os.path.dirname(full)
        while not os.path.exists(parent) and os.path.dirname(parent) != parent:
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise GuandanError(f"{what}: cannot create the folder {path}: {parent} is not a folder")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise GuandanError(f"{what}: cannot create the folder {path}: {parent} is not writable")
        return path
    if path.endswith(("/", os.sep)) or os.path.isdir(full):
        raise GuandanError(f"{what}: cannot write {path}: it is a folder, not a file name")
    parent = os.path.dirname(full)
    if not os.path.isdir(parent):
        why = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise GuandanError(f"{what}: cannot write {path}: the folder {parent} {why}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise GuandanError(f"{what}: cannot write {path}: the folder {parent} is not writable")
    if os.path.exists(full) and not os.path.isfile(full):
        raise GuandanError(f"{what}: cannot write {path}: it is not a regular file")
    return path
