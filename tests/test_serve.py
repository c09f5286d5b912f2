"""`manimgen serve`: the job engine, the HTTP API through a real uvicorn server, and the page in
Debian's headless chromium.

The API's end-to-end test uses the real embedded 0.5B; the engine's control-flow tests (cancel,
restart, retry) and the page's test use scripted answers so their outcome is known, with real
sandboxed renders throughout.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import av
import httpx
import pytest
import uvicorn
from PIL import Image

from manimgen.agent import format_target
from manimgen.checks import Checklist, Requirement
from manimgen.data import BUILTIN_TASKS
from manimgen.llm.base import LLM
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render.protocol import RESULT_MARKER
from manimgen.serve.api import create_app
from manimgen.serve.engine import JobEngine, JobError
from manimgen.serve.jobs import CANCELLED, DONE, FAILED, INTERRUPTED, RUNNING, Job, JobStore, new_id

SCRIPTED_SPEC = "py:scripted:make"
"""A spec the engine accepts; the tests' `llm_factory` answers it with a scripted model."""
GOOD = BUILTIN_TASKS[0].reference_code
BROKEN = GOOD.replace("Circle(", "Circel(")


def scripted(*answers: str) -> ScriptedLLM:
    return ScriptedLLM(*answers, name="scripted")


def wait_for(engine: JobEngine, job_id: str, timeout: float = 240.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = engine.job(job_id)
        assert job is not None
        if job.finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")


@pytest.fixture
def engine_with(tmp_path: Path) -> Iterator:
    engines: list[JobEngine] = []

    def make(llm: LLM | None = None, **options: object) -> JobEngine:
        factory = (lambda spec: llm) if llm is not None else options.pop("llm_factory")
        engine = JobEngine(tmp_path / "serve", llm_factory=factory, render_workers=1, **options).start()  # type: ignore[arg-type]
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def test_a_job_runs_its_rounds_and_leaves_video_code_and_trace(engine_with) -> None:  # type: ignore[no-untyped-def]
    engine = engine_with(scripted(format_target(BROKEN), format_target(GOOD)), default_model=SCRIPTED_SPEC, default_strategy="ritl")
    job = wait_for(engine, engine.submit("A blue circle turns into a square").id)
    assert (job.status, job.rounds, job.video, job.scene) == (DONE, 2, "scene.mp4", "scene.py")
    folder = engine.job_dir(job.id)
    assert (folder / "scene.py").read_text() == GOOD and (folder / "scene.mp4").stat().st_size > 0
    assert json.loads((folder / "scene.trace.json").read_text())["strategy"] == "ritl"
    events = engine.store.events(job.id)
    assert [event.kind for event in events] == ["status", "status", "checklist", "stage", "stage", "round", "stage", "stage", "round", "status"]
    assert events[2].payload == {"items": ["a blue circle", "a square", "the circle becomes a square"]}
    assert [event.payload for event in events if event.kind == "stage"] == [
        {"stage": "writing the scene", "rounds": 0}, {"stage": "rendering", "rounds": 0},
        {"stage": "writing the scene", "rounds": 1}, {"stage": "rendering", "rounds": 1},
    ]  # fmt: skip
    first_round = events[5].payload
    assert (first_round["rendered"], first_round["status"]) == (False, "code_error")
    assert "Circel" in first_round["error"], "the first line that names the error"
    assert events[-1].payload == {"status": DONE, "video": "scene.mp4"}


def test_an_edited_checklist_is_what_the_job_checks_and_its_retry_keeps_it(engine_with) -> None:  # type: ignore[no-untyped-def]
    engine = engine_with(scripted(format_target(GOOD), format_target(GOOD)), default_model=SCRIPTED_SPEC, default_strategy="sample-check")
    edited = Checklist(
        sentence="ignored: the job's sentence is the checklist's",
        requirements=[
            Requirement(kind="object", phrase="a blue circle", what="circle", colour="blue"),
            Requirement(kind="look", phrase="the circle glows", text="the circle glows"),
        ],
    )
    sentence = "A blue circle turns into a square"
    job = wait_for(engine, engine.submit(sentence, checklist=edited).id)
    assert job.status == DONE and json.loads(job.checklist or "")["sentence"] == sentence
    checklist_event = next(event for event in engine.store.events(job.id) if event.kind == "checklist")
    assert checklist_event.payload == {"items": ["a blue circle", "the circle glows"]}
    checks = json.loads((engine.job_dir(job.id) / "scene.trace.json").read_text())["checks"]
    assert [(verdict["phrase"], verdict["status"]) for verdict in checks["verdicts"]] == [("a blue circle", "held"), ("the circle glows", "unverifiable")]
    assert checks["all_held"] and not checks["sentence_held"], "a part left to look for is never vouched for"
    again = wait_for(engine, engine.retry(job.id).id)
    assert again.checklist == job.checklist


def test_a_failed_job_keeps_its_last_code_and_says_why(engine_with) -> None:  # type: ignore[no-untyped-def]
    engine = engine_with(scripted(format_target(BROKEN)), default_model=SCRIPTED_SPEC, default_strategy="vanilla")
    job = wait_for(engine, engine.submit("A blue circle").id)
    assert job.status == FAILED and job.video is None and job.scene == "scene.py"
    assert job.error is not None and job.error.startswith("the scene did not render after 1 generations (code_error: NameError")


def test_bad_requests_are_refused_with_the_fix(engine_with) -> None:  # type: ignore[no-untyped-def]
    engine = engine_with(scripted())
    with pytest.raises(JobError, match="the sentence is empty"):
        engine.submit("   ")
    with pytest.raises(JobError, match="unknown strategy 'best'; choose one of: ritl, vanilla"):
        engine.submit("A dot", strategy="best")
    with pytest.raises(JobError, match="unknown quality 'ultra'"):
        engine.submit("A dot", quality="ultra")
    with pytest.raises(JobError, match="keep it under 1000"):
        engine.submit("x" * 1001)
    with pytest.raises(JobError, match="the scene code is empty"):
        engine.submit_render("\n")
    with pytest.raises(JobError, match="unknown format 'avi'; choose one of: mp4, webm, gif, png"):
        engine.submit_render(GOOD, video_format="avi")
    with pytest.raises(JobError, match="1:9 is too narrow or too wide"):
        engine.submit("A dot", quality="low@1:9")


def test_a_portrait_gif_job_is_searched_in_its_frame_and_its_retry_keeps_the_shape(engine_with) -> None:  # type: ignore[no-untyped-def]
    engine = engine_with(scripted(format_target(GOOD), format_target(GOOD)), default_model=SCRIPTED_SPEC, default_strategy="vanilla")
    job = wait_for(engine, engine.submit("A blue circle", quality="low@9:16", video_format="gif").id)
    assert (job.status, job.quality, job.video_format, job.video) == (DONE, "low@9:16", "gif", "scene.gif")
    with Image.open(engine.job_dir(job.id) / "scene.gif") as image:
        assert image.size == (480, 854) and image.n_frames > 1
    trace = json.loads((engine.job_dir(job.id) / "scene.trace.json").read_text())
    assert trace["rounds"][0]["render"]["quality"] == "low@9:16", "the search rendered in the portrait frame"
    again = wait_for(engine, engine.retry(job.id).id)
    assert (again.quality, again.video_format, again.video) == ("low@9:16", "gif", "scene.gif")


def test_a_render_that_does_not_decode_fails_its_job_when_another_format_is_asked(engine_with) -> None:  # type: ignore[no-untyped-def]
    junk = (
        "from manim import *\nimport os\n\nclass Junk(Scene):\n    def construct(self):\n"
        "        os.makedirs('media/videos', exist_ok=True)\n        open('media/videos/render.mp4', 'wb').write(b'junk' * 999)\n"
        f"        print({RESULT_MARKER!r} + '{{\"scene\": \"Junk\"}}', flush=True)\n        os._exit(0)\n"
    )
    engine = engine_with(scripted())
    job = wait_for(engine, engine.submit_render(junk, video_format="webm").id)
    assert job.status == FAILED and job.video is None
    assert job.error is not None and job.error.startswith("the render's mp4 could not be made into webm (InvalidDataError: ")


def test_an_older_jobs_file_gains_the_format_column_and_keeps_its_jobs(tmp_path: Path) -> None:
    import sqlite3

    store = JobStore(tmp_path)
    store.add(Job(new_id(), "generate", "A dot", "m", "vanilla", "low"))
    store.close()
    with sqlite3.connect(tmp_path / "jobs.sqlite") as connection:
        connection.execute("ALTER TABLE jobs DROP COLUMN video_format")
    reopened = JobStore(tmp_path)
    try:
        (job,) = reopened.recent(10)
        assert (job.sentence, job.video_format) == ("A dot", "mp4")
    finally:
        reopened.close()


class GatedLLM(ScriptedLLM):
    """Answers only when the test opens the gate, so a job can be caught running."""

    def __init__(self, *answers: str) -> None:
        super().__init__(*answers, name="gated")
        self.gate = threading.Event()
        self.asked = threading.Event()

    def chat(self, messages, n=1, sampling=None):  # type: ignore[no-untyped-def]
        self.asked.set()
        assert self.gate.wait(60)
        return super().chat(messages, n, sampling)


def test_cancel_a_queued_and_a_running_job_and_retry(engine_with) -> None:  # type: ignore[no-untyped-def]
    llm = GatedLLM(format_target(BROKEN), format_target(GOOD), format_target(GOOD))
    engine = engine_with(llm, default_model=SCRIPTED_SPEC, default_strategy="ritl")
    running = engine.submit("A blue circle")
    queued = engine.submit("A red square")
    assert llm.asked.wait(30)
    assert engine.store.ahead(engine.job(queued.id)) == 1 and engine.store.typical_seconds("generate") is None
    assert engine.cancel(queued.id).status == CANCELLED, "a queued job is cancelled at once"
    assert engine.store.events(queued.id)[-1].payload == {"status": CANCELLED, "error": "cancelled before it started"}
    assert engine.cancel(running.id).status == RUNNING, "a running job stops when its round ends"
    llm.gate.set()
    stopped = wait_for(engine, running.id)
    assert (stopped.status, stopped.rounds, stopped.error) == (CANCELLED, 1, "cancelled while running")
    again = engine.retry(running.id)
    assert again.retry_of == running.id and again.sentence == "A blue circle"
    assert wait_for(engine, again.id).status == DONE
    assert engine.store.typical_seconds("generate") is not None, "a finished job gives the next ones an estimate"
    with pytest.raises(JobError, match="retry a job once it has finished"):
        engine.retry(engine.submit("A dot").id)


def test_a_job_cancelled_after_a_scene_rendered_keeps_that_video(engine_with) -> None:  # type: ignore[no-untyped-def]
    wide = GOOD.replace("self.play(", "self.add(Text('A caption far too wide to fit inside the frame of the video'))\n        self.play(", 1)
    llm = GatedLLM(format_target(wide), format_target(GOOD))
    engine = engine_with(llm, default_model=SCRIPTED_SPEC, default_strategy="ritl-layout")
    job = engine.submit("A blue circle")
    assert llm.asked.wait(30)
    engine.cancel(job.id)
    llm.gate.set()
    stopped = wait_for(engine, job.id)
    assert (stopped.status, stopped.error) == (CANCELLED, "cancelled while running; the last scene that rendered is kept")
    assert stopped.video == "scene.mp4" and (engine.job_dir(job.id) / "scene.mp4").stat().st_size > 0
    assert (engine.job_dir(job.id) / "scene.py").read_text(encoding="utf-8").strip() == wide.strip()


def test_a_restarted_server_marks_jobs_it_did_not_finish_and_keeps_the_rest(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "serve")
    finished = store.add(Job(new_id(), "generate", "A dot", "m", "vanilla", "low", status=DONE, video="scene.mp4"))
    cut_short = store.add(Job(new_id(), "generate", "A line", "m", "vanilla", "low", status=RUNNING))
    store.close()
    engine = JobEngine(tmp_path / "serve", llm_factory=lambda spec: scripted(), render_workers=1)
    try:
        assert engine.interrupted == [cut_short.id]
        again = engine.job(cut_short.id)
        assert again is not None and again.status == INTERRUPTED and "retry it" in (again.error or "")
        assert engine.job(finished.id).status == DONE  # type: ignore[union-attr]
    finally:
        engine.close()


# --- the HTTP API, through a real server -----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path) -> Iterator:
    servers: list[tuple[uvicorn.Server, threading.Thread, JobEngine]] = []

    def start(engine: JobEngine, token: str | None = None) -> str:
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(engine, token=token), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        servers.append((server, thread, engine))
        return f"http://127.0.0.1:{port}"

    yield start
    for server, thread, engine in servers:
        server.should_exit = True
        thread.join(timeout=10)
        engine.close()


def sse_events(client: httpx.Client, url: str) -> list[tuple[str, dict]]:
    events, kind = [], None
    with client.stream("GET", url, timeout=600) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: ") and kind is not None:
                events.append((kind, json.loads(line.removeprefix("data: "))))
                if kind == "end":
                    break
    return events


def test_the_api_end_to_end_with_the_embedded_model(served, small_gguf: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine = JobEngine(tmp_path / "api", default_model="qwen2.5-coder-0.5b", default_strategy="vanilla", max_tokens=512, render_workers=1).start()
    base = served(engine)
    with httpx.Client(base_url=base, timeout=60) as client:
        created = client.post("/api/jobs", json={"sentence": "A green dot moves from left to right"})
        assert created.status_code == 201
        job = created.json()
        events = sse_events(client, f"/api/jobs/{job['id']}/events")
        kinds = [kind for kind, _ in events]
        assert kinds[:2] == ["status", "status"] and "round" in kinds and kinds[-1] == "end"
        finished = client.get(f"/api/jobs/{job['id']}").json()
        assert finished["status"] in (DONE, FAILED) and finished["rounds"] == 1
        code = client.get(f"/api/jobs/{job['id']}/code")
        assert code.status_code == 200 and "class " in code.text
        trace = client.get(f"/api/jobs/{job['id']}/trace").json()
        assert trace["model"] == "qwen2.5-coder-0.5b" and len(trace["rounds"]) == 1
        if finished["status"] == DONE:
            video = client.get(f"/api/jobs/{job['id']}/video")
            assert video.status_code == 200
            path = tmp_path / f"fetched{Path(finished['video']).suffix}"
            path.write_bytes(video.content)
            if path.suffix == ".mp4":
                with av.open(str(path)) as container:
                    assert sum(1 for _ in container.decode(video=0)) > 0
        else:
            assert client.get(f"/api/jobs/{job['id']}/video").status_code == 404
        # an edited scene renders as a new job
        edited = client.post("/api/render", json={"code": GOOD, "sentence": "edited"}).json()
        assert [kind for kind, _ in sse_events(client, f"/api/jobs/{edited['id']}/events")][-2:] == ["status", "end"]
        assert client.get(f"/api/jobs/{edited['id']}").json()["status"] == DONE
        assert client.get(f"/api/jobs/{edited['id']}/poster").headers["content-type"] == "image/png"
        assert [item["id"] for item in client.get("/api/jobs").json()][:2] == [edited["id"], job["id"]]
        square = client.post("/api/render", json={"code": GOOD, "aspect": "1:1", "format": "webm"}).json()
        sse_events(client, f"/api/jobs/{square['id']}/events")
        fetched = client.get(f"/api/jobs/{square['id']}/video")
        assert fetched.headers["content-type"] == "video/webm"
        (tmp_path / "square.webm").write_bytes(fetched.content)
        with av.open(str(tmp_path / "square.webm")) as container:
            assert (container.streams.video[0].codec_context.name, container.streams.video[0].width, container.streams.video[0].height) == ("vp9", 480, 480)
        assert client.get("/openapi.json").json()["info"]["title"] == "manimgen"


def test_the_api_refuses_bad_input_with_a_message(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = served(JobEngine(tmp_path / "api", llm_factory=lambda spec: scripted(), render_workers=1).start())
    with httpx.Client(base_url=base, timeout=30) as client:
        empty = client.post("/api/jobs", json={"sentence": " "})
        assert empty.status_code == 422 and empty.json()["detail"].startswith("the sentence is empty")
        assert client.post("/api/jobs", json={"sentence": "x" * 1001}).status_code == 422
        planned = client.get("/api/checklist", params={"sentence": "Draw a purple pentagon and rotate it by 72 degrees."}).json()
        assert [item["kind"] for item in planned["requirements"]] == ["object", "rotate"]
        assert client.get("/api/checklist", params={"sentence": " "}).status_code == 422
        assert len(client.get("/api/checklist", params={"sentence": ("apple, " * 140)[:1000]}).json()["requirements"]) == 40
        bogus = {"sentence": "A red dot", "checklist": {"sentence": "A red dot", "requirements": [{"kind": "sparkle", "phrase": "SECRET-INPUT"}]}}
        refused = client.post("/api/jobs", json=bogus)
        assert refused.status_code == 422 and "SECRET-INPUT" not in refused.text
        assert refused.json()["detail"][0]["loc"][:4] == ["body", "checklist", "requirements", 0]
        assert client.get("/api/jobs/nope").json() == {"detail": "no job 'nope'; list jobs with GET /api/jobs"}
        sideways = client.post("/api/render", json={"code": GOOD, "aspect": "9x16"})
        assert sideways.status_code == 422 and sideways.json()["detail"].startswith("cannot read '9x16' as an aspect; write WIDTH:HEIGHT")
        both = client.post("/api/jobs", json={"sentence": "A dot", "aspect": "9:16", "resolution": "1080x1920"})
        assert both.json()["detail"] == "give an aspect or a resolution, not both: the size sets the aspect"
        options = client.get("/api/options").json()
        assert list(options["aspects"]) == ["16:9", "9:16", "1:1"] and list(options["formats"]) == ["mp4", "webm", "gif", "png"]
        huge = client.post("/api/render", content=b"{" + b" " * 100_000 + b"}", headers={"content-type": "application/json"})
        assert huge.status_code == 413 and "over" in huge.json()["detail"]


def test_a_token_guards_every_api_request(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = served(JobEngine(tmp_path / "api", llm_factory=lambda spec: scripted(), render_workers=1).start(), token="s3cret")
    with httpx.Client(base_url=base, timeout=30) as client:
        refused = client.get("/api/jobs")
        assert refused.status_code == 401 and "Authorization: Bearer TOKEN" in refused.json()["detail"]
        assert client.get("/api/jobs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert client.get("/api/jobs?token=s3cret").status_code == 200
        assert client.get("/").status_code == 200, "the page itself loads and asks for the token"


# --- the page, in a real browser -------------------------------------------------------------------


class SlowScripted(ScriptedLLM):
    """Scripted answers that take a second each, so the page can be seen saying what the job is doing."""

    def chat(self, messages, n=1, sampling=None):  # type: ignore[no-untyped-def]
        time.sleep(1.0)
        return super().chat(messages, n, sampling)


def chromium() -> tuple[str, str]:
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("Debian's chromium and chromium-driver are not installed (bash scripts/setup.sh --test installs them)")
    return browser, driver


def test_the_page_makes_a_video_and_shows_its_rounds_and_code(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser, driver_path = chromium()
    llm = SlowScripted(format_target(BROKEN), format_target(GOOD), name="scripted")
    engine = JobEngine(tmp_path / "page", llm_factory=lambda spec: llm, default_model=SCRIPTED_SPEC, default_strategy="ritl", render_workers=1)
    base = served(engine.start())
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,1400", "--mute-audio"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(base + "/")
        wait = WebDriverWait(driver, 240)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#strategy option"))
        first, second = driver.find_elements(By.CSS_SELECTOR, "#strategy option")[:2]
        assert first.text == "Recommended" and "shows the model the error" in first.get_attribute("title") and first.get_attribute("value") == "ritl", "the default first, in words"
        assert second.text == "Asks the model once and shows what it wrote, even when it fails" and second.get_attribute("title").startswith("vanilla: one generation"), "the others in words too, the name on hover"
        driver.find_element(By.ID, "sentence").send_keys("A blue circle turns into a square")
        driver.find_element(By.CSS_SELECTOR, "#plan-panel summary").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plan li input")) == 3)
        assert [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#plan li")] == ["a blue circle", "a square", "the circle becomes a square"]
        driver.find_elements(By.CSS_SELECTOR, "#plan li input")[1].click()
        driver.find_element(By.ID, "plan-extra").send_keys("the square ends in the centre")
        driver.find_element(By.ID, "plan-add").click()
        driver.save_screenshot(str(tmp_path / "plan.png"))
        driver.find_element(By.ID, "go").click()
        stages = set()
        wait.until(lambda d: stages.add(d.find_element(By.ID, "job-status").text) or "Done" in d.find_element(By.ID, "job-status").text)
        assert stages & {"Writing the scene…", "Rendering…", "Writing the scene (round 2)…", "Rendering (round 2)…"}, stages
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#checklist li")) == 3)
        shown = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#checklist li")]
        phrases = [text[2:].split(" — ")[0] for text in shown]  # the mark, then the phrase (and, once the job ends, what was seen)
        assert phrases == ["a blue circle", "the circle becomes a square", "the square ends in the centre"], "the edit is what the job checks"
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rounds li")) >= 1)
        wait.until(lambda d: "Done" in d.find_element(By.ID, "job-status").text)
        rounds = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#rounds li")]
        assert len(rounds) == 2 and "code_error" in rounds[0] and "Circel" in rounds[0] and "rendered" in rounds[1]
        state = wait.until(lambda d: d.execute_script(
            "const v = document.getElementById('video'); return v.readyState >= 1 && v.duration > 0 ? [v.readyState, v.duration] : null"
        ))
        assert state[1] > 0.5
        assert driver.find_element(By.ID, "code").get_attribute("value") == GOOD
        assert not driver.find_element(By.ID, "retry").is_displayed(), "a finished job offers no retry"
        unchecked = driver.find_elements(By.CSS_SELECTOR, "#checklist li")[0].text
        assert unchecked == "? a blue circle — the ritl strategy does not check it; look for it"
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#history img"))
        driver.save_screenshot(str(tmp_path / "page.png"))
        assert (tmp_path / "page.png").stat().st_size > 10_000
        driver.set_window_size(390, 844)  # a phone
        width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], "nothing wider than a phone's screen"
        driver.save_screenshot(str(tmp_path / "phone.png"))
        driver.set_window_size(1100, 1400)
        from selenium.webdriver.support.ui import Select

        Select(driver.find_element(By.ID, "aspect")).select_by_value("9:16")
        Select(driver.find_element(By.ID, "format")).select_by_value("gif")
        assert Select(driver.find_element(By.ID, "format")).first_selected_option.get_attribute("title").startswith("a looping GIF")
        driver.execute_script("document.getElementById('code-panel').open = true")
        driver.find_element(By.ID, "rerender").click()
        opened = WebDriverWait(driver, 60, poll_frequency=0.02).until(lambda d: d.execute_script(
            "const status = document.getElementById('job-status').className;"
            "return document.getElementById('job-title').textContent === 'Rendering edited code' ? [status,"
            " document.getElementById('download-video').hasAttribute('href'), document.getElementById('video').hasAttribute('src')] : null"
        ))
        if "done" not in opened[0]:
            assert opened[1:] == [False, False], "a job that has not finished shows none of the previous job's video or links"
        size = wait.until(lambda d: d.execute_script(
            "const s = document.getElementById('still'); return !s.hidden && s.complete && s.naturalWidth ? [s.naturalWidth, s.naturalHeight] : null"
        ))
        assert size == [480, 854] and not driver.find_element(By.ID, "video").is_displayed(), "a portrait GIF, shown as a picture"
        driver.save_screenshot(str(tmp_path / "gif.png"))
    finally:
        driver.quit()


def test_the_page_says_what_to_do_when_its_token_prompt_is_dismissed(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser, driver_path = chromium()
    engine = JobEngine(tmp_path / "guarded", llm_factory=lambda spec: SlowScripted(name="scripted"), default_model=SCRIPTED_SPEC, render_workers=1)
    base = served(engine.start(), token="s3cret")
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(base + "/")
        wait = WebDriverWait(driver, 60)
        wait.until(lambda d: d.switch_to.alert).dismiss()
        wait.until(lambda d: d.find_element(By.ID, "form-error").is_displayed())
        assert "needs the token it printed when it started" in driver.find_element(By.ID, "form-error").text
    finally:
        driver.quit()


# --- generate: the code beside the video, the final quality, a batch ---------------------------------


def test_generate_writes_the_code_beside_the_video_renders_the_asked_quality_and_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from manimgen.cli import app

    (tmp_path / "batch_model.py").write_text(
        "from manimgen.agent import format_target\nfrom manimgen.llm.scripted import ScriptedLLM\n\n\n"
        f"def make():\n    good = format_target({GOOD!r})\n    return ScriptedLLM(good, good, 'no code here', good, name='scripted')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    spec = ["--model", "py:batch_model:make", "--strategy", "vanilla"]
    one = runner.invoke(app, ["generate", "A blue circle", *spec, "--quality", "preview", "--out", "made/circle.mp4"], env={"COLUMNS": "200"})
    assert one.exit_code == 0, one.output
    assert (tmp_path / "made/circle.py").read_text() == GOOD
    with av.open(str(tmp_path / "made/circle.mp4")) as container:
        assert (container.streams.video[0].width, container.streams.video[0].height) == (320, 180), "rendered again at preview"
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("A blue circle\n# a comment\nA red square\nA green dot\n")
    first = runner.invoke(app, ["generate", "--batch", str(sentences), *spec, "--out", "batch"], env={"COLUMNS": "200"})
    assert first.exit_code == 1, "the third sentence got no code"
    assert "2 of 3 sentences have a video (3 run now)" in first.output
    made = sorted(path.name for path in (tmp_path / "batch").glob("*.mp4"))
    assert made == ["001-a-blue-circle.mp4", "002-a-red-square.mp4"]
    assert [json.loads(line)["ok"] for line in (tmp_path / "batch/batch.jsonl").read_text().splitlines()] == [True, True, False]
    again = runner.invoke(app, ["generate", "--batch", str(sentences), *spec, "--out", "batch"], env={"COLUMNS": "200"})
    assert again.exit_code == 0 and "3 of 3 sentences have a video (1 run now)" in again.output, "a rerun redoes only the one without"
    phone = runner.invoke(app, ["generate", "A blue circle", *spec, "--aspect", "9:16", "--format", "webm", "--out", "made/phone"], env={"COLUMNS": "200"})
    assert phone.exit_code == 0, phone.output
    with av.open(str(tmp_path / "made/phone.webm")) as container:
        assert (container.streams.video[0].codec_context.name, container.streams.video[0].width, container.streams.video[0].height) == ("vp9", 480, 854)
    unknown = runner.invoke(app, ["generate", "A blue circle", *spec, "--format", "avi"], env={"COLUMNS": "200"})
    assert unknown.exit_code == 2 and "unknown format 'avi'; choose one of: mp4, webm, gif, png" in unknown.output
    neither = runner.invoke(app, ["generate", *spec], env={"COLUMNS": "200"})
    assert neither.exit_code == 2 and "give one sentence, or --batch FILE" in neither.output


def test_generate_hands_its_sentence_to_a_running_server_and_fetches_the_files(served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from manimgen.cli import app

    good = format_target(GOOD)
    engine = JobEngine(tmp_path / "api", llm_factory=lambda spec: scripted("no code here", good), render_workers=1).start()
    base = served(engine, token="s3cret")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    asked = ["generate", "A blue circle", "--server", base, "--strategy", "ritl", "--quality", "preview", "--format", "webm", "--out", "made/circle", "--trace", "made/trace.json"]
    made = runner.invoke(app, asked, env={"COLUMNS": "200", "MANIMGEN_TOKEN": "s3cret"})
    assert made.exit_code == 0, made.output
    assert "strategy ritl" in made.output and "round 1 generate" in made.output and "no code" in made.output
    assert "round 2 repair" in made.output and "ok 2 rounds" in made.output
    assert (tmp_path / "made/circle.py").read_text() == GOOD
    with av.open(str(tmp_path / "made/circle.webm")) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.name, stream.width, stream.height) == ("vp9", 320, 180)
    assert len(json.loads((tmp_path / "made/trace.json").read_text())["rounds"]) == 2
    assert [job.model for job in engine.store.recent(5)] == [engine.default_model], "the server's model, loaded there"
    no_token = runner.invoke(app, asked, env={"COLUMNS": "200", "MANIMGEN_TOKEN": ""})
    assert no_token.exit_code == 2 and "the server needs its token: give --token or set $MANIMGEN_TOKEN" in no_token.output
    refused = runner.invoke(app, [*asked[:4], "--strategy", "nonesuch", "--token", "s3cret"], env={"COLUMNS": "200"})
    assert refused.exit_code == 2 and "the server refused: unknown strategy 'nonesuch'" in refused.output
    away = runner.invoke(app, ["generate", "A blue circle", "--server", f"http://127.0.0.1:{free_port()}"], env={"COLUMNS": "200"})
    assert away.exit_code == 2 and "cannot reach the server at http://127.0.0.1:" in away.output and "start one with `manimgen serve`" in away.output
    scheme = runner.invoke(app, ["generate", "A blue circle", "--server", "127.0.0.1:8000"], env={"COLUMNS": "200"})
    assert scheme.exit_code == 2 and "must start with http:// or https://" in scheme.output
    batch = runner.invoke(app, ["generate", "--batch", "made/circle.py", "--server", base], env={"COLUMNS": "200"})
    assert batch.exit_code == 2 and "--server takes one sentence" in batch.output


def test_the_server_client_names_the_files_and_refuses_odd_answers(tmp_path: Path) -> None:
    """A server's answers are data: the file is named here, its suffix one of the known formats, its size capped."""
    from manimgen.serve import client

    def answering(job: dict, body: bytes = b"video") -> httpx.Client:
        def handle(request: httpx.Request) -> httpx.Response:
            if request.url.path.endswith(("/video", "/code")):
                return httpx.Response(200, content=body)
            return httpx.Response(200, json=job)

        return httpx.Client(transport=httpx.MockTransport(handle), base_url="http://server")

    with answering({"id": "abc", "video": "../../outside.mp4"}) as session:
        assert client.fetch(session, "abc", "video", client.video_path({"video": "../../outside.mp4"}, tmp_path / "here")) == tmp_path / "here.mp4"
    assert (tmp_path / "here.mp4").read_bytes() == b"video" and not (tmp_path.parent / "outside.mp4").exists()
    with answering({"id": "abc", "video": "scene.sh"}) as session, pytest.raises(client.ServerError, match=r"not one of the known formats \(\.sh\)"):
        client.fetch(session, "abc", "video", client.video_path({"video": "scene.sh"}, tmp_path / "odd"))
    assert not list(tmp_path.glob("odd*"))
    with answering({"id": "abc", "video": "scene.gif"}, b"x" * 64) as session, pytest.MonkeyPatch.context() as patch:
        patch.setattr(client, "MAX_DOWNLOAD", 16)
        with pytest.raises(client.ServerError, match="over 0 MiB; not kept"):
            client.fetch(session, "abc", "video", client.video_path({"video": "scene.gif"}, tmp_path / "big"))
    assert not (tmp_path / "big.gif").exists()
    with answering(["not", "a", "job"]) as session, pytest.raises(client.ServerError, match="is not a job; is http://server a manimgen server"):  # type: ignore[arg-type]
        client.submit(session, {"sentence": "A blue circle"})
    with answering({"id": "../etc"}) as session, pytest.raises(client.ServerError, match="without a usable id"):
        client.submit(session, {"sentence": "A blue circle"})


def test_the_serve_command_off_loopback_makes_a_token_and_says_so(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "manimgen.cli", "serve", "--host", "0.0.0.0", "--port", str(port), "--root", str(tmp_path / "serve")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "COLUMNS": "200"})
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(3)]
        assert lines[0].startswith("bound to 0.0.0.0: every API request needs the token")
        token = lines[1].removeprefix("token: ").strip()
        assert len(token) >= 24 and lines[2].startswith(f"page: http://0.0.0.0:{port}/?token={token}")
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx.get(f"http://127.0.0.1:{port}/api/jobs", timeout=5)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        assert refused.status_code == 401
        assert httpx.get(f"http://127.0.0.1:{port}/api/jobs", headers={"Authorization": f"Bearer {token}"}, timeout=5).json() == []
    finally:
        server.terminate()
        server.wait(timeout=30)
