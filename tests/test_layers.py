"""The layers stay true: no import circle anywhere in ``src/``, and no import that goes up a layer.

Every import of every module counts — at the top, inside a function, and under ``TYPE_CHECKING`` — because a
circle that only the type checker sees is still two modules that cannot be read apart.  The graph is read from
the source (``ast``), not by importing, so a module that would fail to import is still checked.

The layers are those of ``docs/architecture.md``: a package may import only from layers strictly below its own,
so two packages of one layer are independent of each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(layer.split()) for layer in (
    "_native",  # which compiled modules run (daer/__init__ imports it first)
    "cards",
    "rules",
    "hands scoring",
    "mingtang settlement_work",
    "engine calculator",
    "bots store cluster",
    "env server",
    "cli",
    "__main__",
))
"""The packages (and top-level modules) of :mod:`daer`, bottom first."""

SERVER_LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(layer.split()) for layer in (
    "ops protocol",
    "safety",
    "social",
    "table players",
    "serving",
    "clubs",
    "tourney",
    "http",
))
"""The sub-packages of :mod:`daer.server`, bottom first (its ``__init__`` only names the app, lazily)."""


def module_names(src: Path) -> dict[str, Path]:
    """Every module under ``src`` by dotted name; a native module (``*.c``) counts as one."""
    names: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")) + sorted(src.rglob("*.c")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of ``known`` that module ``name`` imports (the longest known prefix of each import)."""
    if path.suffix != ".py":
        return

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            found = resolve(target)
            if found is not None and found != name:
                yield found


def graph(src: Path = SRC) -> dict[str, set[str]]:
    """Module → the modules it imports.  Importing ``a.b.c`` also runs the package ``a.b`` first: that edge is
    added too, unless ``a.b`` is a package of the importer itself (a package may hold modules that import
    their siblings)."""
    known = module_names(src)
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target in imports_of(name, path, known):
            edges[name].add(target)
            parent = target.rpartition(".")[0]
            while parent and parent in known and not name.startswith(parent + ".") and parent != name:
                edges[name].add(parent)
                parent = parent.rpartition(".")[0]
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer_of(name: str, prefix: str, layers: tuple[frozenset[str], ...]) -> int | None:
    """The layer of module ``name`` among the parts of ``prefix`` (None: not under it, or the prefix itself)."""
    if not name.startswith(prefix + "."):
        return None
    part = name[len(prefix) + 1:].split(".", maxsplit=1)[0]
    for i, layer in enumerate(layers):
        if part in layer:
            return i
    raise AssertionError(f"{prefix}.{part} is in no layer of tests/test_layers.py: place it in one")


def upward(edges: dict[str, set[str]], prefix: str, layers: tuple[frozenset[str], ...]) -> list[str]:
    """Imports between two parts of ``prefix`` that do not go strictly down a layer."""
    bad = []
    for name, targets in sorted(edges.items()):
        here = layer_of(name, prefix, layers)
        for target in sorted(targets):
            there = layer_of(target, prefix, layers)
            if here is None or there is None:
                continue
            same_part = name[len(prefix) + 1:].split(".")[0] == target[len(prefix) + 1:].split(".")[0]
            if not same_part and there >= here:
                bad.append(f"{name} -> {target}")
    return bad


def test_no_import_circle_in_src() -> None:
    assert circles(graph()) == []


def test_no_package_imports_up_or_across_a_layer() -> None:
    assert upward(graph(), "daer", LAYERS) == []


def test_no_server_part_imports_up_or_across_a_layer() -> None:
    assert upward(graph(), "daer.server", SERVER_LAYERS) == []


def test_every_package_has_a_layer() -> None:
    for name in graph():
        layer_of(name, "daer", LAYERS)
        layer_of(name, "daer.server", SERVER_LAYERS)


@pytest.mark.parametrize(("files", "expected"), [
    # a circle through a function-level import and one under TYPE_CHECKING are both circles
    ({"p/__init__.py": "", "p/a.py": "def f():\n    from p import b\n", "p/b.py": "import p.a\n"},
     [["p.a", "p.b"]]),
    ({"p/__init__.py": "", "p/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import X\n",
      "p/b.py": "from p.a import Y\n"}, [["p.a", "p.b"]]),
    # a relative import resolves like an absolute one
    ({"p/__init__.py": "", "p/a.py": "from . import b\n", "p/b.py": "from .a import Y\n"}, [["p.a", "p.b"]]),
    # importing a module runs its package first: a package that imports its importer is a circle
    ({"p/__init__.py": "from q.c import Z\n", "p/a.py": "", "q/__init__.py": "", "q/c.py": "from p.a import Y\n"},
     [["p", "q.c"]]),
    # a package importing its own modules, which import each other one way, is not a circle
    ({"p/__init__.py": "from p.a import X\n", "p/a.py": "from p.b import Y\n", "p/b.py": ""}, []),
])
def test_the_checker_finds_circles(tmp_path: Path, files: dict[str, str], expected: list[list[str]]) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert circles(graph(tmp_path)) == expected


def test_the_checker_finds_an_import_up_a_layer(tmp_path: Path) -> None:
    files = {"daer/__init__.py": "", "daer/cards.py": "from daer.rules import model\n", "daer/rules/__init__.py": "",
             "daer/rules/model.py": "", "daer/hands.py": "import daer.scoring\n", "daer/scoring.py": ""}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert upward(graph(tmp_path), "daer", LAYERS) == [
        "daer.cards -> daer.rules", "daer.cards -> daer.rules.model", "daer.hands -> daer.scoring"]
