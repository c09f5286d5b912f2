"""Layout findings from real renders: the geometry recorded inside the sandbox, read back, judged."""

from __future__ import annotations

import json
import os

import pytest

from manimgen.checks.layout import LayoutFinding, format_layout, layout_findings
from manimgen.render import RenderResult, render
from manimgen.render.geometry import read_geometry
from manimgen.render.handover import opened

MESSY = """from manim import *


class Messy(Scene):
    def construct(self):
        banner = Text("A banner far too wide to fit inside the frame of this video", font_size=64).to_edge(UP)
        self.play(Write(banner))
        first = Text("Overlap one")
        second = Text("Overlap two").shift(0.2 * RIGHT)
        self.play(FadeIn(first), FadeIn(second))
        self.gone = Square().shift(12 * RIGHT)
        speck = Text("tiny").scale(0.02).to_edge(DOWN)
        labels = VGroup(Circle(), MathTex("x^2")).shift(2.5 * DOWN + 4 * LEFT)
        self.add(self.gone, speck, labels)
        self.wait(0.2)
"""

CLEAN = """from manim import *


class Clean(Scene):
    def construct(self):
        title = Title("A tidy scene")
        shapes = VGroup(Circle(), Square(), Triangle()).arrange(RIGHT, buff=0.8)
        captions = VGroup(*[Text(name, font_size=28) for name in ("circle", "square", "triangle")])
        for caption, shape in zip(captions, shapes):
            caption.next_to(shape, DOWN)
        self.add(title, shapes, captions)
"""

ZOOMED = """from manim import *


class Zoomed(MovingCameraScene):
    def construct(self):
        near = Dot()
        far = Text("far away").shift(5 * RIGHT)
        self.add(near, far)
        self.play(self.camera.frame.animate.scale(0.5))
"""


@pytest.fixture(scope="module")
def messy() -> RenderResult:
    result = render(MESSY, geometry=True)
    assert result.ok, result.error_tail
    return result


def by_code(findings: list[LayoutFinding], code: str) -> list[LayoutFinding]:
    return [finding for finding in findings if finding.code == code]


def test_geometry_is_recorded_after_every_play_and_wait(messy):
    assert messy.geometry is not None
    assert [snapshot["kind"] for snapshot in messy.geometry] == ["play", "play", "wait"]
    times = [snapshot["time"] for snapshot in messy.geometry]
    assert times == sorted(times) and times[0] > 0
    last = {entry["name"]: entry for entry in messy.geometry[-1]["mobjects"]}
    assert {"banner", "first", "second", "self.gone", "speck", "labels", "labels[1]"} <= set(last)
    assert last["labels[1]"]["class"] == "MathTex" and last["labels[1]"]["parent"] == last["labels"]["id"]
    assert last["banner"]["text"].startswith("A banner far too wide")


def test_objects_leaving_the_frame_are_reported(messy):
    findings = by_code(layout_findings(messy.geometry), "off-frame")
    named = {finding.names: finding for finding in findings}
    assert set(named) == {("banner",), ("self.gone",)}
    assert named[("banner",)].first_snapshot == 0 and "cut off" in named[("banner",)].message
    assert "beyond the left edge" in named[("banner",)].message
    assert "entirely outside" in named[("self.gone",)].message and named[("self.gone",)].first_snapshot == 2


def test_overlapping_texts_are_reported_but_separate_ones_are_not(messy):
    overlaps = by_code(layout_findings(messy.geometry), "overlap")
    assert [finding.names for finding in overlaps] == [("first", "second")]
    assert overlaps[0].first_snapshot == 1 and "t=" in overlaps[0].message


def test_text_too_small_to_see_is_reported(messy):
    assert [finding.names for finding in by_code(layout_findings(messy.geometry), "too-small")] == [("speck",)]


def test_feedback_text_names_every_problem(messy):
    text = format_layout(layout_findings(messy.geometry))
    assert text.startswith("The scene rendered without errors")
    for name in ("`banner`", "`self.gone`", "`first`", "`second`", "`speck`"):
        assert name in text


def test_each_problem_also_reads_in_a_teachers_words(messy):
    plain = {finding.names: finding.plain for finding in layout_findings(messy.geometry)}
    assert plain[("banner",)] == 'the text "A banner far too wide to fit inside the…" is cut off at the left and right'
    assert plain[("self.gone",)] == "the square is outside the picture"
    assert plain[("first", "second")] == 'the text "Overlap one" and the text "Overlap two" are drawn over each other'
    assert plain[("speck",)] == 'the text "tiny" is too small to see'
    assert not any(character.isdigit() for words in plain.values() for character in words.replace("A banner", "")), "no coordinates"


def test_clean_static_scene_has_no_findings():
    result = render(CLEAN, geometry=True)
    assert result.ok and result.is_image, result.error_tail
    assert [snapshot["kind"] for snapshot in result.geometry] == ["end"]
    names = {entry["name"] for entry in result.geometry[0]["mobjects"]}
    assert {"title", "shapes", "captions", "captions[0]"} <= names
    assert layout_findings(result.geometry) == []


def test_a_moving_camera_frame_is_the_frame():
    result = render(ZOOMED, geometry=True)
    assert result.ok, result.error_tail
    frame = result.geometry[-1]["frame"]
    assert frame[2] - frame[0] == pytest.approx(7.111, abs=0.01)
    findings = layout_findings(result.geometry)
    assert [(finding.code, finding.names) for finding in findings] == [("off-frame", ("far",))]


def test_geometry_only_when_asked_and_cached_apart(messy):
    plain = render(MESSY)
    assert plain.ok and plain.geometry is None and not plain.cached
    assert plain.output.read_bytes() == messy.output.read_bytes(), "recording geometry changed the video"
    again = render(MESSY, geometry=True)
    assert again.cached and again.geometry == messy.geometry


