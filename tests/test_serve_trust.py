"""What a caller of `manimgen serve` and `manimgen mcp` may not do: pick how a model is loaded, stop
a worker, send more than the body cap, read its body back from an error, share a job store with a
second server, rewrite a finished job, leave a job running after its MCP client went away, or skip
the token off 127.0.0.1 and ::1.

Everything runs for real: a uvicorn server on a free port, `manimgen` subprocesses, an MCP client
session over stdio, sandboxed renders; the models are scripted so each outcome is known.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from test_serve import BROKEN, GOOD, GatedLLM, free_port, served, wait_for  # noqa: F401  (served is a fixture)

from manimgen.agent import format_target
from manimgen.cli.serve_commands import _needs_token
from manimgen.llm import MODELS
from manimgen.llm.scripted import ScriptedLLM
from manimgen.serve.api import MAX_BODY
from manimgen.serve.engine import JobEngine, JobError
from manimgen.serve.jobs import CANCELLED, DONE, FAILED, RUNNING, Job, JobStore, new_id

SLOW_S = 4.0
MODELS_MODULE = f'''import time

from manimgen.agent import format_target
from manimgen.llm.base import ChatResult, Usage
from manimgen.llm.scripted import ScriptedLLM


class Raising(ScriptedLLM):
    """Raises what it was made with from inside the job, as a hostile or broken provider might."""

    def __init__(self, error):
        super().__init__(name="raising")
        self.error = error

    def chat(self, messages, n=1, sampling=None):
        raise self.error


class Slow:
    """Takes {SLOW_S} s per answer and answers code that does not render, so a job has many rounds."""

    name = "slow"

    def chat(self, messages, n=1, sampling=None):
        time.sleep({SLOW_S})
        return ChatResult([format_target({BROKEN!r})] * n, Usage(1, 1))

    def close(self):
        pass


def good():
    return ScriptedLLM(*[format_target({GOOD!r})] * 20, name="good")


def exiting():
    return Raising(SystemExit("from a job"))


def interrupting():
    return Raising(KeyboardInterrupt("from a job"))


def generator_exit():
    return Raising(GeneratorExit())


def base():
    return Raising(BaseException("a bare BaseException"))


def slow():
    return Slow()
'''
GOOD_SPEC = "py:trust_models:good"


@pytest.fixture
def models_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`trust_models` on sys.path (this process) and in a folder for PYTHONPATH (subprocesses)."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "trust_models.py").write_text(MODELS_MODULE)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def engine_on(root: Path, **options: object) -> JobEngine:
    """An engine with the real model loader (a spec is imported as it would be in production)."""
    options = {"default_model": GOOD_SPEC, "default_strategy": "vanilla", "render_workers": 1, **options}
    return JobEngine(root, **options).start()  # type: ignore[arg-type]


def http_wait(client: httpx.Client, job_id: str, timeout: float = 240.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in (DONE, FAILED, CANCELLED):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")


# --- callers choose what runs, not how code is loaded ------------------------------------------------


def test_a_caller_picks_only_among_the_allowed_models(served, models_module: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MANIMGEN_API_KEY", "operator-secret")
    base = served(engine_on(tmp_path / "serve"))
    allowed = [*MODELS, GOOD_SPEC]
    with socket.socket() as listener, httpx.Client(base_url=base, timeout=60) as client:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        for spec in ("py:os:abort", "py:sys:exit", f"openai:http://127.0.0.1:{port}/v1#x", "qwen2.5-coder-0.5b+/tmp/adapter"):
            refused = client.post("/api/jobs", json={"sentence": "A blue circle", "model": spec})
            assert refused.status_code == 422, spec
            assert refused.json()["detail"] == (
                f"model {spec!r} is not allowed on this server; choose one of: {', '.join(allowed)} (its operator allows more with --allow-model)"
            )
        assert client.get("/api/options").json()["models"] == allowed
        job = client.post("/api/jobs", json={"sentence": "A blue circle", "model": GOOD_SPEC})
        assert job.status_code == 201 and http_wait(client, job.json()["id"])["status"] == DONE, "the server is up and runs jobs"
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected to the caller's URL


def test_a_job_raising_systemexit_or_any_baseexception_fails_and_the_worker_takes_the_next(served, models_module: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hostile = {
        "py:sys:exit": "SystemExit",
        "py:trust_models:exiting": "SystemExit: from a job",
        "py:trust_models:interrupting": "KeyboardInterrupt: from a job",
        "py:trust_models:generator_exit": "GeneratorExit",
        "py:trust_models:base": "BaseException: a bare BaseException",
    }
    base = served(engine_on(tmp_path / "serve", allowed_models=list(hostile)))
    with httpx.Client(base_url=base, timeout=60) as client:
        for spec, error in hostile.items():
            job = client.post("/api/jobs", json={"sentence": "A blue circle", "model": spec}).json()
            failed = http_wait(client, job["id"])
            assert (failed["status"], failed["error"]) == (FAILED, error), spec
            after = client.post("/api/jobs", json={"sentence": "A red square"}).json()
            assert http_wait(client, after["id"])["status"] == DONE, f"the worker goes on after {spec}"


def test_a_retry_cannot_run_a_model_the_server_does_not_allow_and_a_bad_allowed_spec_stops_the_start(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "serve")
    old = store.add(Job(new_id(), "generate", "A dot", "py:os:abort", "vanilla", "low", status=FAILED))
    store.close()
    with pytest.raises(JobError, match="^unknown model 'nonsense': use an embedded model"):
        JobEngine(tmp_path / "serve", allowed_models=["nonsense"], render_workers=1)
    engine = JobEngine(tmp_path / "serve", llm_factory=lambda spec: ScriptedLLM(), render_workers=1)
    try:
        with pytest.raises(JobError, match="^model 'py:os:abort' is not allowed on this server; choose one of: "):
            engine.retry(old.id)
    finally:
        engine.close()


def test_loaded_models_are_bounded_and_the_least_recently_used_is_closed_first(tmp_path: Path) -> None:
    loaded: list[ScriptedLLM] = []

    def load(spec: str) -> ScriptedLLM:
        loaded.append(ScriptedLLM(format_target(GOOD), name=spec))
        return loaded[-1]

    specs = ["py:m:a", "py:m:b", "py:m:c"]
    engine = JobEngine(tmp_path / "serve", llm_factory=load, allowed_models=specs, default_strategy="vanilla", render_workers=1, max_models=2)
    try:
        engine.start()
        for spec in [*specs, "py:m:a"]:
            assert wait_for(engine, engine.submit("A blue circle", model=spec).id).status == DONE
        assert [(llm.name, llm.closed) for llm in loaded] == [("py:m:a", True), ("py:m:b", True), ("py:m:c", False), ("py:m:a", False)]
    finally:
        engine.close()


# --- the body cap and what an error answer may say ---------------------------------------------------


def chunks(total: int, size: int = 4096) -> Iterator[bytes]:
    """A JSON body of `total` bytes sent without a Content-Length (httpx sends it chunked)."""
    padding = total - len(b'{"code": ""}')
    yield b'{"code": "'
    for start in range(0, padding, size):
        yield b"x" * min(size, padding - start)
    yield b'"}'


def test_a_chunked_body_over_the_cap_is_refused_and_one_under_it_is_read(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = served(JobEngine(tmp_path / "serve", llm_factory=lambda spec: ScriptedLLM(), render_workers=1).start())
    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=base, timeout=60) as client:
        for path in ("/api/render", "/api/jobs"):
            over = client.post(path, content=chunks(MAX_BODY + 4096), headers=headers)
            assert over.request.headers.get("transfer-encoding") == "chunked" and "content-length" not in over.request.headers
            assert (over.status_code, over.json()) == (413, {"detail": f"the request body is over {MAX_BODY} bytes"}), path
        under = client.post("/api/render", content=chunks(2000), headers=headers)
        assert under.status_code == 201 and under.json()["code"] == "x" * (2000 - len('{"code": ""}'))


def test_a_validation_error_says_where_and_what_but_never_echoes_the_body(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = served(JobEngine(tmp_path / "serve", llm_factory=lambda spec: ScriptedLLM(), render_workers=1).start())
    marker = "PRIVATE-TEXT-"
    with httpx.Client(base_url=base, timeout=60) as client:
        long = client.post("/api/jobs", json={"sentence": marker * 100})
        assert long.status_code == 422 and marker not in long.text
        assert long.json() == {"detail": [{"loc": ["body", "sentence"], "msg": "String should have at most 1000 characters"}]}
        wrong = client.post("/api/jobs", json={"sentence": {"text": marker}, "model": [marker]})
        assert wrong.status_code == 422 and marker not in wrong.text
        assert [problem["loc"] for problem in wrong.json()["detail"]] == [["body", "sentence"], ["body", "model"]]
        broken = client.post("/api/jobs", content=f'{{"sentence": "{marker}', headers={"content-type": "application/json"})
        assert broken.status_code == 422 and marker not in broken.text and broken.json()["detail"][0]["msg"] == "JSON decode error"


# --- one engine per job store; a finished job is final -----------------------------------------------


def test_a_second_engine_on_a_root_is_refused_and_leaves_the_first_ones_jobs_alone(tmp_path: Path) -> None:
    root = tmp_path / "serve"
    llm = GatedLLM(format_target(GOOD), format_target(GOOD))
    first = JobEngine(root, llm_factory=lambda spec: llm, default_strategy="vanilla", render_workers=1).start()
    try:
        running = first.submit("A blue circle")
        queued = first.submit("A red square")
        assert llm.asked.wait(30)
        with pytest.raises(JobError) as refused:
            JobEngine(root, llm_factory=lambda spec: llm, render_workers=1)
        assert str(refused.value) == f"another manimgen server (process {os.getpid()}) is using the job store in {root}; stop it, or pass another --root"
        assert (first.job(running.id).status, first.job(queued.id).status) == (RUNNING, "queued")  # type: ignore[union-attr]
        llm.gate.set()
        assert wait_for(first, running.id).status == DONE and wait_for(first, queued.id).status == DONE
    finally:
        first.close()
    JobEngine(root, llm_factory=lambda spec: llm, render_workers=1).close()  # the lock went with the first engine


def refusals(root: Path, columns: int) -> list[str]:
    """What `mcp` and `serve` on `root` print, each asserted to stop with exit status 2."""
    said = []
    for command in (["mcp", "--root", str(root)], ["serve", "--root", str(root), "--port", str(free_port())]):
        done = subprocess.run([sys.executable, "-m", "manimgen.cli", *command], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": str(columns)})  # fmt: skip
        said.append((done.stdout + done.stderr).strip())
        assert done.returncode == 2, said[-1]
    return said


def test_the_commands_refuse_a_held_root_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "serve"
    holder = JobEngine(root, llm_factory=lambda spec: ScriptedLLM(), render_workers=1)
    try:
        held = f"error: another manimgen server (process {os.getpid()}) is using the job store in {root}; stop it, or pass another --root"
        assert refusals(root, 80) == [held, held]
    finally:
        holder.close()


def test_the_commands_refuse_a_root_they_cannot_write_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    root = blocker / "serve"
    unwritable = f"error: cannot keep the job store in {root} (Not a directory); pass a --root this user can write"
    assert refusals(root, 300) == [unwritable, unwritable]


def test_a_finished_job_is_never_overwritten(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "serve")
    try:
        job = store.add(Job(new_id(), "generate", "A dot", "m", "vanilla", "low", status=RUNNING))
        assert store.finish(job.id, DONE, {"video": "scene.mp4"}, {"status": DONE, "video": "scene.mp4"})
        assert not store.finish(job.id, FAILED, {"error": "a stale error"}, {"status": FAILED, "error": "a stale error"})
        store.update(job.id, rounds=7, error="a stale error")
        again = store.get(job.id)
        assert again is not None and (again.status, again.error, again.video, again.rounds) == (DONE, None, "scene.mp4", 0)
        assert [event.payload for event in store.events(job.id)] == [{"status": DONE, "video": "scene.mp4"}], "no second last event"
    finally:
        store.close()


# --- MCP: progress during a round, a cancelled call or a gone client cancels its job ----------------


def mcp_parameters(root: Path, models: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "manimgen.cli", "mcp", "--root", str(root), *options],
        env={**os.environ, "PYTHONPATH": str(models)},
    )


def last_job(root: Path, status: str, timeout: float = 60.0) -> Job:
    """The store's newest job once it has `status`, read as another process would."""
    deadline = time.monotonic() + timeout
    while True:
        store = JobStore(root)
        try:
            job = store.recent(1)[0]
        finally:
            store.close()
        if job.status == status or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


