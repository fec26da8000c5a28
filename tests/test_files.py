"""Writes are atomic: an interrupted save leaves no file."""

import os

import numpy as np
import pytest

from guandan import simulate


# -- files -----------------------------------------------------------------------------

def test_interrupted_save_leaves_no_file(tmp_path, monkeypatch):
    res = simulate(200, policies=("random",) * 4, seed=1)
    path = tmp_path / "x.npz"
    real = np.savez_compressed

    def boom(f, **kw):
        real(f, **kw)
        f.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", boom)
    with pytest.raises(KeyboardInterrupt):
        res.save(str(path))
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr(np, "savez_compressed", real)
    assert res.save(str(path)) == str(path)
    assert os.listdir(tmp_path) == ["x.npz"]
    assert np.load(path)["winner"].shape == (200,)


def test_written_files_follow_the_umask(tmp_path):
    """atomic_write's file gets the permissions a plain open() would give it
    under the process's umask (0644 under 022), not mkstemp's 0600."""
    import stat as _stat
    from guandan._files import atomic_write
    old = os.umask(0o022)
    try:
        with atomic_write(str(tmp_path / "a.json"), "w") as f:
            f.write("{}")
        os.umask(0o077)
        with atomic_write(str(tmp_path / "b.json"), "w") as f:
            f.write("{}")
    finally:
        os.umask(old)
    assert _stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o644
    assert _stat.S_IMODE(os.stat(tmp_path / "b.json").st_mode) == 0o600


def test_read_bounded_refuses_folders_missing_and_large_files(tmp_path):
    from guandan import GuandanError
    from guandan._files import read_bounded
    (tmp_path / "x").write_bytes(b"12345")
    assert read_bounded(tmp_path / "x", 5, "thing", GuandanError) == b"12345"
    for p, limit, why in ((tmp_path / "x", 4, "more than"), (tmp_path, 10, "not a file"),
                          (tmp_path / "none", 10, "cannot read")):
        with pytest.raises(GuandanError, match=why):
            read_bounded(p, limit, "thing", GuandanError)