def test_render_result_round_trips_geometry(messy):
    assert RenderResult.from_dict(messy.to_dict()).geometry == messy.geometry
    legacy = messy.to_dict()
    del legacy["geometry"]
    assert RenderResult.from_dict(legacy).geometry is None


def snapshot(*entries: dict, frame=(-7.1, -4.0, 7.1, 4.0)) -> dict:
    return {"index": 0, "kind": "play", "time": 1.0, "frame": list(frame), "mobjects": list(entries)}


def text(name: str, box: tuple[float, float, float, float], **extra) -> dict:
    return {"id": name, "name": name, "class": "Text", "text": name, "is_text": True, "parent": None,
            "vector": True, "visible": True, "box": list(box), **extra}


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([text("a", (0, 0, 1, 0.5)), text("b", (1, 0, 2, 0.5))], []),  # touching edges
        ([text("a", (0, 0, 1, 0.5)), text("b", (0.95, 0, 2, 0.5))], []),  # a sliver of overlap
        ([text("a", (0, 0, 1, 0.5)), text("b", (0.5, 0, 2, 0.5))], ["overlap"]),
        ([text("a", (0, 0, 1, 0.5)), text("b", (0.5, 0, 2, 0.5), visible=False)], []),
        ([text("a", (6.9, 0, 7.15, 0.5))], []),  # within the edge tolerance
        ([text("a", (6.9, 0, 7.5, 0.5))], ["off-frame"]),
        ([dict(text("grid", (-9, -5, 9, 5)), **{"class": "NumberPlane", "is_text": False})], []),
        ([dict(text("grid", (-9, -5, 9, 5)), **{"class": "NumberPlane"}), text("n", (0, -4.4, 0.3, -4.2), parent="grid")], []),
        ([text("a", (0, 0, 1, 0.5)), text("b", (0.01, 0, 1.01, 0.5))], []),  # coincident: a transform's result
        ([text("a", (0, 0, 1, 0.5)), text("a", (0, 0, 1, 0.5))], []),  # one object reached twice
        ([text("a", (0, 0, 0.05, 0.05))], ["too-small"]),
        ([text("a", (0, 0, 0.05, 0.05), vector=False)], []),  # a point cloud: drawn as pixels
    ],
)
def test_thresholds_on_hand_made_geometry(entries, expected):
    assert [finding.code for finding in layout_findings([snapshot(*entries)])] == expected


def test_a_lasting_problem_is_reported_once_with_its_span():
    boxes = [text("a", (0, 0, 1, 0.5)), text("b", (0.5, 0, 2, 0.5))]
    snapshots = [dict(snapshot(*boxes), index=i, time=float(i)) for i in range(3)]
    (finding,) = layout_findings(snapshots)
    assert (finding.first_snapshot, finding.last_snapshot) == (0, 2) and "until the end" in finding.message


def test_no_geometry_means_no_findings():
    assert layout_findings(None) == [] and layout_findings([]) == []


def test_reading_geometry_accepts_only_a_plain_well_formed_file(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"version": 2, "snapshots": [snapshot(text("a", (0, 0, 1, 1)))]}))
    (tmp_path / "link.json").symlink_to(good)
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "deep.json").write_text("[" * 100_000)
    with opened(tmp_path, None) as folder:
        assert read_geometry(folder, "good.json") == [snapshot(text("a", (0, 0, 1, 1)))]
        assert read_geometry(folder, "link.json") is None
        assert read_geometry(folder, "fifo.json") is None
        assert read_geometry(folder, "deep.json") is None
        for payload in ({"snapshots": [{"time": "soon", "frame": [0, 0, 1, 1], "mobjects": []}]}, {"snapshots": 3}, [1]):
            (tmp_path / "bad.json").write_text(json.dumps(payload))
            assert read_geometry(folder, "bad.json") is None
        assert read_geometry(folder, "missing.json") is None


def test_a_text_under_a_filled_shape_or_on_one_of_its_own_brightness_is_reported():
    covered = """from manim import *


class Covered(Scene):
    def construct(self):
        formula = MathTex("x^2")
        disc = Circle(radius=1, color=BLUE, fill_opacity=1)
        self.play(Write(formula))
        self.play(FadeIn(disc))
"""
    pale = covered.replace('MathTex("x^2")', 'MathTex("x^2", color=YELLOW)').replace("color=BLUE, fill_opacity=1)", "color=YELLOW, fill_opacity=1)\n        disc.set_z_index(-1)")
    labelled = covered.replace("self.play(Write(formula))\n        self.play(FadeIn(disc))", "self.play(FadeIn(disc))\n        self.play(Write(formula))")
    under, same, readable = (render(code, geometry=True, quality="preview") for code in (covered, pale, labelled))
    assert [(finding.code, finding.names) for finding in layout_findings(under.geometry)] == [("covered", ("formula", "disc"))]
    assert [(finding.code, finding.names) for finding in layout_findings(same.geometry)] == [("unreadable", ("formula", "disc"))]
    assert layout_findings(readable.geometry) == [], "white on a blue disc, drawn on top of it, is a label"


def test_the_page_shows_a_layout_round_in_plain_words(messy):
    from manimgen.agent import Round
    from manimgen.serve.engine import round_event

    round_ = Round(0, "generate", [], "", MESSY, render=messy, feedback=format_layout(layout_findings(messy.geometry)))
    assert round_event(round_)["error"] == 'The text "A banner far too wide to fit inside the…" is cut off at the left and right.'
    failed = Round(1, "repair", [], "", MESSY, render=None, feedback="NameError: name 'Circel' is not defined")
    assert round_event(failed)["error"] == "NameError: name 'Circel' is not defined"
