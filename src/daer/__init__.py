"""daer — the open engine and calculator of 大贰 (Da Er), the Sichuan paper-card game."""

__version__ = "0.2.0"
