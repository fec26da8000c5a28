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
