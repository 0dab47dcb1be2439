"""Which of the compiled modules run compiled: never one whose source has changed since it was built.

``setup.py`` compiles a few hot modules with mypyc (its ``NATIVE``) and writes ``_native.json``: each one's name
and the SHA-256 of the source it was built from.  A compiled module shadows its ``.py`` on import, so an edit
made after the build would silently not run; and compiled modules call each other directly, so one stale module
cannot be swapped alone.  So when any compiled module's source no longer matches its hash (or ``DAER_PURE_PYTHON=1``
or ``DAER_MYPYC=0`` is set: to compare both in one session, to go on with a measurement clocked on the source, or to
step through the engine in a debugger), a finder at the front of
``sys.meta_path`` loads every one of them from its source, and a stale build is warned about once.

Runs at ``import daer``, before any of those modules is imported (this module must never be compiled itself).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent
"""The ``daer`` package's folder."""


class SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the named modules from their ``.py`` files, never from a compiled extension beside them."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


GROUP = "daer_native__mypyc"
"""The library that holds the compiled code of every module (``setup.py``'s ``group_name``, beside the package); each
compiled module's own extension only loads its part from it."""


def built(root: Path = ROOT) -> dict[str, str]:
    """The compiled modules recorded by the build, each with its source's hash at the build (none: not built)."""
    try:
        recorded = json.loads((root / "_native.json").read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in recorded.items()} if isinstance(recorded, dict) else {}


def source_of(name: str, root: Path = ROOT) -> Path:
    """A module's ``.py`` file (``daer.engine.state`` → ``ROOT/engine/state.py``)."""
    return root.joinpath(*name.split(".")[1:]).with_suffix(".py")


def has_extension(name: str, root: Path = ROOT) -> bool:
    """A compiled extension of the module lies beside its source."""
    source = source_of(name, root)
    return any(source.with_suffix(suffix).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def has_library(root: Path = ROOT) -> bool:
    """The compiled modules' shared library (:data:`GROUP`) lies beside the package."""
    return any((root.parent / (GROUP + suffix)).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def stale(recorded: dict[str, str], root: Path = ROOT) -> list[str]:
    """The compiled modules whose source differs from what they were built from (or is gone)."""
    out = []
    for name, digest in recorded.items():
        try:
            now = hashlib.sha256(source_of(name, root).read_bytes()).hexdigest()
        except OSError:
            now = ""
        if now != digest:
            out.append(name)
    return out


def compiled(root: Path = ROOT, *, pure: bool | None = None,
             meta_path: list[importlib.abc.MetaPathFinder] | None = None) -> tuple[str, ...]:
    """Arrange the imports of the compiled modules and return those that will run compiled.

    ``pure``: run every one from its source (default: ``DAER_PURE_PYTHON=1``, which also turns the C 胡 search
    off, or ``DAER_MYPYC=0``, only these, in the environment); ``meta_path``: where the :class:`SourceFinder` goes
    when they run from source (default: ``sys.meta_path``).
    """
    recorded = {name: digest for name, digest in built(root).items() if has_extension(name, root)}
    if not recorded:
        return ()
    if pure is None:
        pure = bool(os.environ.get("DAER_PURE_PYTHON")) or os.environ.get("DAER_MYPYC") == "0"
    changed = [] if pure else stale(recorded, root)
    if changed:
        warnings.warn(f"daer: {', '.join(changed)} changed since it was compiled; running every compiled module "
                      "from its source (rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=2)
    elif not pure and not has_library(root):
        changed = sorted(recorded)
        warnings.warn(f"daer: the compiled modules' library ({GROUP}) is missing; running every compiled module "
                      "from its source (rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=2)
    if pure or changed:
        finders = sys.meta_path if meta_path is None else meta_path
        if not any(isinstance(f, SourceFinder) for f in finders):
            finders.insert(0, SourceFinder({name: source_of(name, root) for name in recorded}))
        return ()
    return tuple(sorted(recorded))
