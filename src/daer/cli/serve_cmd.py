"""``daer serve``: the online table — a web server with an embedded database, nothing else to set up."""

from __future__ import annotations

import logging
from typing import Annotated

import typer


def serve(
    *,
    host: Annotated[str, typer.Option(help="监听地址 address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="端口 port")] = 8000,
    db: Annotated[str | None, typer.Option(help="数据库 URL (default $DAER_DATABASE_URL or sqlite:///daer.db)")]
    = None,
    bot_delay: Annotated[float, typer.Option(help="机器人出牌间隔（秒） seconds between bot moves")] = 0.6,
) -> None:
    """网上牌桌 — serve the online table (rooms, bots, records) at http://HOST:PORT/."""
    import uvicorn  # noqa: PLC0415 - the server stack loads only for this command

    from daer.server import create_app  # noqa: PLC0415
    from daer.store import database_url  # noqa: PLC0415

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    url = database_url(db)
    app = create_app(url, bot_delay=bot_delay)
    typer.echo(f"daer serve: http://{host}:{port}/  (database {url.split('@')[-1]})", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=65536, ws_ping_interval=20)
