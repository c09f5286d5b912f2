"""Rendering, the study and the reward on a real two-node Ray cluster started by the tests.

`ray.cluster_utils.Cluster` starts a head node and a worker node as separate Ray processes on this
machine; each offers one unit of the `manim` resource, so the render actors sit on both. Results are
compared with the local pool's; a node is removed mid-render and mid-study to show nothing is lost or
recorded twice.
"""

from __future__ import annotations

import operator
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from manimgen.agent import format_target
from manimgen.bench import BenchRunner, Store
from manimgen.bench.config import parse_config
from manimgen.bench.generations import CACHE_NAME
from manimgen.doctor import ray_node_checks, render_stack_checks
from manimgen.llm.base import ChatResult, Message, Sampling, Usage
from manimgen.render import RenderCache, RenderJob, RenderPool, ray_backend
from manimgen.render.ray_backend import RayBackendError, RayRenderer, checked
from manimgen.render.result import RenderStatus
from manimgen.render.sandbox import Limits
from manimgen.scoring import Scorer
from manimgen.train.reward import ManimReward

GOOD = """from manim import *


class Dot3(Scene):
    def construct(self):
        self.play(Create(VGroup(*[Dot(RIGHT * i) for i in range(3)])), run_time=0.5)
"""
STILL = """from manim import *


class Still(Scene):
    def construct(self):
        self.add(Square(color=RED))
"""
BROKEN = """from manim import *


class Broken(Scene):
    def construct(self):
        self.play(Create(NoSuchMobject()))
"""
SLOW = """from manim import *
import time


class Slow{n}(Scene):
    def construct(self):
        time.sleep({seconds})
        self.add(Circle())
"""


