"""Every example of README.md, CONTRIBUTING.md and docs/*.md runs as written.

Each fenced ```python block is executed, and each command of a ```sh / ```bash /
```console block that starts with ``guandan `` or ``python -m guandan`` is run
as a subprocess (``python -m guandan ...``), in document order, in one
temporary folder per document, as a script run with ``python FILE``
(``__name__`` is ``"__main__"``): a later block sees the names an earlier
``python`` block defined and the files an earlier command wrote (``guandan
replay game.json`` after ``guandan play ... --record game.json``).

An HTML comment on the line directly before a block changes what is done:

- ``<!-- example: slow (why) -->`` or ``<!-- example: skip (why) -->``: the
  block is not run (it takes minutes, needs a server, a network or a person
  at the keyboard); a python block must still compile, and every ``--option``
  of a command line must be one that ``guandan SUBCOMMAND --help`` lists.
- ``<!-- example: file NAME -->``: the block is also written to NAME in the
  document's folder (``mybots.py`` for ``guandan arena mybots:MyBot``).

Every example that runs must finish in seconds: shorten it (fewer deals)
rather than mark it slow.
"""

import os
import re
import shlex
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(REPO, "docs")
FENCE = re.compile(r"^```([\w-]*)\s*$")
MARK = re.compile(r"^<!--\s*example:\s*(slow|skip|file)\b\s*(.*?)\s*-->\s*$")
SHELLS = ("sh", "bash", "console", "shell")
RUN_LIMIT = 60.0      # seconds a block may take on a busy shared host (each takes at most ~10)


