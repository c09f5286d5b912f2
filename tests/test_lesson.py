"""Lessons: pacing, subtitles, the storyboard, the voices, and a whole lesson made and measured from its files."""

from __future__ import annotations

import http.server
import json
import random
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import av
import mutagen.mp4
import numpy as np
import pytest
from typer.testing import CliRunner

from manimgen.cli import app
from manimgen.lesson import LessonOptions, StoryboardError, VoiceError, load_storyboard, make_lesson, open_voice, write_storyboard
from manimgen.lesson.storyboard import Scene, Storyboard, answer_schema
from manimgen.lesson.subtitles import to_srt, to_vtt
from manimgen.lesson.timing import PAUSE_S, Cue, frame_counts, pace, runs_for
from manimgen.lesson.voice import RATE, Espeak, SpeechEndpoint, read_audio
from manimgen.llm.scripted import ScriptedLLM
from manimgen.registry import UnknownChoice
from manimgen.render import open_renderer

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng: apt-get install espeak-ng")

SCENE = """<CODE>
```python
from manim import *


class Shapes(Scene):
    def construct(self):
        circle = Circle(color=BLUE)
        self.play(Create(circle))
        self.play(circle.animate.shift(LEFT * 2))
        square = Square(color=RED).shift(RIGHT * 2)
        self.play(FadeIn(square))
        self.wait(0.5)
```
</CODE>"""
BROKEN = "<CODE>\n```python\nfrom manim import *\n\n\nclass Broken(Scene):\n    def construct(self):\n        self.play(Create(NoSuchShape()))\n```\n</CODE>"


# --- pacing -------------------------------------------------------------------------------------------


def test_runs_cut_only_at_step_ends_and_cover_the_scene() -> None:
    assert runs_for([1.0, 2.0, 3.0, 4.0], 4.0, 2) == [(0.0, 2.0), (2.0, 4.0)]
    assert runs_for([1.0, 2.0, 3.0], 3.0, 3) == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
    assert runs_for([], 3.0, 2) == [(0.0, 3.0), (3.0, 3.0)]  # fewer steps than lines: the second line is said over a hold


@pytest.mark.parametrize("seed", range(40))
def test_pacing_says_every_line_once_in_order_without_overlap(seed: int) -> None:
    rng = random.Random(seed)
    duration = rng.uniform(0.5, 12)
    steps = sorted(rng.uniform(0, duration) for _ in range(rng.randint(0, 8))) + [duration]
    lines = [(f"line {index}", rng.uniform(0.3, 6)) for index in range(rng.randint(1, 5))]
    runs, cues = pace(steps, duration, lines)
    assert [cue.text for cue in cues] == [text for text, _ in lines]
    clock = 0.0
    for run, cue, (_, spoken) in zip(runs, cues, lines):
        assert cue.start == pytest.approx(clock)
        assert cue.end - cue.start == pytest.approx(spoken)
        assert run.seconds >= spoken + PAUSE_S - 1e-9  # the line and its pause fit inside its run
        clock += run.seconds
    assert all(before.end <= after.start for before, after in zip(cues, cues[1:]))
    assert [run.start for run in runs[1:]] == [run.end for run in runs[:-1]] and runs[0].start == 0 and runs[-1].end == duration
    fps = rng.choice([15, 30, 60])
    frames = max(1, round(duration * fps))
    counts = frame_counts(runs, fps, frames)
    assert sum(counts) == round(sum(run.seconds for run in runs) * fps)  # the paced video lasts exactly as long as its runs


def test_frame_counts_hold_the_last_frame_of_a_run() -> None:
    runs, _ = pace([1.0, 2.0], 2.0, [("one", 2.0), ("two", 0.1)])
    counts = frame_counts(runs, 10, 20)
    assert counts[:9] == [1] * 9 and counts[9] == 1 + round((2.0 + PAUSE_S - 1.0) * 10)  # frame 9 ends the first run and is held
    assert counts[10:] == [1] * 10


# --- subtitles and chapters ---------------------------------------------------------------------------


