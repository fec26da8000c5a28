"""The code examples of docs/ run as written."""

import os
import re

import pytest

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")


def _blocks(name):
    path = os.path.join(DOCS, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} is not in this checkout")
    return re.findall(r"```python\n(.*?)```", open(path, encoding="utf-8").read(), re.S)


def test_search_doc_own_search_example(capsys):
    block = next(b for b in _blocks("search.md") if "def my_search" in b)
    exec(compile(block, "docs/search.md", "exec"), {"__name__": "docs_example"})
    out = capsys.readouterr().out.strip()
    assert out                       # the chosen move
