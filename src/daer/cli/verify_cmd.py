"""``daer verify RECORD``: check a hand's verifiable deal (公平发牌) — the seed against the commitment, the deck."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from daer.engine import RecordError, loads
from daer.engine.fairness import check


def verify(
    record: Annotated[Path, typer.Argument(help="牌谱文件 record file (JSON, /api/rooms/CODE/hands/N/record)")],
    *,
    lang: Annotated[str, typer.Option(help="zh / en")] = "zh",
) -> None:
    """验证发牌 — check that a hand was dealt from the seed committed to before the deal.

    Exit status 0 when the seed hashes to the published commitment and the deck follows from the seed and
    the seats' entropy; 1 when not, or when the record cannot be read or carries no verifiable deal.
    """
    console = Console(highlight=False)
    en = lang == "en"
    try:
        rec = loads(record.read_bytes())
    except (OSError, RecordError) as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from exc
    if rec.fairness is None or rec.deck is None:
        console.print("[red]" + ("this record has no verifiable deal (no commitment and seed)" if en
                                 else "这份牌谱没有可验证的发牌数据（没有承诺和种子） (no verifiable deal)") + "[/red]")
        raise typer.Exit(1)
    fair = rec.fairness
    problem = check(fair, rec.deck)
    if problem is not None:
        zh, eng = problem
        console.print(f"[red]✗ {eng if en else f'{zh} ({eng})'}[/red]")
        raise typer.Exit(1)
    added = sum(1 for e in fair.entropy if e)
    if en:
        console.print(f"✓ deal verified: SHA-256(seed) = commitment {fair.commitment[:16]}…, and the deck follows "
                      f"from the seed and the entropy of {added} seat(s) ({fair.scheme})")
    else:
        console.print(f"✓ 发牌验证通过：种子的 SHA-256 等于发牌前公布的承诺 {fair.commitment[:16]}…，"
                      f"牌堆由种子和 {added} 位玩家的随机数算出（{fair.scheme}）")