async def progress_then_a_cancelled_call(root: Path, models: Path) -> dict:
    heard: list[tuple[float, str]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        heard.append((value, message or ""))

    parameters = mcp_parameters(root, models, "--model", GOOD_SPEC, "--allow-model", "py:trust_models:slow", "--strategy", "ritl")
    async with Client(parameters) as client:
        listed = (await client.call_tool("list_models", {})).structured_content
        refused = (await client.call_tool("generate_animation", {"description": "A dot", "model": "py:os:abort"})).structured_content
        arguments = {"description": "A blue circle", "model": "py:trust_models:slow", "strategy": "vanilla"}
        finished = await client.call_tool("generate_animation", arguments, read_timeout_seconds=120, progress_callback=progress)
        with pytest.raises(MCPError, match="timed out"):
            await client.call_tool("generate_animation", {**arguments, "strategy": "ritl"}, read_timeout_seconds=SLOW_S / 2)
        cancelled = await asyncio.to_thread(last_job, root, CANCELLED)
    return {"listed": listed, "refused": refused, "finished": finished.structured_content, "heard": heard, "cancelled": cancelled}


def test_mcp_reports_progress_within_a_round_and_a_cancelled_call_cancels_its_job(models_module: Path, tmp_path: Path) -> None:
    root = tmp_path / "mcp"
    results = asyncio.run(progress_then_a_cancelled_call(root, models_module))
    assert results["listed"] == {"models": [*MODELS, GOOD_SPEC, "py:trust_models:slow"], "default": GOOD_SPEC}
    refused = results["refused"]
    assert refused["status"] == "refused" and refused["error"].startswith("model 'py:os:abort' is not allowed on this server; choose one of: ")
    assert results["finished"]["status"] == FAILED and results["finished"]["rounds"] == 1
    messages = [message for _, message in results["heard"]]
    first_round = next(index for index, message in enumerate(messages) if message.startswith("round 1 "))
    writing = [message for message in messages[:first_round] if message.startswith("writing the scene (0 rounds done)")]
    assert len(writing) >= 2, f"the stage, then again while the model still writes: {messages}"
    assert [value for value, _ in results["heard"]] == list(range(1, len(messages) + 1)), "progress only grows"
    cancelled = results["cancelled"]
    assert (cancelled.status, cancelled.error, cancelled.rounds) == (CANCELLED, "cancelled while running", 1)


async def a_client_that_goes_away(root: Path, models: Path) -> None:
    started = anyio.Event()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if (message or "").startswith("writing the scene"):
            started.set()

    async with Client(mcp_parameters(root, models, "--model", "py:trust_models:slow", "--strategy", "ritl")) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: client.call_tool("generate_animation", {"description": "A blue circle"}, read_timeout_seconds=300, progress_callback=progress))
            with anyio.fail_after(60):
                await started.wait()
            group.cancel_scope.cancel()


