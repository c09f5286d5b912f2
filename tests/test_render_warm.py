"""Warm workers: the pool's renders equal fresh ones, and a worker that fails is replaced."""

from __future__ import annotations

import _thread
import re
import signal
import subprocess
import sys
import threading
from contextlib import AbstractContextManager, closing
from pathlib import Path

import pytest
from counting_renderer import CountingRenderer
from scenes import ANIMATED, STATIC

from manimgen.agent import format_target, run_agent
from manimgen.llm import LLMError
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import Limits, RendererOptions, RenderJob, RenderPool, RenderStatus, cgroups, open_renderer, render
from manimgen.render.cache import RenderCache, render_key
from manimgen.render.handover import Scratch
from manimgen.render.renderer import ChildRunner, FreshSandbox, render_on
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.render.sandbox import Completed
from manimgen.render.volume import hard_quota_available
from manimgen.render.warm import WarmWorker

LOOP = STATIC.replace("self.add(Square(color=RED))", "while True:\n            pass")
UNKNOWN_NAME = STATIC.replace("Square(color=RED)", "Squircle()")
NO_SCENE = "from manim import *\n\nx = Circle()\n"
SCRATCH_PATH = re.compile(r"\S+/(scene\.py)")


def without_scratch_path(tail: str) -> str:
    """Tracebacks name the scene file by its scratch folder, which differs from render to render."""
    return SCRATCH_PATH.sub(r"\1", tail)


def test_warm_pool_gives_what_fresh_renders_give() -> None:
    jobs = [RenderJob(ANIMATED), RenderJob(STATIC, quality="preview"), RenderJob(UNKNOWN_NAME), RenderJob(NO_SCENE), RenderJob(STATIC, scene="Other")]
    with RenderPool(2, warm=True, use_cache=False) as pool:
        warm = pool.map(jobs)
    for job, warm_result in zip(jobs, warm, strict=True):
        fresh = render(job.code, job.scene, job.quality, use_cache=False)
        assert (warm_result.status, warm_result.scene) == (fresh.status, fresh.scene)
        assert without_scratch_path(warm_result.error_tail) == without_scratch_path(fresh.error_tail)
        if fresh.ok:
            assert warm_result.output.read_bytes() == fresh.output.read_bytes()
    assert [r.status for r in warm] == [RenderStatus.OK, RenderStatus.OK, RenderStatus.CODE_ERROR, RenderStatus.NO_SCENE, RenderStatus.NO_SCENE]


def test_timed_out_worker_is_replaced() -> None:
    with RenderPool(1, warm=True, timeout_s=4, use_cache=False) as pool:
        looped, after = pool.map([RenderJob(LOOP), RenderJob(STATIC)])
    assert looped.status is RenderStatus.TIMEOUT
    assert "4 s" in looped.error_tail
    assert after.ok, after.error_tail


def test_a_render_interrupted_in_the_caller_does_not_answer_the_next() -> None:
    """Ctrl-C while a warm worker renders: that worker's late reply must not become the next job's result."""
    slow = STATIC.replace("self.add(Square(color=RED))", "import time\n        time.sleep(4)\n        self.add(Circle())")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as a plain process has it, whatever handler an earlier test left
    try:
        with RenderPool(1, warm=True, use_cache=False) as pool:
            pool.render(RenderJob(STATIC))  # the worker is up: the interrupt lands in the render, not the start
            timer = threading.Timer(1.5, _thread.interrupt_main)
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                pool.render(RenderJob(slow))
            after = pool.render(RenderJob(ANIMATED))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert after.ok and after.scene == "Grow", after.error_tail
    assert after.output is not None and after.output.suffix == ".mp4"


def test_worker_that_cannot_start_is_a_sandbox_error() -> None:
    with RenderPool(1, warm=True, limits=Limits(memory_bytes=64 << 20), use_cache=False) as pool:
        (result,) = pool.map([RenderJob(STATIC)])
    assert result.status is RenderStatus.SANDBOX_ERROR
    assert "could not start" in result.error_tail


def test_child_module_runs_without_runpy_warning() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "manimgen.render.child", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr


