"""Every docstring example of the public modules runs (against the installed package)."""

import doctest
import importlib
import os
import tempfile

import pytest

MODULES = ["guandan", "guandan._core", "guandan._checks", "guandan._files", "guandan.errors", "guandan.moves",
           "guandan.rules", "guandan.registry", "guandan.seeds", "guandan.state", "guandan.positions",
           "guandan.records", "guandan.game", "guandan.policies", "guandan.simulation", "guandan.vec", "guandan.bots",
           "guandan.server", "guandan.search", "guandan.cli", "guandan.arena", "guandan.arena.stats",
           "guandan.arena.schedule", "guandan.arena.participants", "guandan.feed", "guandan.web.messages",
           "guandan.web.views", "guandan.rl", "guandan.rl.checkpoint", "guandan.rl.danzero", "guandan.rl.net",
           "guandan.words"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, tmp_path, monkeypatch):
    # every temporary file or folder an example makes is removed by the example
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0, f"{res.failed} doctest failures in {name}"
    assert os.listdir(tmp_path) == [], f"the examples of {name} leave {os.listdir(tmp_path)} behind"