def test_subtitles_in_srt_and_webvtt() -> None:
    cues = [Cue(0.0, 1.25, "Here is a circle."), Cue(61.5, 63.0, "x < y & -->\n\nnext")]
    assert to_srt(cues).startswith("1\n00:00:00,000 --> 00:00:01,250\nHere is a circle.\n\n2\n00:01:01,500 --> 00:01:03,000\n")
    vtt = to_vtt(cues)
    assert vtt.startswith("WEBVTT\n\n00:00:00.000 --> 00:00:01.250\nHere is a circle.\n\n00:01:01.500 --> 00:01:03.000\n")
    assert "x &lt; y &amp; --&gt;\nnext" in vtt  # no blank line inside a cue, markup escaped (so no "-->" either)


def test_chapters_are_not_written_into_a_file_laid_out_otherwise(tmp_path: Path) -> None:
    from manimgen.lesson.chapters import add_chapters

    odd = tmp_path / "odd.mp4"
    odd.write_bytes(b"\x00\x00\x00\x10moovxxxxxxxx" + b"\x00\x00\x00\x08mdat")  # the movie box is not last
    assert add_chapters(odd, [(0.0, "one")]) is False and odd.read_bytes().endswith(b"mdat")


# --- the storyboard -----------------------------------------------------------------------------------

BOARD = {
    "title": "Two shapes",
    "scenes": [
        {"title": "A circle", "narration": ["Here is a circle.", "It moves to the left."], "shows": "A blue circle moves to the left"},
        {"title": "A square", "narration": ["Now a square appears."], "shows": "A red square appears"},
    ],
}


def test_storyboard_from_the_model_under_a_schema_gets_checklists() -> None:
    llm = ScriptedLLM("```json\n" + json.dumps(BOARD) + "\n```")
    board = write_storyboard(llm, "Shapes that move", 2)
    assert llm.calls[0].sampling.schema == answer_schema(2)  # the provider constrains decoding to this
    assert [scene.title for scene in board.scenes] == ["A circle", "A square"]
    assert board.scenes[0].checklist is not None and any(item.kind == "object" and item.colour == "blue" for item in board.scenes[0].checklist.requirements)
    with pytest.raises(StoryboardError, match="not JSON"):
        write_storyboard(ScriptedLLM("here is a lesson about shapes"), "Shapes", 2)
    with pytest.raises(StoryboardError, match="2 to 8 scenes"):
        write_storyboard(ScriptedLLM(), "Shapes", 12)


def test_storyboard_file_errors_name_the_place(tmp_path: Path) -> None:
    path = tmp_path / "storyboard.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(StoryboardError, match="not JSON \\(line 1"):
        load_storyboard(path)
    path.write_text(json.dumps({"title": "t", "topic": "t", "scenes": [{"title": "a", "narration": [], "shows": "x"}]}), encoding="utf-8")
    with pytest.raises(StoryboardError, match="scenes.0.narration"):
        load_storyboard(path)
    with pytest.raises(StoryboardError, match="cannot read"):
        load_storyboard(tmp_path / "missing.json")


def test_a_real_model_writes_a_storyboard_that_validates(small_gguf: Path) -> None:
    from manimgen.llm.llamacpp import LlamaCppLLM

    llm = LlamaCppLLM(small_gguf)
    try:
        board = write_storyboard(llm, "Explain what a right angle is", 2)
    finally:
        llm.close()
    assert len(board.scenes) == 2 and all(scene.narration and scene.shows.strip() and scene.checklist is not None for scene in board.scenes)


# --- voices -------------------------------------------------------------------------------------------


@needs_espeak
def test_espeak_speaks_a_line_even_one_that_looks_like_an_option(tmp_path: Path) -> None:
    voice = Espeak("en")
    voice.speak("--help is not an option here", tmp_path / "line.wav")
    samples = read_audio(tmp_path / "line.wav")
    assert len(samples) / RATE > 1.0 and np.abs(samples).max() > 0.05


def test_maths_signs_are_said_in_words() -> None:
    from manimgen.lesson.voice import spoken

    assert spoken("So the area is πr².") == "So the area is pi r squared."
    assert spoken("a^2 + b^2 = c^2, and x^n ≥ 0 at 90°") == "a squared + b squared = c squared, and x to the power n is at least 0 at 90 degrees"


def test_missing_and_unknown_voices_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownChoice, match="unknown voice 'robot'; choose one of: espeak-ng, silent"):
        open_voice("robot")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(VoiceError, match="apt-get install espeak-ng"):
        open_voice("espeak-ng")


