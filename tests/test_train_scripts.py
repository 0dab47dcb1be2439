"""The training scripts (train/): each one's ``--help`` works from the repository root, each is named in
train/README.md and its usage line runs itself, and no file under train/ names one machine's own folders."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "train"
SCRIPTS = sorted(p.name for p in TRAIN.glob("*.py"))
# Their networks subclass torch.nn.Module at module level, so even --help needs torch (the train extra).
NEEDS_TORCH = {"distill_fit.py", "dmc.py"}
HAS_TORCH = importlib.util.find_spec("torch") is not None

# An absolute path (/work/…, /tmp/…, /opt/…, /home/…: any "/name/" not inside a relative path or a URL),
# a home-relative one (~/…) or a Windows drive (C:\…).
ABSOLUTE = re.compile(r"(?<![\w.:/~-])/[A-Za-z_][\w.-]*/|(?<![\w])~/|\b[A-Za-z]:\\")


def runnable() -> list[str]:
    return [s for s in SCRIPTS if HAS_TORCH or s not in NEEDS_TORCH]


@pytest.fixture(scope="module")
def helps() -> dict[str, tuple[int, str]]:
    """``python train/X.py --help`` for every script that can run here, all at once (each imports the package)."""
    procs = {s: subprocess.Popen([sys.executable, f"train/{s}", "--help"], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True) for s in runnable()}
    return {s: (p.wait(timeout=60), p.stdout.read() if p.stdout else "") for s, p in procs.items()}


def test_there_are_scripts() -> None:
    assert {"distill.py", "distill_fit.py", "margin.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_works_from_the_repository_root(script: str, helps: dict[str, tuple[int, str]]) -> None:
    if script not in helps:
        pytest.skip(f"train/{script} imports torch at module level (pip install -e '.[train]')")
    rc, out = helps[script]
    assert rc == 0, out
    assert out.startswith(f"usage: {script}"), out
    assert "Traceback" not in out


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_usage_line_runs_the_script_itself(script: str) -> None:
    doc = ast.get_docstring(ast.parse((TRAIN / script).read_text()))
    assert doc, f"train/{script} has no docstring"
    commands = [line for line in doc.splitlines() if "python train/" in line]
    assert commands, f"train/{script}'s docstring has no usage line"
    assert any(f"python train/{script}" in c for c in commands), commands


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_readme_names_every_script(script: str) -> None:
    assert f"train/{script}" in (TRAIN / "README.md").read_text()


def test_the_pattern_finds_machine_paths_and_only_them() -> None:
    for bad in ("--out /work/distill-data/luzhou", "(/tmp/x/y.npz)", "`/opt/wheels/torch.whl`", "~/data/x",
                r"C:\data\x", "/home/me/daer"):
        assert ABSOLUTE.search(bad), bad
    for good in ("train/out/luzhou/data", "src/daer/bots/weights/luzhou.npz", "https://download.pytorch.org/whl/cpu",
                 "learned − heuristic / 2", "and/or", "../train/README.md", "train/out/{rules}/data"):
        assert not ABSOLUTE.search(good), good


def test_no_file_in_train_names_a_machine_path() -> None:
    files = [p for p in TRAIN.rglob("*") if p.is_file() and not {"out", "runs", "__pycache__"} & set(p.parts)]
    assert any(p.suffix == ".md" for p in files) and any(p.suffix == ".py" for p in files)
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in files
             for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if ABSOLUTE.search(line)]
    assert not found, "\n".join(found)