RENDER_NODE = {"num_cpus": 1, "resources": {"manim": 1}, "object_store_memory": 100 << 20}
"""A node of the tests' clusters: one CPU and one `manim` unit; the head is one too, without a dashboard."""
HEAD_NODE = {**RENDER_NODE, "include_dashboard": False}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and a worker node, one `manim` unit and one CPU each; the test process is the driver."""
    nodes = Cluster(initialize_head=True, head_node_args=HEAD_NODE)
    nodes.add_node(**RENDER_NODE)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, logging_level="warning", log_to_driver=False)
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def comparable(result) -> tuple:
    """What must agree between a Ray render and a local one: status, scene, error tail and the bytes."""
    data = result.output.read_bytes() if result.output is not None else None
    return result.status, result.scene, result.error_tail, data


def test_ray_renders_equal_local_ones(cluster: Cluster, tmp_path: Path) -> None:
    jobs = [RenderJob(GOOD), RenderJob(STILL), RenderJob(BROKEN), RenderJob("def broken(:\n")]
    with RenderPool(2, use_cache=False) as pool:
        local = pool.map(jobs)
    cache = RenderCache(tmp_path / "cache")
    with RayRenderer(cluster.address, cache=cache) as renderer:
        assert renderer.workers == 2
        remote = renderer.map(jobs)
        again = renderer.render(jobs[0])
    assert [comparable(result) for result in remote] == [comparable(result) for result in local]
    assert [result.status for result in remote] == [RenderStatus.OK, RenderStatus.OK, RenderStatus.CODE_ERROR, RenderStatus.CODE_ERROR]
    assert remote[1].output.suffix == ".png" and "NoSuchMobject" in remote[2].error_tail
    assert remote[0].output.is_relative_to(cache.root) and not remote[0].cached
    assert again.cached and again.output == remote[0].output  # a hit never leaves the caller


def test_a_node_that_dies_mid_render_loses_nothing(cluster: Cluster, tmp_path: Path) -> None:
    """A third node joins; it is removed while all three actors render; every render still comes back, once."""
    doomed = cluster.add_node(**RENDER_NODE)
    cluster.wait_for_nodes()
    cache = RenderCache(tmp_path / "cache")
    jobs = [RenderJob(SLOW.format(n=n, seconds=6)) for n in range(3)]
    with RayRenderer(cluster.address, cache=cache, timeout_s=120) as renderer:
        assert renderer.workers == 3
        killer = threading.Timer(3.0, cluster.remove_node, args=(doomed,))
        killer.start()
        results = renderer.map(jobs)
        killer.join()
    assert [result.status for result in results] == [RenderStatus.OK] * 3
    assert [result.scene for result in results] == ["Slow0", "Slow1", "Slow2"]
    assert len([path for path in cache.root.glob("*/*") if path.is_dir()]) == 3


def test_work_that_raises_on_an_actor_gives_the_actor_back(cluster: Cluster, tmp_path: Path) -> None:
    with RayRenderer(cluster.address, cache=RenderCache(tmp_path / "cache")) as renderer:
        for _ in range(renderer.workers + 1):
            with pytest.raises(TypeError, match="not subscriptable"):
                renderer.apply(operator.getitem, "key")  # `renderer["key"]` on the node: raises there
        assert renderer.render(RenderJob(STILL)).ok  # no actor was lost to the errors


def test_a_cluster_without_render_nodes_is_refused_with_the_fix(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_backend, "RESOURCE", "manim-absent")
    with pytest.raises(RayBackendError, match=r"offers the `manim-absent` resource; start render nodes with `ray start"):
        RayRenderer(cluster.address)


def test_doctor_checks_the_render_stack_on_every_node(cluster: Cluster) -> None:
    reports = ray_node_checks(cluster.address)
    assert len(reports) == len([node for node in ray.nodes() if node["Alive"]]) >= 2
    assert all(report.manim_units == 1 for report in reports)
    names = {check.name.split(":")[0] for report in reports for check in report.checks}
    assert {"manim", "latex", "cairo", "sandbox"} <= names
    assert all(report.checks == render_stack_checks() for report in reports)  # every node is this machine


@pytest.mark.parametrize(
    ("data", "payload", "refusal"),
    [
        ({"status": "ok", "output": "Dot3.mp4", "scene": "Dot3", "error_tail": "", "quality": "low", "seconds": 1.0}, None, "output is missing"),
        ({"status": "ok", "output": "x.sh", "scene": "Dot3", "error_tail": "", "quality": "low", "seconds": 1.0}, b"#!", "unknown kind"),
        ({"status": "ok", "output": "E.mp4", "scene": "Evil", "error_tail": "", "quality": "low", "seconds": 1.0}, b"\0", "does not define"),
        ({"status": "ok", "output": "a.mp4", "scene": "../x", "error_tail": "", "quality": "low", "seconds": 1.0}, b"\0", "does not define"),
        ({"status": "pwned"}, None, "could not be read"),
        ("not a dict", None, "could not be read"),
    ],
)
def test_an_actors_answer_is_checked_like_the_sandboxes(data: object, payload: object, refusal: str) -> None:
    answer = checked(data, payload, RenderJob(GOOD), Limits())
    assert isinstance(answer, str) and answer.startswith("RenderBackendError") and refusal in answer


def test_an_oversized_output_is_refused() -> None:
    data = {"status": "ok", "output": "Dot3.mp4", "scene": "Dot3", "error_tail": "", "quality": "low", "seconds": 1.0}
    answer = checked(data, b"0" * 2048, RenderJob(GOOD), Limits(file_size_bytes=1024))
    assert isinstance(answer, str) and "over the size limit" in answer


def study_config(out: Path, **changes: object):
    data = {"out": out, "models": ["fixed=scripted"], "strategies": ["vanilla"], "split": "builtin",
            "tasks": list(ANSWERS), "score_workers": 2}  # fmt: skip
    return parse_config({**data, **changes})


def rows(run_dir: Path) -> list[tuple]:
    """Each sample's outcome; scores to 6 places (embeddings computed in other threads differ in the 8th)."""
    with Store.open_existing(run_dir) as store:
        samples = store.samples()
    return sorted(
        (s.task_id, s.status, s.final_code, s.score("rendered"), *(round(s.score(name) or 0.0, 6) for name in ("vs", "cbb")), s.score("layout_findings"))
        for s in samples
    )


class KeyedLLM:
    """Answers by which task it is asked about (a phrase of the description), so concurrent generation stays deterministic."""

    name = "fixed"

    def __init__(self, answers: dict[str, str]) -> None:
        self._answers = {PHRASES[task_id]: answer for task_id, answer in answers.items()}

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        prompt = messages[-1]["content"]
        answer = next(answer for phrase, answer in self._answers.items() if phrase in prompt)
        return ChatResult([answer] * n, Usage(len(prompt.split()), len(answer.split())))

    def close(self) -> None:
        pass


PHRASES = {
    "circle-to-square": "A blue circle is drawn", "three-dots": "Three dots, yellow", "square-grid": "grid of small white squares",
    "hello-text": "Hello, Manim", "pythagoras-formula": "formula a squared", "moving-square": "A green square starts",
}  # fmt: skip
ANSWERS = {"circle-to-square": format_target(GOOD), "three-dots": format_target(BROKEN), "square-grid": format_target(STILL)}
SLOW_ANSWERS = {task_id: format_target(SLOW.format(n=n, seconds=3)) for n, task_id in enumerate(list(PHRASES)[2:])}