def test_unreadable_audio_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "line.wav"
    path.write_bytes(b"\x00garbage" * 100)
    with pytest.raises(VoiceError, match="not audio the lesson can read"):
        read_audio(path)


@pytest.fixture
def speech_server(tmp_path: Path) -> Iterator[tuple[str, list[dict]]]:
    """A real HTTP server speaking the OpenAI speech API with a one-second tone; yields its API root and the bodies it got."""
    tone = tmp_path / "tone.wav"
    with av.open(str(tone), "w", format="wav") as out:
        stream = out.add_stream("pcm_s16le", rate=24000)
        stream.layout = "mono"
        samples = (np.sin(np.arange(24000) * 2 * np.pi * 440 / 24000) * 12000).astype(np.int16)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = 24000
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    received: list[dict] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = tone.read_bytes() if self.path == "/v1/audio/speech" else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    server.shutdown()


def test_speech_endpoint_voice(speech_server: tuple[str, list[dict]], tmp_path: Path) -> None:
    url, received = speech_server
    voice = open_voice(f"{url}#nova")
    assert isinstance(voice, SpeechEndpoint) and voice.voice == "nova"
    voice.speak("Hello there.", tmp_path / "line.wav")
    assert received == [{"model": "tts-1", "voice": "nova", "input": "Hello there.", "response_format": "wav"}]
    assert len(read_audio(tmp_path / "line.wav")) == pytest.approx(RATE, abs=RATE * 0.01)  # resampled from 24 kHz
    with pytest.raises(VoiceError, match="answered 404"):
        SpeechEndpoint(url.removesuffix("/v1")).speak("Hello.", tmp_path / "other.wav")


# --- a whole lesson -----------------------------------------------------------------------------------


def _board() -> Storyboard:
    return Storyboard(
        title="Two shapes",
        topic="shapes",
        scenes=[
            Scene(title="A circle and a square", narration=["Here is a blue circle.", "It moves left, and a red square fades in beside it."], shows="A blue circle moves left, then a red square appears"),
            Scene(title="A broken scene", narration=["This scene could not be drawn, so its title stands in."], shows="A hexagon spins"),
        ],
    ).checked()


def _offset(track: np.ndarray, line: np.ndarray) -> tuple[float, float]:
    """Where `line` sits in `track` (seconds) by cross-correlation, and how alike they are there (0 to 1)."""
    size = 1 << int(np.ceil(np.log2(len(track) + len(line))))
    spectrum = np.fft.rfft(track, size) * np.conj(np.fft.rfft(line, size))
    correlation = np.fft.irfft(spectrum, size)[: len(track) - len(line) + 1]
    best = int(np.argmax(correlation))
    window = track[best : best + len(line)]
    similarity = float(correlation[best] / (np.linalg.norm(window) * np.linalg.norm(line) + 1e-9))
    return best / RATE, similarity


