"""Backups of the store that restore (docs/deploy.md, "Backups").

- **SQLite**: SQLite's online backup API (``sqlite3.Connection.backup``) copies the database page by page while
  the server writes; the copy is one consistent moment (a write during the copy restarts the pages it touched),
  checked with ``PRAGMA integrity_check``.  The WAL file needs no copying: the backup holds what was committed.
- **PostgreSQL**: ``pg_dump --format=custom`` (one consistent snapshot, taken while the cluster serves), restored
  with ``pg_restore``.  Point-in-time recovery (``pg_basebackup`` with WAL archiving) is the operator's, in
  docs/deploy.md.
"""

from __future__ import annotations

import glob
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupError(Exception):
    """A backup or restore that could not be made (with the reason, Chinese then English)."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(f"{zh} ({en})")
        self.zh, self.en = zh, en


def _sqlite_path(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("内存数据库无法备份", "an in-memory database cannot be backed up")
    return Path(parsed.database)


def _pg_program(name: str) -> str:
    """Debian's newest ``pg_dump`` / ``pg_restore`` (the versioned one: the wrapper in /usr/bin wants a cluster)."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    if found:
        return found[-1]
    which = shutil.which(name)
    if which is None:
        raise BackupError(f"找不到 {name}（请安装 postgresql-client）", f"{name} not found (install postgresql-client)")
    return which


def _libpq(url: str) -> str:
    """The URL as libpq takes it (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _copy(src_path: Path, dst_path: Path, pages: int = -1) -> str:
    """Copy a SQLite database with its online backup API (read-only on the source); the copy's integrity check."""
    src = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True)
    dst = sqlite3.connect(dst_path)
    try:
        src.backup(dst, pages=pages)
        return str(dst.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        dst.close()
        src.close()


def backup(url: str, out: Path, *, pages: int = 256) -> str:
    """Back the database ``url`` up into the file ``out`` (which must not exist); what was made, in words."""
    if out.exists():
        raise BackupError(f"{out} 已存在，不会覆盖", f"{out} exists; not overwritten")
    src_path = _sqlite_path(url)
    if src_path is not None:
        if not src_path.exists():
            raise BackupError(f"没有这个数据库：{src_path}", f"no such database: {src_path}")
        ok = _copy(src_path, out, pages)
        if ok != "ok":
            out.unlink(missing_ok=True)
            raise BackupError(f"备份校验失败：{ok}", f"the backup failed its integrity check: {ok}")
        return f"SQLite {src_path} → {out} ({out.stat().st_size} bytes, integrity ok)"
    res = subprocess.run([_pg_program("pg_dump"), "--format=custom", "--no-owner", f"--file={out}",
                          f"--dbname={_libpq(url)}"], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        out.unlink(missing_ok=True)
        raise BackupError(f"pg_dump 失败：{res.stderr.strip()}", f"pg_dump failed: {res.stderr.strip()}")
    return f"PostgreSQL → {out} ({out.stat().st_size} bytes, pg_dump custom format)"


def restore(backup_file: Path, url: str) -> str:
    """Restore ``backup_file`` into the database ``url``: a SQLite file that must not exist yet, or an empty
    PostgreSQL database.  The server must not be running on it."""
    if not backup_file.exists():
        raise BackupError(f"没有这个备份：{backup_file}", f"no such backup: {backup_file}")
    dst_path = _sqlite_path(url)
    if dst_path is not None:
        if dst_path.exists():
            raise BackupError(f"{dst_path} 已存在：恢复只写入新文件",
                              f"{dst_path} exists; restore writes a new file only")
        ok = _copy(backup_file, dst_path)
        if ok != "ok":
            raise BackupError(f"恢复校验失败：{ok}", f"the restored database failed its integrity check: {ok}")
        return f"{backup_file} → SQLite {dst_path} (integrity ok)"
    res = subprocess.run([_pg_program("pg_restore"), "--no-owner", "--exit-on-error", f"--dbname={_libpq(url)}",
                          str(backup_file)], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise BackupError(f"pg_restore 失败：{res.stderr.strip()}", f"pg_restore failed: {res.stderr.strip()}")
    return f"{backup_file} → PostgreSQL (pg_restore)"
