"""The engine's modules compiled with mypyc (setup.py's ``NATIVE``): the same play as their source, and never run
once their source has changed since the build."""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import daer
from daer import _native
from daer.engine import state

ROOT = Path(__file__).resolve().parents[1]
DIGEST = ROOT / "tests" / "native_digest.py"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def run_digest(*, pure: bool) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("DAER_PURE_PYTHON", "DAER_MYPYC")}
    if pure:
        env["DAER_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, str(DIGEST)], env=env, capture_output=True, text=True, check=True,
                         timeout=240)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_install_runs_the_engine_compiled() -> None:
    # the README's install compiles them (mypy is a build requirement); DAER_PURE_PYTHON=1 runs the source
    if os.environ.get("DAER_PURE_PYTHON") or os.environ.get("DAER_MYPYC") == "0":
        assert daer.COMPILED == ()
        return
    assert "daer.engine.state" in daer.COMPILED, (
        "the engine is not compiled: rebuild with `pip install -e .` (or a compiled module's source changed "
        "since the build; see the warning at import)")
    assert str(state.__file__).endswith(SUFFIX)


def test_compiled_and_pure_play_the_same_hands() -> None:
    """Reproducible: a seed's hands, and a search's choices, are the same compiled or from source."""
    if not daer.COMPILED:
        pytest.skip("nothing compiled in this install (DAER_PURE_PYTHON=1 or built without mypyc)")
    native, pure = run_digest(pure=False), run_digest(pure=True)
    assert native["compiled"] == list(daer.COMPILED)
    assert pure["compiled"] == []
    assert native["digest"] == pure["digest"]


def fake_build(tmp_path: Path, names: dict[str, str]) -> Path:
    """A package folder with the modules' sources, an extension file beside each, and the build's manifest."""
    root = tmp_path / "daer"
    for name, text in names.items():
        source = _native.source_of(name, root)
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(text)
        source.with_suffix(SUFFIX).write_bytes(b"")
    (tmp_path / (_native.GROUP + SUFFIX)).write_bytes(b"")  # the shared library, beside the package
    (root / "_native.json").write_text(json.dumps(
        {name: hashlib.sha256(text.encode()).hexdigest() for name, text in names.items()}))
    return root


def test_an_unchanged_build_runs_compiled(tmp_path: Path) -> None:
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n", "daer.bots.heuristic": "y = 2\n"})
    finders: list[importlib.abc.MetaPathFinder] = []
    assert _native.compiled(root, pure=False, meta_path=finders) == ("daer.bots.heuristic", "daer.engine.state")
    assert finders == []


def test_an_edited_module_sends_every_compiled_module_to_its_source(tmp_path: Path) -> None:
    """Compiled modules call each other directly: one stale module makes all of them run from source."""
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n", "daer.bots.heuristic": "y = 2\n"})
    (root / "engine" / "state.py").write_text("x = 3  # edited after the build\n")
    finders: list[importlib.abc.MetaPathFinder] = []
    with pytest.warns(RuntimeWarning, match=r"daer\.engine\.state changed since it was compiled"):
        assert _native.compiled(root, pure=False, meta_path=finders) == ()
    assert len(finders) == 1
    for name, path in (("daer.engine.state", "engine/state.py"), ("daer.bots.heuristic", "bots/heuristic.py")):
        spec = finders[0].find_spec(name, None)
        assert spec is not None and spec.origin == str(root / path)
    assert finders[0].find_spec("daer.engine.views", None) is None  # never compiled: the usual import


def test_pure_runs_the_source_without_a_warning(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n"})
    finders: list[importlib.abc.MetaPathFinder] = []
    assert _native.compiled(root, pure=True, meta_path=finders) == ()
    assert len(finders) == 1 and not recwarn.list
    assert _native.compiled(root, pure=True, meta_path=finders) == () and len(finders) == 1  # added once


def test_a_module_without_its_extension_is_not_compiled(tmp_path: Path) -> None:
    """A compile that failed (the extensions are optional) leaves that module's source to run."""
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n", "daer.engine.wei": "z = 1\n"})
    (root / "engine" / ("wei" + SUFFIX)).unlink()
    assert _native.compiled(root, pure=False, meta_path=[]) == ("daer.engine.state",)
    assert _native.compiled(tmp_path / "nowhere", pure=False, meta_path=[]) == ()  # no manifest: nothing built


@pytest.mark.parametrize(("variable", "value"), [("DAER_PURE_PYTHON", "1"), ("DAER_MYPYC", "0")])
def test_the_environment_chooses_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str,
                                            value: str) -> None:
    """``DAER_MYPYC=0`` runs these modules from source and keeps the C 胡 search (a measurement clocked on the
    source goes on the same); ``DAER_PURE_PYTHON=1`` turns both off."""
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n"})
    monkeypatch.delenv("DAER_PURE_PYTHON", raising=False)
    monkeypatch.delenv("DAER_MYPYC", raising=False)
    assert _native.compiled(root, meta_path=[]) == ("daer.engine.state",)
    monkeypatch.setenv(variable, value)
    finders: list[importlib.abc.MetaPathFinder] = []
    assert _native.compiled(root, meta_path=finders) == () and len(finders) == 1


def test_modules_without_their_shared_library_run_from_source(tmp_path: Path) -> None:
    """Each compiled module only loads its code from the shared library: without it, importing one would fail."""
    root = fake_build(tmp_path, {"daer.engine.state": "x = 1\n"})
    (tmp_path / (_native.GROUP + SUFFIX)).unlink()
    finders: list[importlib.abc.MetaPathFinder] = []
    with pytest.warns(RuntimeWarning, match="daer_native__mypyc\\) is missing"):
        assert _native.compiled(root, pure=False, meta_path=finders) == ()
    assert len(finders) == 1 and finders[0].find_spec("daer.engine.state", None) is not None
