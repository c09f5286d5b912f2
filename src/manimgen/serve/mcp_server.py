"""MCP tools over the job engine, for coding agents (`manimgen mcp`, stdio).

    generate_animation(description, model?, strategy?, quality?)  a sentence to a video and its scene code
    render_scene(code, quality?)                                  render scene code as it is
    lint_scene(code)                                              the static check the agent uses, with certain fixes
    list_models() / list_strategies()                             what the other tools accept

A generate or render call waits for its job (reporting each round as progress) and returns the
video's absolute path, the scene code and, when there is no video, why.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from manimgen.agent import strategy_summaries
from manimgen.agent.autofix import autofix
from manimgen.agent.lint import lint
from manimgen.llm import DEFAULT_MODEL, MODELS
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.serve.engine import JobEngine, JobError
from manimgen.serve.jobs import Job

POLL_S = 0.5


def create_mcp_server(engine: JobEngine) -> MCPServer:
    server = MCPServer("manimgen", instructions="Make Manim animations from sentences and render or check Manim scene code.")

    @server.tool()
    async def generate_animation(
        description: str, model: str | None = None, strategy: str | None = None, quality: str = DEFAULT_QUALITY, ctx: Context | None = None
    ) -> dict[str, Any]:
        """Write a Manim scene for the description with a local model, render it, and return the video path and code."""
        return await _finished(engine, lambda: engine.submit(description, model, strategy, quality), ctx)

    @server.tool()
    async def render_scene(code: str, quality: str = DEFAULT_QUALITY, ctx: Context | None = None) -> dict[str, Any]:
        """Render a Manim scene file's code in the sandbox; returns the video path, or the error."""
        return await _finished(engine, lambda: engine.submit_render(code, quality), ctx)

    @server.tool()
    def lint_scene(code: str) -> dict[str, Any]:
        """Check Manim scene code without running it: names, methods and keywords Manim does not have, syntax."""
        findings = lint(code)
        fixed = autofix(code)
        return {
            "findings": [{"line": finding.line, "code": finding.code, "message": finding.message} for finding in findings],
            "fixed_code": fixed.code if fixed.notes else None,
            "fixes": list(fixed.notes),
        }

    @server.tool()
    def list_models() -> dict[str, Any]:
        """Embedded models (run locally, nothing to download) and the default."""
        return {"models": list(MODELS), "default": engine.default_model or DEFAULT_MODEL}

    @server.tool()
    def list_strategies() -> dict[str, Any]:
        """Agent strategies with what each does, and the default."""
        return {"strategies": strategy_summaries(), "default": engine.default_strategy}

    return server


async def _finished(engine: JobEngine, submit: Any, ctx: Context | None) -> dict[str, Any]:
    try:
        job: Job = submit()
    except JobError as error:
        return {"status": "refused", "error": str(error)}
    seen = 0
    while True:
        for event in engine.store.events(job.id, seen):
            seen = event.seq
            if ctx is not None and event.kind == "round":
                payload = event.payload
                await ctx.report_progress(payload["index"] + 1, message=f"round {payload['index'] + 1} {payload['kind']}: {payload['status']}")
        current = engine.job(job.id)
        if current is not None and current.finished:
            return _result(engine, current)
        await asyncio.sleep(POLL_S)


def _result(engine: JobEngine, job: Job) -> dict[str, Any]:
    folder = engine.job_dir(job.id)
    return {
        "job_id": job.id,
        "status": job.status,
        "video_path": str((folder / job.video).resolve()) if job.video else None,
        "code": (folder / job.scene).read_text(encoding="utf-8") if job.scene else None,
        "code_path": str((folder / job.scene).resolve()) if job.scene else None,
        "rounds": job.rounds,
        "error": job.error,
    }
