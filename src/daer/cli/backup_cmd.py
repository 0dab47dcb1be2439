"""``daer backup`` and ``daer restore``: a backup of the online table's database, taken while it serves, and
its restore into a fresh database (:mod:`daer.store.backup`; docs/deploy.md, "Backups")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def backup(
    out: Annotated[Path, typer.Argument(help="备份文件 the backup file to write (must not exist)")],
    *,
    db: Annotated[str | None, typer.Option(help="数据库 URL (default: $DAER_DATABASE_URL or sqlite:///daer.db)")]
    = None,
) -> None:
    """备份数据库 — back the database up while the server runs (SQLite: its online backup API; PostgreSQL:
    pg_dump)."""
    from daer.store import database_url  # noqa: PLC0415 (the store is loaded only for this command)
    from daer.store.backup import backup as run  # noqa: PLC0415

    _say(lambda: run(database_url(db), out))


def restore(
    backup_file: Annotated[Path, typer.Argument(help="备份文件 the backup file")],
    *,
    db: Annotated[str, typer.Option(help="恢复到的数据库 URL: a new SQLite file or an empty PostgreSQL database")],
) -> None:
    """恢复数据库 — restore a backup into a fresh database (stop the server first; start it on the restored one)."""
    from daer.store.backup import restore as run  # noqa: PLC0415

    _say(lambda: run(backup_file, db))


def _say(job: Callable[[], str]) -> None:
    """Run a backup or restore; print what it made, or why it could not (exit status 1), never a traceback."""
    from daer.store.backup import BackupError  # noqa: PLC0415 (the store is loaded only for these commands)

    console = Console(highlight=False)
    try:
        console.print(f"✓ {job()}")
    except BackupError as exc:
        console.print(f"[red]✗ {exc.zh} ({exc.en})[/red]")
        raise typer.Exit(1) from exc
