"""``daer cluster up|down``: a local cluster (PostgreSQL, HAProxy, N workers) in one command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from daer.cluster import local

app = typer.Typer(help="本机集群 a local cluster: PostgreSQL, HAProxy and N `daer serve` workers on loopback ports",
                  no_args_is_help=True)


@app.command()
def up(
    workers: Annotated[int, typer.Option(min=1, max=16, help="工作进程数 number of workers")] = 2,
    folder: Annotated[Path, typer.Option("--dir", help="状态目录 folder for data, logs and cluster.json")]
    = local.DEFAULT_DIR,
    db: Annotated[str | None, typer.Option(help="已有的 PostgreSQL URL (default: start a private one)")] = None,
    lease_ttl: Annotated[float, typer.Option(min=0.5, max=300.0, help="房间租约时长（秒） seconds a lease lasts")]
    = 10.0,
    lb_rate: Annotated[int, typer.Option(
        min=1, help="每个地址每 10 秒的请求上限（全集群） requests per address in 10 s, all workers")] = local.LB_RATE,
    lb_conns: Annotated[int, typer.Option(
        min=1, help="每个地址的连接上限（全集群） open connections per address, all workers")] = local.LB_CONNS,
    serve_args: Annotated[list[str] | None, typer.Argument(
        help="其余参数交给每个 daer serve extra `daer serve` options for every worker (after --)")] = None,
) -> None:
    """启动 start the cluster and print its URL."""
    try:
        state = local.up(folder, workers=workers, db=db, lease_ttl=lease_ttl, extra=list(serve_args or []),
                         lb_rate=lb_rate, lb_conns=lb_conns)
    except RuntimeError as exc:
        typer.echo(f"daer cluster: {exc}", err=True)
        raise typer.Exit(1) from exc
    for w in state["workers"]:
        typer.echo(f"worker {w['name']}: {w['url']} (pid {w['pid']}, log {w['log']})", err=True)
    typer.echo(f"state: {folder / local.STATE}", err=True)
    typer.echo(state["url"])


@app.command()
def down(
    folder: Annotated[Path, typer.Option("--dir", help="状态目录 the folder given to up")] = local.DEFAULT_DIR,
    keep: Annotated[bool, typer.Option(help="保留目录 keep the folder (logs, data)")] = False,
) -> None:
    """停止 stop the cluster (workers drained first)."""
    if not local.down(folder, keep=keep):
        typer.echo(f"daer cluster: nothing up in {folder}", err=True)


@app.command()
def status(
    folder: Annotated[Path, typer.Option("--dir", help="状态目录 the folder given to up")] = local.DEFAULT_DIR,
) -> None:
    """状态 the cluster's processes (JSON)."""
    path = folder / local.STATE
    if not path.exists():
        typer.echo(f"daer cluster: nothing up in {folder}", err=True)
        raise typer.Exit(1)
    state = json.loads(path.read_text())
    for w in state["workers"]:
        w["alive"] = local.alive(int(w["pid"]))
    typer.echo(json.dumps(state, indent=1))
