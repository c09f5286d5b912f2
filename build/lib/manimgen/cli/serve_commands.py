"""`manimgen serve` (the page and the HTTP job API) and `manimgen mcp` (tools for coding agents)."""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.text import Text

from manimgen.cli.app import app, console, fail
from manimgen.cli.choices import model_help, strategy_help
from manimgen.extras import require

DEFAULT_ROOT = Path("runs") / "serve"
MCP_ROOT = Path("runs") / "mcp"
TOKEN_ENV = "MANIMGEN_TOKEN"
TOKENLESS_HOSTS = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))

RootOption = Annotated[Path, typer.Option("--root", help="folder for the job store and every job's video, code and trace (one server per root)")]
ModelOption = Annotated[Optional[str], typer.Option("--model", help=f"the default model (callers may pick it): {model_help()}")]
StrategyOption = Annotated[Optional[str], typer.Option("--strategy", help=f"the default strategy: {strategy_help()}")]
AllowOption = Annotated[
    Optional[list[str]],
    typer.Option("--allow-model", metavar="SPEC", help="one more model callers may pick, besides the embedded ones and --model (repeatable)"),
]


def _needs_token(host: str) -> bool:
    """The documented rule: every bind but 127.0.0.1 and ::1 needs a token, another loopback address
    (127.0.0.2) or a name (localhost) included."""
    try:
        return ipaddress.ip_address(host) not in TOKENLESS_HOSTS
    except ValueError:
        return True


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to bind; anything but 127.0.0.1 or ::1 requires a token")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    root: RootOption = DEFAULT_ROOT,
    workers: Annotated[int, typer.Option(min=1, help="jobs run at once (each model is loaded once and shared)")] = 1,
    model: ModelOption = None,
    allow_model: AllowOption = None,
    strategy: StrategyOption = None,
    token: Annotated[Optional[str], typer.Option(help=f"the token every API request must carry (default: ${TOKEN_ENV}, else a new one when not on 127.0.0.1 or ::1)")] = None,
) -> None:
    """The web page and the HTTP job API: type a sentence, watch its rounds, get the video and its code."""
    require("serve")
    import uvicorn

    from manimgen.lesson.jobs import lesson_router
    from manimgen.serve.api import create_app
    from manimgen.serve.engine import JobEngine, JobError

    token = token or os.environ.get(TOKEN_ENV) or None
    if _needs_token(host) and not token:
        token = secrets.token_urlsafe(24)
    try:
        engine = JobEngine(root, workers=workers, **_options(model, allow_model, strategy))
    except JobError as error:
        fail(str(error))
    if engine.interrupted:
        console.print(Text(f"{len(engine.interrupted)} jobs were cut short when the server last stopped; they are marked interrupted (retry them)"))
    address = f"http://{host}:{port}/"
    if token:
        console.print(Text(f"bound to {host}: every API request needs the token (header Authorization: Bearer TOKEN)\ntoken: {token}\npage: {address}?token={token}"))
    else:
        console.print(Text(f"page: {address}   API docs: {address}docs   jobs in {root}"))
    engine.start()
    try:
        uvicorn.run(create_app(engine, token=token, routers=[lesson_router(engine)]), host=host, port=port, log_level="warning")
    finally:
        engine.close()


@app.command()
def mcp(
    root: RootOption = MCP_ROOT,
    model: ModelOption = None,
    allow_model: AllowOption = None,
    strategy: StrategyOption = None,
) -> None:
    """An MCP server on stdio: tools to generate an animation or a narrated lesson, render or lint a scene, list models and strategies."""
    require("serve")
    from manimgen.lesson.jobs import add_lesson_tool
    from manimgen.serve.engine import JobEngine, JobError
    from manimgen.serve.mcp_server import create_mcp_server

    try:
        engine = JobEngine(root, **_options(model, allow_model, strategy))
    except JobError as error:  # stdout carries the MCP protocol, so the one-line error goes to stderr
        Console(stderr=True).print(Text.assemble(("error:", "red"), " ", str(error)), soft_wrap=True)
        raise typer.Exit(code=2) from None
    engine.start()
    try:
        server = create_mcp_server(engine)
        add_lesson_tool(server, engine)
        server.run("stdio")
    finally:
        engine.close()


def _options(model: str | None, allow_model: list[str] | None, strategy: str | None) -> dict[str, Any]:
    """The engine's keyword arguments for the options given."""
    options: dict[str, Any] = {key: value for key, value in (("default_model", model), ("default_strategy", strategy)) if value}
    return {**options, "allowed_models": allow_model or ()}