def test_a_pool_left_open_at_exit_gives_back_its_mounts_and_cgroups(tmp_path) -> None:
    program = (
        "from manimgen.render import RenderJob, RenderPool\n"
        f"pool = RenderPool(1, use_cache=False)\nprint(pool.render(RenderJob({STATIC!r})).status.value)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = child.communicate(timeout=120)
    assert out.strip() == "ok", err
    assert not any(tmp_path.glob("manimgen-warm-*"))
    assert f"manimgen-warm-{child.pid}-" not in Path("/proc/self/mounts").read_text(), "other processes' pools may be up"
    assert [group for hierarchy in cgroups.hierarchies() for group in hierarchy.parent.glob(f"manimgen-{child.pid}-*")] == []


@pytest.mark.skipif(not hard_quota_available(), reason="volumes are mounted only where a tmpfs can be")
def test_what_a_killed_process_left_is_given_back_by_the_next() -> None:
    from manimgen.render.cgroups import remove_stale
    from manimgen.render.volume import unmount_stale

    program = (
        "import os, signal\nfrom manimgen.render import RenderJob, RenderPool\n"
        f"pool = RenderPool(1, use_cache=False)\nprint(pool.render(RenderJob({STATIC!r})).status.value, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = child.communicate(timeout=120)
    assert (out.strip(), child.returncode) == ("ok", -9), err

    def left() -> tuple[list[str], list[Path]]:
        mounts = [line for line in Path("/proc/self/mounts").read_text().splitlines() if f"manimgen-warm-{child.pid}-" in line]
        groups = [group for hierarchy in cgroups.hierarchies() for group in hierarchy.parent.glob(f"manimgen-{child.pid}-*")]
        return mounts, groups

    mounts, groups = left()
    assert mounts and (groups or not cgroups.hierarchies())
    unmount_stale()
    remove_stale()
    assert left() == ([], [])


class LaterHost:
    """A runner that passes the child an option it does not know, as a host newer than the checkout would."""

    def __init__(self, runner: ChildRunner) -> None:
        self.runner, self.limits = runner, runner.limits

    def scratch(self) -> AbstractContextManager[Scratch]:
        return self.runner.scratch()

    def run_child(self, child_args: list[str], scratch: Scratch) -> Completed:
        return self.runner.run_child([*child_args, "--option-of-a-later-host"], scratch)

    def close(self) -> None:
        self.runner.close()


@pytest.mark.parametrize("warm", [False, True], ids=["fresh", "warm"])
def test_child_that_does_not_know_its_arguments_is_a_sandbox_error_and_not_cached(tmp_path: Path, warm: bool) -> None:
    """Version skew between host and child is never the scene's fault: a cached code error would outlive the upgrade."""
    runner = LaterHost(WarmWorker(Limits()) if warm else FreshSandbox(Limits()))
    cache = RenderCache(tmp_path)
    try:
        result = render_on(runner, STATIC, cache=cache)
    finally:
        runner.close()
    assert result.status is RenderStatus.SANDBOX_ERROR
    assert "RenderSandboxError: the render child does not understand the host's arguments" in result.error_tail
    assert cache.get(render_key(STATIC, None, DEFAULT_QUALITY)) is None
    assert render_on(FreshSandbox(Limits()), STATIC, cache=cache).ok


def test_open_renderer_gives_each_kind_and_refuses_what_it_cannot_open() -> None:
    for kind in ("warm", "fresh"):
        with closing(open_renderer(kind, RendererOptions(workers=1, use_cache=False))) as renderer:
            assert renderer.render(RenderJob(STATIC)).ok
    with pytest.raises(ValueError, match="^unknown renderer 'docker'; choose one of: warm, fresh, ray$"):
        open_renderer("docker")
    with pytest.raises(ValueError, match="a Ray renderer needs the cluster's address"):
        open_renderer("ray")


def test_a_run_given_no_renderer_closes_the_one_it_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's fallback renderer has an owner: the run, which closes it however the run ends."""
    opened: list[CountingRenderer] = []

    def counting(*_: object) -> CountingRenderer:
        opened.append(ClosingCounter())
        return opened[-1]

    monkeypatch.setattr("manimgen.agent.strategies.open_renderer", counting)
    trace = run_agent(ScriptedLLM(format_target(STATIC)), "A red square", "vanilla")
    assert trace.ok and len(opened) == 1 and opened[0].codes == [STATIC] and opened[0].closed
    with pytest.raises(LLMError):
        run_agent(ScriptedLLM(), "A red square", "vanilla")
    assert len(opened) == 2 and opened[1].closed


class ClosingCounter(CountingRenderer):
    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    def close(self) -> None:
        super().close()
        self.closed = True