@needs_espeak
def test_a_lesson_is_narrated_paced_subtitled_and_resumable(tmp_path: Path) -> None:
    folder = tmp_path / "lesson"
    llm = ScriptedLLM(SCENE, BROKEN)
    options = LessonOptions(strategy="vanilla", rounds=0)
    with open_renderer("fresh") as renderer:
        lesson = make_lesson(llm, _board(), folder, renderer=renderer, voice=open_voice("espeak-ng"), options=options)
        assert [(outcome.made, outcome.fallback) for outcome in lesson.scenes] == [(True, False), (True, True)]
        assert (folder / "scene-01" / "scene.py").read_text(encoding="utf-8").strip() in SCENE and (folder / "scene-02" / "title-card").is_file()

        # Measured from the files: each line is heard once, in order, where its subtitle starts.
        with av.open(str(folder / "lesson.mp4")) as container:
            assert container.streams.audio[0].codec_context.name == "aac" and container.streams.video[0].codec_context.name == "h264"
            resampler = av.AudioResampler(format="flt", layout="mono", rate=RATE)
            track = np.concatenate([out.to_ndarray().reshape(-1) for frame in container.decode(audio=0) for out in resampler.resample(frame)])
        manifest = json.loads((folder / "lesson.json").read_text(encoding="utf-8"))
        srt = (folder / "lesson.srt").read_text(encoding="utf-8")
        lines = [line for scene in _board().scenes for line in scene.narration]
        assert [cue["text"] for cue in manifest["cues"]] == lines and all(line in srt for line in lines)
        starts = []
        for number, cue in enumerate(manifest["cues"]):
            scene, index = (1, number + 1) if number < 2 else (2, 1)
            spoken = read_audio(folder / f"scene-{scene:02d}" / f"line-{index}.wav")
            at, similarity = _offset(track, spoken)
            assert similarity > 0.9, f"line {number + 1} is not heard clearly ({similarity:.2f})"
            assert abs(at - cue["start"]) <= 0.2, f"line {number + 1} is heard at {at:.2f} s, its subtitle starts at {cue['start']:.2f} s"
            starts.append(at)
        assert starts == sorted(starts)
        assert all(before["end"] <= after["start"] for before, after in zip(manifest["cues"], manifest["cues"][1:]))
        assert len(track) / RATE == pytest.approx(manifest["seconds"], abs=0.1) and manifest["chapters"][-1]["end"] == pytest.approx(manifest["seconds"])
        marks = mutagen.mp4.MP4(folder / "lesson.mp4").chapters  # read back by a tag reader, not by our own code
        assert [(round(mark.start, 3), mark.title) for mark in marks] == [(chapter["start"], chapter["title"]) for chapter in manifest["chapters"]]

        # A rerun keeps both scenes; an edited line is spoken again, an edited scene is made again.
        again = make_lesson(ScriptedLLM(), _board(), folder, renderer=renderer, voice=open_voice("espeak-ng"), options=options)
        assert [outcome.made for outcome in again.scenes] == [False, False]
        board = _board()
        first = board.scenes[0].model_copy(update={"narration": ["A new first line.", *board.scenes[0].narration[1:]]})
        second = board.scenes[1].model_copy(update={"shows": "A green triangle appears", "checklist": None})
        edited = board.model_copy(update={"scenes": [first, second]}).checked()
        redone = make_lesson(ScriptedLLM(SCENE), edited, folder, renderer=renderer, voice=open_voice("espeak-ng"), options=options)
    assert [(outcome.made, outcome.fallback) for outcome in redone.scenes] == [(False, False), (True, False)]
    assert redone.cues[0].text == "A new first line." and json.loads((folder / "scene-01" / "lines.json").read_text(encoding="utf-8"))["lines"][0] == "A new first line."