def test_an_mcp_client_that_goes_away_cancels_its_job(models_module: Path, tmp_path: Path) -> None:
    root = tmp_path / "mcp"
    asyncio.run(a_client_that_goes_away(root, models_module))
    job = last_job(root, CANCELLED, timeout=10)
    assert (job.status, job.error, job.rounds) == (CANCELLED, "cancelled while running", 0)


# --- the token rule ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "needs"),
    [("127.0.0.1", False), ("::1", False), ("0:0:0:0:0:0:0:1", False), ("127.0.0.2", True), ("localhost", True), ("0.0.0.0", True), ("::", True)],
)
def test_only_127_0_0_1_and_ipv6_loopback_go_without_a_token(host: str, needs: bool) -> None:
    assert _needs_token(host) is needs


def test_a_bind_on_127_0_0_2_makes_a_token_and_the_bearer_scheme_is_case_insensitive(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "manimgen.cli", "serve", "--host", "127.0.0.2", "--port", str(port), "--root", str(tmp_path / "serve")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "COLUMNS": "200"})
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("bound to 127.0.0.2: every API request needs the token"), lines
        token = lines[1].removeprefix("token: ").strip()
        url = f"http://127.0.0.2:{port}/api/jobs"
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx.get(url, timeout=5)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        assert refused.status_code == 401
        for scheme in ("bearer", "BEARER", "Bearer"):
            assert httpx.get(url, headers={"Authorization": f"{scheme} {token}"}, timeout=5).status_code == 200, scheme
        assert httpx.get(url, headers={"Authorization": f"Basic {token}"}, timeout=5).status_code == 401
        assert httpx.get(url, headers={"Authorization": token}, timeout=5).status_code == 401, "a token needs its scheme"
    finally:
        server.terminate()
        server.wait(timeout=30)
