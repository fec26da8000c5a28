import os
import sys

import pytest

# tests import the slow reference enumerator and helpers as plain modules
sys.path.insert(0, os.path.dirname(__file__))

# -- pytest-xdist (CI's debug and sanitizer stages run with ``-n auto``): the
# workers' fuzz counts, added up for the controller's report (fuzz_helpers)


def pytest_sessionfinish(session):
    out = getattr(session.config, "workeroutput", None)
    if out is not None and "fuzz_helpers" in sys.modules:         # an xdist worker
        from fuzz_helpers import ACCEPTED, TRIED
        out["fuzz_tried"], out["fuzz_accepted"] = dict(TRIED), dict(ACCEPTED)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    got = getattr(node, "workeroutput", None) or {}
    if got.get("fuzz_tried"):
        from fuzz_helpers import ACCEPTED, TRIED, FuzzReport
        TRIED.update(got["fuzz_tried"])
        ACCEPTED.update(got["fuzz_accepted"])
        pm = node.config.pluginmanager
        if not pm.has_plugin("guandan-fuzz-report"):
            pm.register(FuzzReport(), "guandan-fuzz-report")
