"""The docs in the repository: present, linked from the README, no path
outside the repository."""

import os
import re


import guandan

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))


# -- docs in the repository --------------------------------------------------------------

def test_docs_exist_and_readme_links_them():
    for name in ("rules.md", "protocol.md", "benchmarks.md"):
        assert os.path.getsize(os.path.join(REPO, "docs", name)) > 2000
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    assert "../shared" not in readme
    for name in ("docs/rules.md", "docs/protocol.md", "docs/benchmarks.md"):
        assert f"({name}" in readme
    lic = open(os.path.join(REPO, "LICENSE"), encoding="utf-8").read()
    assert lic.startswith("MIT License")
    import tomllib
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        meta = tomllib.load(f)["project"]
    assert meta["license"]["text"] == "MIT" and meta["urls"]
    repo = "https://github.com/guandan-engine/guandan"
    assert {"Homepage", "Repository", "Documentation", "Issues"} <= set(meta["urls"])
    assert all(u == repo or u.startswith(repo + "/") for u in meta["urls"].values()), meta["urls"]
    assert meta["urls"]["Documentation"].endswith("/docs") and meta["keywords"]
    assert "Typing :: Typed" in meta["classifiers"]
    assert "tqdm" in " ".join(meta["dependencies"])


def test_no_source_cites_the_shared_folder():
    hits = []
    for root in ("src", "bench", "tests"):
        for dirpath, _, files in os.walk(os.path.join(REPO, root)):
            for f in files:
                if f.endswith((".py", ".pyx", ".pxd", ".md")) and f != os.path.basename(__file__):
                    text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                    if re.search(r"\bRULES\.md|\bPROTOCOL\.md|\bANCHORS\.md", text):
                        hits.append(os.path.join(dirpath, f))
    assert not [h for h in hits if "/src/" in h], hits


def test_readme_explains_what_a_new_user_asks():
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    for needle in ("95% interval", "banker", "98%", "info[\"legal_moves\"]", "(n, 4)", "108",
                   "observation dict", "can be 0"):
        assert needle in readme, needle


def test_vecgame_docstring_says_rewards_can_be_0():
    import guandan.vec as vec
    doc = " ".join(vec.__doc__.split())
    assert "can be 0" in doc and "(n, 4)" in doc
