"""The docs in the repository: present, linked from the README, no path
outside the repository."""

import glob
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


# -- the docs as a guide: indexed, linked, no broken links, no diary ---------------------

def _user_docs():
    names = ["README.md", "CHANGELOG.md", "CONTRIBUTING.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".md"))
    return [n for n in names if os.path.exists(os.path.join(REPO, n))]


def _text(name):
    return open(os.path.join(REPO, name), encoding="utf-8").read()


def _prose(text):
    """The text without its fenced blocks and inline code (links and words only)."""
    text = re.sub(r"(?ms)^```.*?^```", "", text)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def _anchors(name):
    seen, out = {}, set()
    for m in re.finditer(r"(?m)^#{1,6} (.+?)\s*#*\s*$", re.sub(r"(?ms)^```.*?^```", "", _text(name))):
        s = _slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    out.update(re.findall(r'<a (?:id|name)="([^"]+)"', _text(name)))
    return out


def test_docs_index_lists_every_doc():
    index = _text(os.path.join("docs", "README.md"))
    for f in sorted(os.listdir(os.path.join(REPO, "docs"))):
        if f.endswith(".md") and f != "README.md":
            assert f"]({f})" in index, f"docs/README.md does not list {f}"


def test_every_relative_link_and_anchor_resolves():
    bad = []
    for name in _user_docs():
        base = os.path.dirname(name)
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(_text(name))):
            if re.match(r"[a-z]+:", target):
                continue                                 # http:, mailto:
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, path)) if path else name
            if not os.path.exists(os.path.join(REPO, dest)):
                bad.append(f"{name}: {target} (no file {dest})")
            elif anchor and dest.endswith(".md") and anchor not in _anchors(dest):
                bad.append(f"{name}: {target} (no heading #{anchor} in {dest})")
    assert not bad, "\n".join(bad)


USER_FILES = {"mybots.py", "mybot.py", "client.py", "my_module.py", "game.json", "model.npz",
              "results.npz", "result.json", "mybot.json", "r.png"}
EXTERNAL_FILES = {"LLRcalc.py"}      # cited from other projects (fishtest)


def test_no_reference_to_a_file_that_does_not_exist():
    bad = []
    tops = ("src/", "tests/", "bench/", "docs/", ".ci/")
    for name in _user_docs():
        text = _text(name)
        for ref in set(re.findall(r"[\w./*-]+\.(?:md|pyx|pxd|py|toml|h|txt|sh)\b", text)):
            ref = ref.rstrip(".")
            if ref in USER_FILES or "://" in ref or ref.startswith(("guandan.", "/")):
                continue
            if not (ref.startswith(tops) or ref.endswith(".md")):
                continue
            base = os.path.dirname(name)
            cands = [os.path.join(REPO, ref), os.path.join(REPO, base, ref),
                     os.path.join(REPO, "docs", ref)]
            if not any(glob.glob(c) for c in cands):
                bad.append(f"{name}: {ref}")
        # files named alone (`_engine.pyx`, `game.py`, `setup.py`) are in the repository
        for ref in set(re.findall(r"(?<![\w/.-])(\w+\.(?:pyx|pxd|py))\b", text)):
            if ref in USER_FILES or ref in EXTERNAL_FILES:
                continue
            if not (os.path.exists(os.path.join(REPO, ref)) or any(
                    glob.glob(os.path.join(REPO, top, "**", ref), recursive=True)
                    for top in ("src", "tests", "bench"))):
                bad.append(f"{name}: {ref}")
    assert not bad, "\n".join(sorted(bad))


DIARY = [
    (r"\b20\d\d-\d\d\b", "a dated run"),
    (r"\bthis session\b", "a session note"),
    (r"\b[Ii]ssues? #?\d+\b", "an issue number"),
    (r"(?<![\w&])#\d+\b", "an issue number"),
    (r"\bTODO\b|\bFIXME\b|\bXXX\b", "a to-do note"),
    (r"\b[Dd]raft\b", "a draft"),
]


def test_no_development_diary_in_user_docs():
    bad = []
    for name in _user_docs():
        text = _text(name)
        if name == "CHANGELOG.md":      # a version's date is the changelog's own
            text = re.sub(r"(?m)^## \[.*$", "", text)
        for n, line in enumerate(text.split("\n"), 1):
            for pattern, what in DIARY:
                # `#2` in code is a name, not an issue
                if re.search(pattern, line if what != "an issue number" else re.sub(r"`[^`]*`", "", line)):
                    bad.append(f"{name}:{n}: {what}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)


def test_glossary_terms_are_linked_from_readme():
    readme = _text("README.md")
    glossary = _anchors(os.path.join("docs", "glossary.md"))
    for term in ("banker", "duplicate-deals", "los", "sprt", "pentanomial", "determinized-search", "perft"):
        assert term in glossary, term
        assert f"docs/glossary.md#{term})" in readme, term
    assert "(docs/guandan-in-five-minutes.md)" in readme


def test_readme_quick_start_is_two_commands_from_the_clone():
    readme = _text("README.md")
    qs = readme[readme.index("## Quick start"):]
    qs = qs[:qs.index("\n## ", 5)]
    block = re.search(r"(?s)```sh\n(.*?)```", qs).group(1)
    lines = [ln for ln in block.split("\n") if ln.strip()]
    assert len(lines) == 2, lines
    assert "'.[server]'" in lines[0] or '".[server]"' in lines[0]
    assert "pytest" in lines[1]
    for name in _user_docs():
        assert not re.search(r"pip install [\"']?guandan\b", _text(name)), name   # PyPI's guandan is another project
    assert "## Building" in readme and "GUANDAN_SANITIZE" not in qs
