"""daer — the open engine and calculator of 大贰 (Da Er), the Sichuan paper-card game."""

from daer._native import compiled

__version__ = "0.2.0"

COMPILED: tuple[str, ...] = compiled()
"""The modules running compiled (mypyc, built by ``setup.py``); the rest, and all of them after an edit of one
since the build or with ``DAER_PURE_PYTHON=1``, run from their source."""