def _documents():
    names = ["README.md", "CONTRIBUTING.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(DOCS) if f.endswith(".md"))
    return [n for n in names if os.path.exists(os.path.join(REPO, n))]


def _blocks(name):
    """(line, language, text, mark, mark_arg) of every fenced block of a document."""
    lines = open(os.path.join(REPO, name), encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = MARK.match(lines[k].strip()) if k >= 0 else None
        out.append((start + 1, lang, "\n".join(lines[start + 1:j]) + "\n",
                    mark.group(1) if mark else None, mark.group(2) if mark else ""))
        i = j + 1
    return out


def _commands(text, lang):
    """The ``guandan`` command lines of a shell block, as argument lists after ``guandan``."""
    joined, cur = [], ""
    for line in text.split("\n"):
        if lang == "console":
            if not line.startswith("$ ") and not cur:
                continue
            line = line[2:] if line.startswith("$ ") else line
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        joined.append(cur + line)
        cur = ""
    cmds = []
    for line in joined:
        words = shlex.split(line, comments=True)
        while words:                    # each command of `a && b`
            cut = words.index("&&") if "&&" in words else len(words)
            cmd, words = words[:cut], words[cut + 1:]
            if cmd[:1] == ["guandan"]:
                cmds.append(cmd[1:])
            elif cmd[:3] == ["python", "-m", "guandan"]:
                cmds.append(cmd[3:])
    return cmds


EXAMPLES = []
for _doc in _documents():
    for _n, (_line, _lang, _text, _mark, _arg) in enumerate(_blocks(_doc)):
        if _lang == "python" or (_lang in SHELLS and _commands(_text, _lang)):
            EXAMPLES.append((_doc, _n, _line))


_STATE = {}       # document -> {"dir", "ns", "done": set of block indexes}


def _state(doc, tmp_path_factory):
    if doc not in _STATE:
        d = tmp_path_factory.mktemp(re.sub(r"\W", "_", doc))
        _STATE[doc] = {"dir": str(d), "ns": {"__name__": "__main__"}, "done": set()}
    return _STATE[doc]


_HELP = {}


def _help(sub):
    if sub not in _HELP:
        r = subprocess.run([sys.executable, "-m", "guandan", sub, "--help"], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, f"guandan {sub} --help: {r.stderr}"
        _HELP[sub] = r.stdout
    return _HELP[sub]


def _check_parses(where, lang, text):
    if lang == "python":
        compile(text, where, "exec")
        return
    for args in _commands(text, lang):
        assert args and not args[0].startswith("-"), f"{where}: guandan {' '.join(args)}"
        helptext = _help(args[0])
        for a in args[1:]:
            if a.startswith("--"):
                opt = a.split("=", 1)[0]
                assert re.search(re.escape(opt) + r"(?![\w-])", helptext), \
                    f"{where}: guandan {args[0]} has no option {opt}"


def _run(doc, index, state):
    line, lang, text, mark, arg = _blocks(doc)[index]
    where = f"{doc}:{line}"
    cwd = state["dir"]
    if mark == "file":
        with open(os.path.join(cwd, arg), "w", encoding="utf-8") as f:
            f.write(text)
    if mark in ("slow", "skip"):
        _check_parses(where, lang, text)
        return f"{mark}: {arg}"
    t0 = time.perf_counter()
    if lang == "python":
        from guandan import registry
        old, names = os.getcwd(), set(registry.policy_names())
        os.chdir(cwd)
        sys.path.insert(0, cwd)
        try:
            exec(compile(text, where, "exec"), state["ns"])
        finally:
            sys.path.remove(cwd)
            os.chdir(old)
            for name in set(registry.policy_names()) - names:
                registry.unregister(name)      # a policy an example registers is the example's own
    else:
        for args in _commands(text, lang):
            r = subprocess.run([sys.executable, "-m", "guandan", *args], cwd=cwd,
                               capture_output=True, text=True, timeout=RUN_LIMIT,
                               stdin=subprocess.DEVNULL)
            assert r.returncode == 0, \
                f"{where}: guandan {shlex.join(args)} exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    took = time.perf_counter() - t0
    assert took < RUN_LIMIT, f"{where} took {took:.0f} s: shorten it or mark it slow"
    return None


@pytest.mark.parametrize("doc,index,line", EXAMPLES, ids=[f"{d}:{ln}" for d, _, ln in EXAMPLES])
def test_doc_example_runs(doc, index, line, tmp_path_factory, capsys):
    state = _state(doc, tmp_path_factory)
    for n, (_, lang, text, _, _) in enumerate(_blocks(doc)[:index + 1]):
        runnable = lang == "python" or (lang in SHELLS and _commands(text, lang))
        if runnable and n not in state["done"]:
            state["done"].add(n)            # an earlier block that failed fails only its own test
            skipped = _run(doc, n, state)
            if n == index and skipped:
                pytest.skip(skipped)


def test_every_document_has_examples_found():
    docs = {d for d, _, _ in EXAMPLES}
    assert "README.md" in docs and os.path.join("docs", "search.md") in docs


def test_marks_sit_before_a_block():
    # a mark not directly followed by a fenced block would silently do nothing
    for doc in _documents():
        lines = open(os.path.join(REPO, doc), encoding="utf-8").read().split("\n")
        for i, text in enumerate(lines):
            if MARK.match(text.strip()):
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                assert j < len(lines) and FENCE.match(lines[j]), f"{doc}:{i + 1}: mark without a block"
            elif text.strip().startswith("<!-- example"):
                assert False, f"{doc}:{i + 1}: unknown example mark {text.strip()!r}"


def test_command_lines_are_read_as_a_shell_reads_them():
    text = ('guandan arena --engine name=x cmd="python a.py {url}" \\\n'
            '    greedy --deals 5   # a comment\npip install .\npython bench/perft.py\n')
    assert _commands(text, "sh") == [["arena", "--engine", "name=x", "cmd=python a.py {url}",
                                      "greedy", "--deals", "5"]]
    assert _commands("$ python -m guandan moves S3\n0  Single 3 S3\n", "console") == [["moves", "S3"]]
    assert _commands("pip install . && guandan simulate --deals 9   # x\n", "sh") == [["simulate", "--deals", "9"]]


def test_a_skipped_command_with_an_unknown_option_fails():
    with pytest.raises(AssertionError, match="no option --no-such-option"):
        _check_parses("here", "sh", "guandan simulate --no-such-option 3\n")
    _check_parses("here", "sh", "guandan simulate --deals 3 --workers 1\n")
