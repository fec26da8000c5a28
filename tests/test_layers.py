"""The package's layers import only downward, and each native module is
reached only through its front door.

Layers, bottom up (docs/ARCHITECTURE.md draws them):

0. native modules (``_core``, ``_engine``, ...);
1. values: errors, checks, rules, seeds, the policy-name registry;
2. moves: cards, moves, positions, the state's value types, records, words;
3. ``game``;
4. ``policies``;
5. ``search``;
6. ``simulation``, ``vec``;
7. outer: bots, env, the terminal table, the feed, the server, the web
   table, the arena, learned policies (``rl``);
8. the CLI and the package's ``__init__``.

Every import counts, at module level or inside a function, except those
in the body of ``if TYPE_CHECKING:`` (annotations only; its ``else`` runs):
relative ones at any level, ``import guandan.x as y``, a name imported from
the package (``from guandan import Game``, ``from . import Game``: the
package's ``__init__``, the top layer) and ``importlib.import_module`` /
``__import__`` of a constant name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "guandan"

LAYERS = {
    "_aio": 1, "_checks": 1, "_files": 1, "errors": 1, "rules": 1, "seeds": 1, "registry": 1,
    "moves": 2, "positions": 2, "state": 2, "records": 2, "words": 2,
    "game": 3,
    "policies": 4,
    "search": 5,
    "simulation": 6, "vec": 6,
    "bots": 7, "env": 7, "rl": 7, "play": 7, "feed": 7, "server": 7, "web": 7, "arena": 7,
    "cli": 8, "__main__": 8, "__init__": 8,
}

# native module -> the Python modules that may import it (its front doors)
FRONT_DOORS = {
    "_core": {"moves", "positions", "game", "policies", "search", "__init__"},
    "_gen": set(),
    "_contest": {"moves"},
    "_engine": {"rules", "seeds", "game", "policies", "search"},
    "_expert": {"policies"},
    "_search": {"search"},
    "_solve": {"search"},
    "_sim": {"seeds", "simulation"},
    "_vec": {"vec"},
    "_bench": set(),
}


def _modules():
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG).with_suffix("")
        yield ".".join(rel.parts), p


def _top(dotted: str) -> str:
    return dotted.split(".")[0]


def _is_type_checking(test):
    return getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == "TYPE_CHECKING"


def _under_type_checking(node, parents):
    """Whether ``node`` (below ``parents``, outermost first) is in the body
    of an ``if TYPE_CHECKING:`` (its ``else`` runs)."""
    chain = parents + [node]
    for i, p in enumerate(parents):
        if isinstance(p, ast.If) and _is_type_checking(p.test) and any(chain[i + 1] is b for b in p.body):
            return True
    return False


def _is_module(parts):
    """Whether ``parts`` (below the package) name a module or subpackage."""
    p = PKG.joinpath(*parts)
    return (p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()
            or p.with_suffix(".pyx").is_file())


def _resolve(parts, line):
    """The layer table's name of the module ``parts`` (below the package)
    an import reaches: its top-level module, ``__init__`` for the package
    itself (a name imported from the package's ``__init__``)."""
    if not parts:
        return ("__init__", line)
    return (parts[0], line)


def _imports(path: Path, modname: str, source: str = None):
    """(imported top-level guandan module, line) for every import in a file
    (``source`` instead of the file's text, for the checker's own tests)."""
    tree = ast.parse(path.read_text() if source is None else source, str(path))
    pkg_parts = modname.split(".")[:-1]      # the package a relative import starts from
    out = []

    def visit(node):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:             # the else branch runs
                visit(child)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "guandan" or a.name.startswith("guandan."):
                    out.append(_resolve(a.name.split(".")[1:], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module.split(".") if node.module else []
            if node.level:                        # relative: from . / .. import
                base = pkg_parts[:len(pkg_parts) - (node.level - 1)] if node.level > 1 else pkg_parts
            elif mod and mod[0] == "guandan":
                base, mod = [], mod[1:]
            else:
                base = None
            if base is not None and mod:
                out.append(_resolve(base + mod, node.lineno))
            elif base is not None:                # from <package> import a, b: modules or its names
                for a in node.names:
                    target = base + [a.name]
                    out.append(_resolve(target if _is_module(target) else base, node.lineno))
        elif isinstance(node, ast.Call):          # importlib.import_module("guandan.x") / __import__
            f = node.func
            fname = getattr(f, "attr", None) or getattr(f, "id", None)
            if fname in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                name = node.args[0].value
                if name.startswith("."):
                    level = len(name) - len(name.lstrip("."))
                    base = pkg_parts[:len(pkg_parts) - (level - 1)] if level > 1 else pkg_parts
                    rest = name.lstrip(".")
                    out.append(_resolve(base + (rest.split(".") if rest else []), node.lineno))
                elif name == "guandan" or name.startswith("guandan."):
                    out.append(_resolve(name.split(".")[1:], node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _layer(mod: str) -> int:
    return 0 if mod in FRONT_DOORS else LAYERS[mod]


def test_every_module_has_a_layer():
    tops = {_top(m) for m, _ in _modules()}
    assert tops <= set(LAYERS), f"modules without a layer: {sorted(tops - set(LAYERS))}"
    natives = {p.stem for p in PKG.glob("_*.pyx")}
    assert natives <= set(FRONT_DOORS), f"native modules without front doors: {sorted(natives - set(FRONT_DOORS))}"


@pytest.mark.parametrize("modname,path", list(_modules()), ids=[m for m, _ in _modules()])
def test_imports_go_downward(modname, path):
    own = _top(modname)
    me = LAYERS[own]
    wrong = []
    for target, line in _imports(path, modname):
        if target == own or target not in LAYERS and target not in FRONT_DOORS:
            continue
        if _layer(target) > me:
            wrong.append(f"line {line}: {own} (layer {me}) imports {target} (layer {_layer(target)})")
        if target in FRONT_DOORS and own not in FRONT_DOORS[target]:
            wrong.append(f"line {line}: {own} imports the native {target}, whose front doors are "
                         f"{sorted(FRONT_DOORS[target])}")
    assert not wrong, "\n".join(wrong)


def test_the_checker_sees_imports():
    """The checker itself: relative, absolute and function-level imports are
    all seen; TYPE_CHECKING imports are not."""
    found = dict(_imports(PKG / "game.py", "game"))
    assert "moves" in found and "_engine" in found and "registry" in found
    assert "search" not in found and "policies" not in found
    found = {t for t, _ in _imports(PKG / "server" / "table.py", "server.table")}
    assert "policies" in found and "_files" in found


# Inside the server package, bottom up: each module imports only those before it.
SERVER_ORDER = ["messages", "connections", "seats", "table", "listener", "__init__"]


def _sibling_imports(path: Path):
    """(sibling module, line) for every ``from .X import`` / ``from . import X``
    in a file, TYPE_CHECKING imports excepted."""
    out = []

    def visit(node, parents):
        if (isinstance(node, ast.ImportFrom) and node.level == 1
                and not _under_type_checking(node, parents)):
            if node.module:
                out.append((node.module.split(".")[0], node.lineno))
            else:
                out.extend((a.name, node.lineno) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, parents + [node])

    visit(ast.parse(path.read_text(), str(path)), [])
    return out


def test_server_modules_import_one_way():
    files = {p.stem for p in (PKG / "server").glob("*.py")}
    assert files == set(SERVER_ORDER), f"server modules not in SERVER_ORDER: {sorted(files ^ set(SERVER_ORDER))}"
    wrong = []
    for i, name in enumerate(SERVER_ORDER):
        for target, line in _sibling_imports(PKG / "server" / f"{name}.py"):
            if target in SERVER_ORDER and SERVER_ORDER.index(target) >= i:
                wrong.append(f"server/{name}.py line {line} imports .{target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("modname,source,expected", [
    # absolute, aliased, package-level and function-level imports
    ("game", "import guandan.search as s\n", "search"),
    ("game", "import guandan\n", "__init__"),
    ("game", "from guandan import search\n", "search"),
    ("game", "from guandan import Game\n", "__init__"),         # a name of the package's __init__
    ("game", "from guandan.search import explain\n", "search"),
    ("game", "def f():\n    from .search import explain\n", "search"),
    # relative imports with levels, from a module and from a subpackage
    ("game", "from . import search\n", "search"),
    ("game", "from . import get_policy\n", "__init__"),
    ("server.table", "from .. import search\n", "search"),
    ("server.table", "from ..search import explain\n", "search"),
    ("server.table", "from .. import Game\n", "__init__"),
    ("server.table", "from . import seats\n", "server"),
    # a runtime branch of TYPE_CHECKING counts; dynamic imports by name count
    ("game", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n"
             "    from .search import explain\n", "search"),
    ("game", "import typing\nif typing.TYPE_CHECKING:\n    pass\nelif True:\n    import guandan.cli\n", "cli"),
    ("game", "import importlib\nm = importlib.import_module('guandan.search')\n", "search"),
    ("game", "import importlib\nm = importlib.import_module('.simulation', 'guandan')\n", "simulation"),
])
def test_the_checker_sees_every_form_of_import(modname, source, expected):
    assert expected in {t for t, _ in _imports(PKG / "x.py", modname, source)}


def test_the_checker_skips_only_the_type_checking_branch():
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .search import SearchResult\n"
           "    import guandan.cli\n")
    assert not {t for t, _ in _imports(PKG / "x.py", "game", src)} & {"search", "cli"}


# what a native module may import of the package's Python modules (below every layer)
NATIVE_MAY_IMPORT = {"errors"}


@pytest.mark.parametrize("path", sorted(PKG.glob("_*.pyx")), ids=lambda p: p.stem)
def test_native_modules_import_only_errors_and_natives(path):
    """A native module is the bottom layer: of the Python modules it imports
    (``import`` / ``from ... import`` lines, at any indentation; ``cimport``
    is C-level) only ``errors``; other native modules are fine."""
    import re
    wrong = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r"\s*(?:from\s+(\.+|guandan\.)(\w+)\s+import\b|import\s+guandan\.(\w+))", line)
        if m:
            target = m.group(2) or m.group(3)
            if target not in FRONT_DOORS and target not in NATIVE_MAY_IMPORT:
                wrong.append(f"line {n}: {path.stem} imports {target}")
    assert not wrong, "\n".join(wrong)
