"""Build hook for the optional native parts; everything else is in pyproject.toml.

Two accelerators, both optional (without a compiler daer installs and runs as pure Python, the same rules):

- ``daer.hands._fasthand``: the 胡 search in C;
- the engine's hot modules (:data:`NATIVE`) compiled with mypyc (mypy's compiler of type-annotated Python, a
  build requirement): the same source, run as C.  ``src/daer/_native.json`` records each one's source hash, and
  ``daer/_native.py`` (at ``import daer``) runs the source instead when a compiled module no longer matches it (an
  edit since the build), or with ``DAER_MYPYC=0`` or ``DAER_PURE_PYTHON=1``.  ``DAER_PURE_PYTHON=1`` at build time
  skips compiling them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import Extension, setup

NATIVE = [
    "daer/engine/state.py",
    "daer/engine/claims.py",
    "daer/engine/wei.py",
    "daer/engine/penalty.py",
    "daer/engine/instant.py",
    "daer/engine/world.py",
    "daer/bots/heuristic.py",
]
"""The modules compiled with mypyc: the engine's step (``GameState``), its claims, 偎, penalties and instant wins, the
search's sampled worlds, and the heuristic bot (the search's rollouts and every server-side bot move).  None defines
a msgspec struct (mypyc does not compile them)."""

SRC = Path(__file__).resolve().parent / "src"


def native_extensions() -> list[Extension]:
    """The mypyc extensions of :data:`NATIVE` (none with ``DAER_PURE_PYTHON=1`` or without mypyc), and their
    manifest."""
    manifest = SRC / "daer" / "_native.json"
    manifest.unlink(missing_ok=True)
    exts = [] if os.environ.get("DAER_PURE_PYTHON") else mypyc_extensions()
    if not exts:
        # an earlier build in place (pip install -e) left its extensions in src/: with no manifest nothing would
        # tell them stale, so a build that does not compile removes them
        for pattern in [f"{path[:-3]}.*.so" for path in NATIVE] + ["daer_native__mypyc.*.so"]:
            for old in SRC.glob(pattern):
                old.unlink()
        return []
    manifest.write_text(json.dumps({
        path[:-3].replace("/", "."): hashlib.sha256((SRC / path).read_bytes()).hexdigest() for path in NATIVE
    }, indent=1) + "\n")
    return exts


def mypyc_extensions() -> list[Extension]:
    """mypyc's extensions of :data:`NATIVE` (the shared library ``daer_native__mypyc`` and one per module), or
    none where mypyc is missing or fails."""
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 -- optional: a build without mypy stays pure Python
    except ImportError:
        return []
    try:
        exts: list[Extension] = mypycify([f"src/{path}" for path in NATIVE], opt_level="3", group_name="daer_native")
    except (Exception, SystemExit) as e:  # mypy's errors end it with SystemExit: install the source instead
        print(f"daer: not compiling {', '.join(NATIVE)} ({e!r}); they run from source", file=sys.stderr)
        return []
    for ext in exts:
        ext.optional = True  # a failed compile leaves the source to run (daer/_native.py checks what was built)
    return exts


setup(
    ext_modules=[
        Extension(
            "daer.hands._fasthand",
            ["src/daer/hands/_fasthand.c"],
            optional=True,  # no compiler: daer installs and runs on its pure-Python search
            extra_compile_args=["-O2"],
        ),
        *native_extensions(),
    ]
)
