"""MCP tools over the job engine, for coding agents (`manimgen mcp`, stdio).

    generate_animation(description, model?, strategy?, quality?, checklist?, aspect?, resolution?, format?)
                                                                  a sentence to a video and its scene code
    plan_checklist(description)                                   what that video will be checked against, to edit
    render_scene(code, quality?, aspect?, resolution?, format?)   render scene code as it is
    lint_scene(code)                                              the static check the agent uses, with certain fixes
    list_models() / list_strategies()                             what the other tools accept

A generate or render call waits for its job and returns the video's absolute path, the scene code
and, when there is no video, why. While it waits it reports progress: each stage (the model writing,
a render), each round, and every `PROGRESS_S` the stage under way with the seconds spent. A call
that is cancelled, or whose client goes away, cancels its job. `model` is one of `list_models()`:
what the operator allowed at start-up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from manimgen.agent import STRATEGIES, strategy_words
from manimgen.agent.autofix import autofix
from manimgen.agent.lint import lint
from manimgen.checks import Checklist, checklist_for
from manimgen.render.formats import DEFAULT_FORMAT
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.serve.engine import JobEngine, JobError
from manimgen.serve.jobs import Event, Job

POLL_S = 0.5
PROGRESS_S = 2.0


def create_mcp_server(engine: JobEngine) -> MCPServer:
    server = MCPServer("manimgen", instructions="Make Manim animations from sentences and render or check Manim scene code.")

    @server.tool()
    async def generate_animation(
        description: str,
        model: str | None = None,
        strategy: str | None = None,
        quality: str = DEFAULT_QUALITY,
        checklist: Checklist | None = None,
        aspect: str | None = None,
        resolution: str | None = None,
        format: str = DEFAULT_FORMAT,  # noqa: A002 - the name users see
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """Write a Manim scene for the description with a model from list_models(), render it, and return the video path and code.
        `checklist`: an edit of plan_checklist(description), what the scene is checked against. `aspect`: 16:9, 9:16 or 1:1;
        `resolution`: WIDTHxHEIGHT instead; `format`: mp4, webm, gif or png."""
        options = {"quality": quality, "video_format": format, "aspect": aspect, "resolution": resolution}
        return await finished(engine, lambda: engine.submit(description, model, strategy, checklist=checklist, **options), ctx)

    @server.tool()
    def plan_checklist(description: str) -> dict[str, Any]:
        """What a scene for the description will be checked against: edit it and pass it to generate_animation."""
        if not description.strip():
            return {"status": "refused", "error": "the description is empty: say what the animation should show"}
        return checklist_for(description.strip()).model_dump(mode="json")

    @server.tool()
    async def render_scene(
        code: str,
        quality: str = DEFAULT_QUALITY,
        aspect: str | None = None,
        resolution: str | None = None,
        format: str = DEFAULT_FORMAT,  # noqa: A002 - the name users see
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """Render a Manim scene file's code in the sandbox; returns the video path, or the error.
        `aspect`, `resolution` and `format` as for generate_animation."""
        return await finished(engine, lambda: engine.submit_render(code, quality, video_format=format, aspect=aspect, resolution=resolution), ctx)

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
        """The models this server allows (the embedded ones, run locally, and any its operator added) and the default."""
        return {"models": engine.allowed_models, "default": engine.default_model}

    @server.tool()
    def list_strategies() -> dict[str, Any]:
        """Agent strategies with what each does (for a researcher, and in plain words), and the default."""
        return {"strategies": STRATEGIES.summaries(), "in_words": strategy_words(), "default": engine.default_strategy}

    return server


async def finished(engine: JobEngine, submit: Callable[[], Job], ctx: Context | None) -> dict[str, Any]:
    """Submit a job and wait for it, reporting progress; the tool's result (or its refusal). Cancelling the call cancels the job."""
    try:
        job = submit()
    except JobError as error:
        return {"status": "refused", "error": str(error)}
    try:
        return await _follow(engine, job, ctx)
    except BaseException:  # the call was cancelled or its client went away: nobody waits for the job
        engine.cancel(job.id)
        raise


async def _follow(engine: JobEngine, job: Job, ctx: Context | None) -> dict[str, Any]:
    """Wait for the job, reporting progress on each event and, between them, every `PROGRESS_S` the
    stage under way again. The progress value counts the reports (it only grows, as MCP requires);
    the message says what is happening and the seconds since the call began."""
    started = time.monotonic()
    seen, note, reports, reported = 0, "queued", 0, started
    while True:
        notes = []
        for event in engine.store.events(job.id, seen):
            seen = event.seq
            notes.append(progress_note(event))
        note = notes[-1] if notes else note
        now = time.monotonic()
        if not notes and now - reported >= PROGRESS_S:
            notes.append(note)
        if ctx is not None:
            for message in notes:
                reports, reported = reports + 1, now
                await ctx.report_progress(reports, message=f"{message}; {now - started:.0f} s")
        current = engine.job(job.id)
        if current is not None and current.finished:
            return _result(engine, current)
        await asyncio.sleep(POLL_S)


def progress_note(event: Event) -> str:
    """What an event says about a job under way, in a few words."""
    payload = event.payload
    if event.kind == "stage":
        return f"{payload['stage']} ({payload['rounds']} rounds done)"
    if event.kind == "round":
        return f"round {payload['index'] + 1} {payload['kind']}: {payload['status']}"
    if event.kind == "render":
        return f"render: {payload['status']}"
    return str(payload.get("note") or payload.get("status", event.kind))


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