def test_a_study_on_ray_stores_the_rows_a_local_one_does(cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    BenchRunner(study_config(local), local, llm_factory=lambda spec: KeyedLLM(ANSWERS), show_progress=False).run()
    config = study_config(remote, ray=cluster.address, models=[{"spec": "scripted", "label": "fixed", "concurrency": 2}])

    def not_here(*_: object, **__: object) -> None:
        raise AssertionError("a sample with a reference was scored on the driver, not on a render actor")

    monkeypatch.setattr(Scorer, "score_task", not_here)
    BenchRunner(config, remote, llm_factory=lambda spec: KeyedLLM(ANSWERS), show_progress=False).run()
    monkeypatch.undo()
    for run_dir in (local, remote):
        with Store.open_existing(run_dir) as store:
            assert [sample.error for sample in store.samples() if sample.error] == []
    assert rows(remote) == rows(local)
    assert [row[1] for row in rows(local)] == ["ok", "ok", "render_failed"]


def test_the_reward_on_ray_equals_the_local_reward(cluster: Cluster) -> None:
    completions = [format_target(GOOD), format_target(STILL), format_target(BROKEN), "no code at all"]
    references = [GOOD, GOOD, GOOD, GOOD]
    local = ManimReward(workers=2)
    on_ray = ManimReward(ray=cluster.address)
    try:
        expected = local(["p"] * 4, completions, reference_code=references)
        got = on_ray(["p"] * 4, completions, reference_code=references)
    finally:
        local.close()
        on_ray.close()
    assert got == pytest.approx(expected, abs=1e-9)
    assert expected[0] == pytest.approx(1.0, abs=1e-6) and expected[3] == 0.0 and expected[2] < 0.2  # broken: the text part only


def test_a_study_survives_a_node_removed_mid_run(cluster: Cluster, tmp_path: Path) -> None:
    """Samples are recorded once each, none lost, when a render node leaves while the study runs."""
    doomed = cluster.add_node(**RENDER_NODE)
    cluster.wait_for_nodes()
    run_dir = tmp_path / "run"
    config = study_config(run_dir, ray=cluster.address, tasks=list(SLOW_ANSWERS), models=[{"spec": "scripted", "label": "fixed", "concurrency": 3}])
    killer = threading.Timer(4.0, cluster.remove_node, args=(doomed,))
    killer.start()
    started = time.monotonic()
    summary = BenchRunner(config, run_dir, llm_factory=lambda spec: KeyedLLM(SLOW_ANSWERS), show_progress=False).run()
    killer.join()
    assert time.monotonic() - started > 4.0  # the node left while the study ran
    assert summary.recorded == 4
    assert [row[1] for row in rows(run_dir)] == ["ok"] * 4


def test_a_study_of_the_real_05b_served_over_http_matches_on_ray(cluster: Cluster, llama_server: str, tmp_path: Path) -> None:
    """The embedded 0.5B behind an OpenAI-compatible server, two samples at a time, renders on Ray; then the same
    study locally, replaying the server's answers (llama.cpp reuses the previous request's prompt prefix, so
    a seeded answer depends on the order requests arrive): the stored rows are the same."""
    model = {"spec": f"openai:{llama_server}#qwen", "label": "qwen-0.5b"}
    tasks = ["circle-to-square", "three-dots"]
    local, remote = tmp_path / "local", tmp_path / "ray"
    config = study_config(remote, tasks=tasks, models=[{**model, "concurrency": 2}], ray=cluster.address)
    BenchRunner(config, remote, show_progress=False).run()
    local.mkdir()
    shutil.copy(remote / CACHE_NAME, local / CACHE_NAME)
    BenchRunner(study_config(local, tasks=tasks, models=[model]), local, show_progress=False).run()
    assert rows(remote) == rows(local)
    with Store.open_existing(remote) as store:
        assert all(sample.llm_calls == 1 and sample.completion_tokens > 0 for sample in store.samples())


def test_a_second_cluster_address_in_one_process_is_refused(cluster: Cluster) -> None:
    with pytest.raises(RayBackendError, match="already connected to the Ray cluster at .*; use that address"):
        RayRenderer("127.0.0.1:1")


def test_doctor_lists_every_node_of_the_cluster(cluster: Cluster) -> None:
    from typer.testing import CliRunner

    from manimgen.cli import app

    result = CliRunner().invoke(app, ["doctor", "--ray", cluster.address], terminal_width=200)
    alive = [node for node in ray.nodes() if node["Alive"]]
    assert f"Ray cluster at {cluster.address}" in result.output
    assert all(node["NodeID"][:8] in result.output for node in alive)
