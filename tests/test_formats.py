"""The files a scene is delivered as and the frames it is laid out in, on real renders: every file is
decoded and measured, and a portrait render is laid out, checked and asked for in a portrait frame."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from manimgen.agent import AgentConfig, format_target, get_strategy
from manimgen.checks.layout import layout_findings
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderResult, render
from manimgen.render.formats import FORMATS, deliver, media_type
from manimgen.render.frames import frames_at, sample_frames
from manimgen.render.result import at_aspect, get_quality, quality_spec

SCENE = """from manim import *


class Wide(Scene):
    def construct(self):
        circle = Circle(radius=2, color=BLUE)
        words = Text("Hello wide world", font_size=48).next_to(circle, DOWN)
        self.play(Create(circle), Write(words))
        self.play(circle.animate.set_color(RED))
        self.wait(0.5)
"""
STILL = "from manim import *\n\n\nclass Still(Scene):\n    def construct(self):\n        self.add(Square(color=GREEN))\n"


@pytest.fixture(scope="module")
def landscape() -> RenderResult:
    result = render(SCENE, geometry=True)
    assert result.ok, result.error_tail
    return result


def _decoded(path: Path) -> tuple[str, int, int, int, float]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return stream.codec_context.name, stream.codec_context.width, stream.codec_context.height, frames, container.duration / 1e6


def _last(path: Path) -> np.ndarray:
    return frames_at(path, [1e9])[0].astype(int)


def test_each_format_is_made_from_the_render_and_decodes_to_it(landscape: RenderResult, tmp_path: Path) -> None:
    source = landscape.output
    assert source is not None and source.suffix == ".mp4"
    codec, width, height, frames, seconds = _decoded(source)
    assert (codec, width, height) == ("h264", 854, 480)

    copy = deliver(source, tmp_path / "same", "mp4")
    assert copy == tmp_path / "same.mp4" and copy.read_bytes() == source.read_bytes()

    webm = deliver(source, tmp_path / "web", "webm")
    assert webm.suffix == ".webm" and _decoded(webm)[:4] == ("vp9", 854, 480, frames)
    assert np.abs(_last(webm) - _last(source)).mean() < 2, "the WebM's last frame is the render's"

    gif = deliver(source, tmp_path / "chat", "gif")
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.size == (480, 270) and image.info["loop"] == 0 and image.n_frames > 10
        durations = []
        for index in range(image.n_frames):
            image.seek(index)
            durations.append(image.info["duration"])
        assert all(duration % 100 == 0 for duration in durations), "10 fps, merged where frames repeat"
        assert abs(sum(durations) / 1000 - seconds) <= 0.15
        image.seek(image.n_frames - 1)
        last = np.asarray(image.convert("RGB")).astype(int)
    reference = np.asarray(Image.fromarray(_last(source).astype(np.uint8)).resize((480, 270), Image.Resampling.LANCZOS)).astype(int)
    assert np.abs(last - reference).mean() < 4, "one palette keeps the colours"
    red = (last[..., 0] > 150) & (last[..., 2] < 120)
    assert red.sum() > 200, "the circle ends red in the GIF too"

    png = deliver(source, tmp_path / "last", "png")
    with Image.open(png) as image:
        assert image.size == (854, 480)
        assert np.abs(np.asarray(image.convert("RGB")).astype(int) - _last(source)).mean() < 1

    assert [media_type(path) for path in (copy, webm, gif, png)] == ["video/mp4", "video/webm", "image/gif", "image/png"]


def test_a_still_scene_stays_a_picture_whatever_the_format(tmp_path: Path) -> None:
    result = render(STILL)
    assert result.ok and result.output is not None and result.output.suffix == ".png"
    assert {name: deliver(result.output, tmp_path / name, name).suffix for name in FORMATS} == dict.fromkeys(FORMATS, ".png")


def test_a_portrait_video_is_rendered_checked_and_asked_for_in_a_portrait_frame(tmp_path: Path) -> None:
    portrait = render(SCENE, quality="low@9:16", geometry=True)
    assert portrait.ok and portrait.output is not None
    assert sample_frames(portrait.output, 1).shape[1:] == (854, 480, 3)
    assert portrait.geometry is not None and portrait.geometry[-1]["frame"] == pytest.approx([-2.25, -4.0, 2.25, 4.0], abs=0.01)
    findings = layout_findings(portrait.geometry)
    assert findings and findings[0].code == "off-frame" and "Hello wide world" in findings[0].message, "16:9 text does not fit 4.5 units"

    llm = ScriptedLLM(format_target(SCENE), name="scripted")
    trace = get_strategy("vanilla").run(llm, "A circle with words under it", AgentConfig(rounds=0, quality="low@9:16"))
    asked = trace.rounds[0].messages[-1]["content"]
    assert "The video is portrait (9:16): the frame is 4.5 units wide and 8 tall" in asked
    landscape = get_strategy("vanilla").run(ScriptedLLM(format_target(SCENE), name="scripted"), "A circle", AgentConfig(rounds=0))
    assert "The video is" not in landscape.rounds[0].messages[-1]["content"], "Manim's own frame needs no word"


@pytest.mark.parametrize(
    ("spec", "size", "frame_width"),
    [
        ("low", (854, 480), 128 / 9),
        ("low@16:9", (854, 480), 128 / 9),
        ("low@9:16", (480, 854), 4.5),
        ("medium@1:1", (720, 720), 8.0),
        ("high@1080x1920", (1080, 1920), 4.5),
        ("preview@18:32", (180, 320), 4.5),
    ],
)
def test_a_quality_spec_names_the_size_and_the_frame(spec: str, size: tuple[int, int], frame_width: float) -> None:
    quality = get_quality(spec)
    assert (quality.width, quality.height) == size and quality.frame_width == pytest.approx(frame_width)
    assert get_quality(quality.name) == quality, "the canonical name reads back the same"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: get_quality("ultra"), "unknown quality 'ultra'; choose one of: low, preview, medium, high"),
        (lambda: get_quality("low@9-16"), "cannot read '9-16' as an aspect or a size; write one like 9:16 or 1080x1920"),
        (lambda: get_quality("low@1:9"), "1:9 is too narrow or too wide; keep each side within 4 times the other"),
        (lambda: get_quality("low@1081x1920"), "1081x1920 cannot be encoded; give even sides from 16 to 4096 pixels"),
        (lambda: quality_spec("low", "9x16"), "cannot read '9x16' as an aspect; write WIDTH:HEIGHT, one of 16:9, 9:16, 1:1"),
        (lambda: quality_spec("low", None, "9:16"), "cannot read '9:16' as a size; write WIDTHxHEIGHT, like 1080x1920"),
        (lambda: quality_spec("low", "9:16", "1080x1920"), "give an aspect or a resolution, not both: the size sets the aspect"),
        (lambda: FORMATS.pick("avi"), "unknown format 'avi'; choose one of: mp4, webm, gif, png"),
    ],
)
def test_bad_settings_are_refused_with_the_fix(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == message


def test_the_search_renders_small_in_the_asked_frame() -> None:
    assert at_aspect("low", "high@1080x1920") == "low@9:16"
    assert at_aspect("low", "medium") == "low"
    assert quality_spec("medium", "9:16") == "medium@9:16" and quality_spec("medium", "16:9") == "medium"
