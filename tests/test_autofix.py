"""Mechanical repair: each certain fix, its note, the references left untouched, and a real render after."""

from __future__ import annotations

import pytest

from manimgen.agent.autofix import autofix
from manimgen.agent.lint import certain_match, lint
from manimgen.agent.removed_api import REMOVED_METHODS, REMOVED_NAMES
from manimgen.data import DatasetError, load_tasks
from manimgen.render import render

HEAD = "from manim import *\n\n\nclass S(Scene):\n    def construct(self):\n"


def scene(*lines: str, head: str = HEAD) -> str:
    return head + "".join(f"        {line}\n" for line in lines)


@pytest.mark.parametrize(
    ("before", "after", "note"),
    [
        (["self.play(ShowCreation(Circle()))"], ["self.play(Create(Circle()))"], "line 6: `ShowCreation` → `Create` (ManimGL or old manim API)"),
        (["self.add(Circle(color=BLUE_DARK))"], ["self.add(Circle(color=DARK_BLUE))"], "line 6: `BLUE_DARK` → `DARK_BLUE` (not defined; the only name it can mean)"),
        (["self.add(Squre())"], ["self.add(Square())"], "line 6: `Squre` → `Square` (not defined; the only name it can mean)"),
        (["dot = Dot(annotation_ring=3, color=RED)", "self.add(dot)"], ["dot = Dot(color=RED)", "self.add(dot)"],
         "line 6: dropped `annotation_ring=...` from `Dot(...)`, which takes no such keyword"),
        (["circle = Circle(radus=2)", "self.add(circle)"], ["circle = Circle(radius=2)", "self.add(circle)"],
         "line 6: `Circle(..., radus=...)` → `radius=...` (the only parameter it can mean)"),
        (["axes = Axes()", "self.add(axes, axes.get_graph(lambda x: x))"], ["axes = Axes()", "self.add(axes, axes.plot(lambda x: x))"],
         "line 7: `.get_graph` → `.plot` (ManimGL or old manim API)"),
        (["self.play(Create(Circle())"], ["self.play(Create(Circle()))"], "line 6: closed the brackets the line left open (added `)`)"),
        (["axes = Axes(x_min=-3, x_max=3, y_min=-1, y_max=1, tips=False)", "self.add(axes)"],
         ["axes = Axes(x_range=[-3, 3], y_range=[-1, 1], tips=False)", "self.add(axes)"],
         "line 6: `x_min`/`x_max` → `x_range`, `y_min`/`y_max` → `y_range` in `Axes(...)` (the old manim API)"),
        (["line = NumberLine(x_max=5, x_min=0)", "self.add(line)"], ["line = NumberLine(x_range=[0, 5])", "self.add(line)"],
         "line 6: `x_min`/`x_max` → `x_range` in `NumberLine(...)` (the old manim API)"),
    ],
)
def test_each_certain_fix_is_applied_and_described(before: list[str], after: list[str], note: str) -> None:
    fixed = autofix(scene(*before))
    assert fixed.code == scene(*after)
    assert fixed.notes == [note]
    assert lint(fixed.code) == []


def test_a_missing_import_is_added() -> None:
    code = scene("self.add(Circle())", head="class S(Scene):\n    def construct(self):\n")
    fixed = autofix(code)
    assert fixed.code == "from manim import *\n" + code
    assert fixed.notes[0] == "line 1: added `from manim import *` (`Scene` is a manim name)" and lint(fixed.code) == []


def test_a_numpy_function_gets_its_import() -> None:
    code = scene("graph = FunctionGraph(lambda x: sin(x) + sqrt(abs(x)))", "self.add(graph)")
    fixed = autofix(code)
    assert fixed.code == "from numpy import sqrt\nfrom numpy import sin\n" + code
    assert fixed.notes == ["line 1: added `from numpy import sin` (`sin` is numpy's)", "line 1: added `from numpy import sqrt` (`sqrt` is numpy's)"]
    assert lint(fixed.code) == [] and render(fixed.code, quality="preview").ok


def test_uncertain_problems_are_left_to_the_model() -> None:
    code = scene("words = TextMobject('hi')", "self.add(words, Cirlce3D())")
    fixed = autofix(code)
    assert fixed.code == code and fixed.notes == []
    assert {finding.code for finding in lint(code)} == {"removed-api", "unknown-name"}
    assert certain_match("BLUE_DARKEST", ["BLUE_D", "BLUE_E", "DARK_BLUE"]) is None
    assert certain_match("get_fill_colour", ["get_fill_color", "set_fill_color"]) == "get_fill_color"
    assert certain_match("set_colour", ["get_color"]) is None


@pytest.mark.parametrize("invented", ["Parabola", "Grid", "Histogram", "Integral"])
def test_an_invented_class_is_never_renamed_to_the_variable_it_is_assigned_to(invented: str) -> None:
    variable = invented.lower()
    code = scene(f"{variable} = {invented}(color=BLUE)", f"self.play(Create({variable}))")
    assert autofix(code).code == code
    assert [finding.code for finding in lint(code)] == ["unknown-name"]


def test_every_rename_names_an_existing_object() -> None:
    import manim

    for name, replacement in REMOVED_NAMES.items():
        if replacement.rename:
            owner, _, attribute = replacement.rename.rpartition(".")
            assert hasattr(getattr(manim, owner) if owner else manim, attribute), name
    for name, replacement in REMOVED_METHODS.items():
        if replacement.rename:
            assert hasattr(manim.Axes, replacement.rename), name


def test_several_fixes_in_one_draft_then_a_real_render() -> None:
    code = scene(
        "c = Circle(color=BLUE_DARK, arc_angle=2)",
        "d = Dot(annotation_ring=3)",
        "self.play(ShowCreation(c), FadeIn(d))",
        "self.play(ShowCreation(Squre())",
    )
    assert not render(code, quality="preview").ok
    fixed = autofix(code)
    assert len(fixed.notes) == 7 and lint(fixed.code) == []
    assert render(fixed.code, quality="preview").ok


@pytest.mark.parametrize("split", ["test", "train", "validation"])
def test_no_reference_is_changed(split: str) -> None:
    try:
        tasks = load_tasks(split)
    except DatasetError as error:
        pytest.skip(f"ManimBench is not available: {error}")
    changed = [task.id for task in tasks if autofix(task.reference_code).code != task.reference_code]
    assert tasks and changed == []