def test_lesson_command_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["lesson"])
    assert result.exit_code == 2 and "give a topic" in result.output and "Traceback" not in result.output
    (tmp_path / "bad.json").write_text('{"title": "t"}', encoding="utf-8")
    result = runner.invoke(app, ["lesson", "--storyboard", str(tmp_path / "bad.json")])
    assert result.exit_code == 2 and "topic: Field required" in result.output
    (tmp_path / "board.json").write_text(_board().to_json(), encoding="utf-8")
    result = runner.invoke(app, ["lesson", "--storyboard", str(tmp_path / "board.json"), "--voice", "robot"])
    assert result.exit_code == 2 and "unknown voice 'robot'" in result.output
    result = runner.invoke(app, ["lesson", "--storyboard", str(tmp_path / "board.json"), "--plan", "--redo", "5", "--voice", "silent"])
    assert result.exit_code == 2 and "--redo 5: the storyboard has scenes 1 to 2" in result.output
    result = runner.invoke(app, ["lesson", "--storyboard", str(tmp_path / "board.json"), "--plan", "--voice", "silent", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0 and "A circle and a square" in result.output and "edit it, then" in result.output


# --- on the server --------------------------------------------------------------------------------------


def test_a_lesson_job_over_http(tmp_path: Path) -> None:
    import time

    import httpx
    import uvicorn

    from manimgen.lesson.jobs import lesson_router
    from manimgen.serve.api import create_app
    from manimgen.serve.engine import JobEngine

    llm = ScriptedLLM(SCENE, SCENE)
    engine = JobEngine(tmp_path / "jobs", llm_factory=lambda spec: llm, default_model="py:scripted:make", default_strategy="vanilla", render_workers=1).start()
    server = uvicorn.Server(uvicorn.Config(create_app(engine, routers=[lesson_router(engine)]), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    def finished(client: httpx.Client, job_id: str) -> dict:
        deadline = time.monotonic() + 300
        while (job := client.get(f"/api/jobs/{job_id}").json())["status"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.5)
        return job

    try:
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            board = json.loads(_board().to_json())
            board["scenes"][1]["shows"] = "A red square appears"
            created = client.post("/api/lessons", json={"storyboard": board, "voice": "silent"})
            assert created.status_code == 201 and created.json()["kind"] == "lesson"
            job_id = created.json()["id"]
            job = finished(client, job_id)
            assert job["status"] == "done" and job["video"] == "lesson.mp4", job
            assert client.get(f"/api/jobs/{job_id}/video").headers["content-type"] == "video/mp4"
            vtt = client.get(f"/api/jobs/{job_id}/lesson/lesson.vtt")
            assert vtt.status_code == 200 and vtt.text.startswith("WEBVTT") and "Here is a blue circle." in vtt.text
            events = [event for event in client.get(f"/api/jobs/{job_id}/events", headers={"Accept": "text/event-stream"}).text.split("\n") if event.startswith("event: ")]
            assert events.count("event: scene") == 2 and "event: storyboard" in events
            assert client.get(f"/api/jobs/{job_id}/lesson/..%2Fjobs.sqlite").status_code in (404, 422)
            assert client.get(f"/api/jobs/{job_id}/lesson/scene.py").status_code == 422
            again = client.post(f"/api/jobs/{job_id}/retry").json()["id"]
            assert finished(client, again)["status"] == "done" and len(llm.calls) == 2, "a retried lesson keeps the scenes its earlier job made"
            notes = client.get(f"/api/jobs/{again}/events", headers={"Accept": "text/event-stream"}).text
            assert "scene 1 of 2: kept from the earlier job" in notes and "scene 2 of 2: kept from the earlier job" in notes
            empty = client.post("/api/lessons", json={"topic": "  "})
            assert empty.status_code == 422 and "the topic is empty" in empty.json()["detail"]
            remote = client.post("/api/lessons", json={"topic": "Fractions", "voice": "http://169.254.169.254/v1"})
            assert remote.status_code == 422 and "unknown voice" in remote.json()["detail"]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.close()


def test_the_lesson_page_plans_edits_makes_and_plays_a_lesson_with_captions(tmp_path: Path) -> None:
    import time

    import uvicorn

    from manimgen.lesson.jobs import lesson_router
    from manimgen.serve.api import create_app
    from manimgen.serve.engine import JobEngine

    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed (bash scripts/setup.sh --test installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    board = dict(BOARD, scenes=[dict(BOARD["scenes"][0], shows="A blue circle appears"), BOARD["scenes"][1]])
    llm = ScriptedLLM(json.dumps(board), SCENE, SCENE)
    engine = JobEngine(tmp_path / "jobs", llm_factory=lambda spec: llm, default_model="py:scripted:make", default_strategy="vanilla", render_workers=1).start()
    server = uvicorn.Server(uvicorn.Config(create_app(engine, routers=[lesson_router(engine)]), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,1600", "--mute-audio", "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        driver.get(base + "/")
        wait = WebDriverWait(driver, 120)
        wait.until(lambda d: d.find_element(By.ID, "lesson-link").is_displayed())
        driver.find_element(By.ID, "lesson-link").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#voice option"))
        driver.find_element(By.ID, "topic").send_keys("Shapes that move")
        driver.find_element(By.ID, "plan").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .scene")) == 2)
        assert "a blue circle" in driver.find_element(By.CSS_SELECTOR, "#board .scene .detail").text, "what will be checked is shown"
        narration = driver.find_element(By.CSS_SELECTOR, "#board .scene .narration")
        narration.clear()
        narration.send_keys("A circle, said my way.")
        driver.find_element(By.ID, "go").click()
        wait.until(lambda d: "Done" in d.find_element(By.ID, "job-status").text)
        assert [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#scenes-done li")] == ["✓ A circle", "✓ A square"]
        cues = wait.until(lambda d: d.execute_script(
            "const v = document.getElementById('video'); const t = v.textTracks[0];"
            "return v.readyState >= 1 && t && t.cues && t.cues.length ? [v.duration, [...t.cues].map((c) => c.text)] : null"
        ))
        assert cues[0] > 1 and cues[1][0] == "A circle, said my way.", "the edited line is spoken and captioned"
        driver.save_screenshot(str(tmp_path / "lesson-page.png"))
        assert (tmp_path / "lesson-page.png").stat().st_size > 10_000
        driver.set_window_size(390, 844)  # a phone
        width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], "nothing wider than a phone's screen"
        driver.save_screenshot(str(tmp_path / "lesson-phone.png"))
    finally:
        driver.quit()
        server.should_exit = True
        thread.join(timeout=10)
        engine.close()


def test_burnt_in_subtitles_are_drawn_while_their_line_is_said(tmp_path: Path) -> None:
    from manimgen.render.frames import frames_at

    board = Storyboard(title="One shape", topic="shapes", scenes=[Scene(title="A circle", narration=["Here is a blue circle."], shows="A blue circle appears")]).checked()
    with open_renderer("fresh") as renderer:
        plain = make_lesson(ScriptedLLM(SCENE), board, tmp_path / "plain", renderer=renderer, voice=open_voice("silent"), options=LessonOptions(strategy="vanilla", rounds=0))
        burnt = make_lesson(ScriptedLLM(SCENE), board, tmp_path / "burnt", renderer=renderer, voice=open_voice("silent"), options=LessonOptions(strategy="vanilla", rounds=0, burn=True))
    cue = burnt.cues[0]
    during, after = (cue.start + cue.end) / 2, burnt.seconds - 0.05
    bottom = lambda video, moment: frames_at(video, [moment])[0][-60:].max()  # noqa: E731 - the brightest pixel of the lowest rows
    assert bottom(burnt.video, during) > 200 and bottom(plain.video, during) < 60, "white words on the bottom band only where burnt in"
    assert after > cue.end and bottom(burnt.video, after) < 60, "and only while the line is said"


@pytest.mark.slow
@needs_espeak
def test_the_lesson_command_with_the_embedded_model(small_gguf: Path, tmp_path: Path) -> None:
    """The whole command on a real model: storyboard, scenes, voice, one MP4 with audio, subtitles and chapters."""
    result = CliRunner().invoke(app, ["lesson", "Explain what a right angle is", "--scenes", "2", "--model", "qwen2.5-coder-0.5b", "--out", str(tmp_path / "lesson")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "lesson" / "lesson.json").read_text(encoding="utf-8"))
    assert len(manifest["chapters"]) == 2 and manifest["cues"] and manifest["voice"] == "espeak-ng"
    with av.open(str(tmp_path / "lesson" / "lesson.mp4")) as container:
        assert container.streams.audio and container.streams.video
        assert float(container.duration / av.time_base) == pytest.approx(manifest["seconds"], abs=0.2)
    assert (tmp_path / "lesson" / "lesson.srt").read_text(encoding="utf-8").count("-->") == len(manifest["cues"])
