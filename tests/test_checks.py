"""The checklist of a sentence, the recorded timeline and the checker, on real renders.

Sentences here come from the development set or are written for the test; the frozen evaluation set
(sentences/evaluation.jsonl) is never used to build or tune the rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from manimgen.agent.formulas import latex
from manimgen.checks import Checklist, Requirement, Timeline, check, extract, load_checklist
from manimgen.checks.colours import is_colour
from manimgen.checks.coverage import unread
from manimgen.checks.requirements import ChecklistError
from manimgen.checks.shapes import normalise
from manimgen.cli import app
from manimgen.render import RenderJob, RenderPool

NUMBER_LINE = "Show a number line from 0 to 10 and move a red dot from 2 to 7."


def kinds(sentence: str) -> list[tuple[str, ...]]:
    """Each requirement as (kind, what, count, colour, low, high, text) with the empty fields left out."""
    rows = []
    for item in extract(sentence).requirements:
        fields = (item.kind, item.what, item.count, item.colour, item.low, item.high, item.text, item.other, item.degrees, item.factor)
        rows.append(tuple(value for value in fields if value is not None))
    return rows


def test_extraction_reads_numbers_colours_shapes_and_changes() -> None:
    assert kinds(NUMBER_LINE) == [
        ("object", "number line"), ("object", "dot", "red"), ("range", "number line", 0.0, 10.0), ("text", "0"), ("text", "10"),
        ("move", "dot", 2.0, 7.0),
    ]  # fmt: skip
    assert ("object", "circle", 10) in kinds("Show 2 × 5 = 10 as two rows of five circles.")
    assert ("formula", "2 × 5 = 10") in kinds("Show 2 × 5 = 10 as two rows of five circles.")
    assert kinds("Write 5 + 3 = 8 and show it with five red dots and three blue dots joining into one row.")[:2] == [("object", "dot", 5, "red"), ("object", "dot", 3, "blue")]
    assert ("transform", "circle", "square") in kinds("A blue circle transforms into a red square.")
    assert ("rotate", "pentagon", 72.0) in kinds("Draw a purple pentagon and rotate it by 72 degrees.")
    assert ("range", "curve", -2.0, 2.0) in kinds("Plot y = e^x from -2 to 2 in green.")
    assert ("object", "curve", "green", "y = e^x") in kinds("Plot y = e^x from -2 to 2 in green.")
    assert ("formula", "2(x + 3)", "2x + 6") in kinds("Transform the expression 2(x + 3) into 2x + 6.")
    assert kinds("Sort the array 3, 1, 2 into 1, 2, 3 with selection sort.")[-1] == ("order",)
    assert extract("Sort the array 3, 1, 2 into 1, 2, 3 with selection sort.").requirements[-1].items == ["1", "2", "3"]
    assert extract("Show the numbers 10, 20, 30 and 40 appearing one by one from left to right.").requirements[-1].items == ["10", "20", "30", "40"]
    assert ("text", "chord", "AB") in kinds("Draw a circle and a chord, and label the chord AB.")
    hops = extract("Show a number line from 0 to 20 and jump from 4 to 12 in two hops of 4.").requirements
    assert [(item.kind, item.low, item.high, item.items) for item in hops if item.kind == "move"] == [("move", 4.0, 12.0, ["8"])]


def test_a_times_table_is_every_line_of_it_in_order() -> None:
    checklist = extract("Show the 3 times table from 3 × 1 = 3 to 3 × 5 = 15, one line at a time.")
    assert [item.text for item in checklist.requirements if item.kind == "formula"] == [f"3 × {k} = {3 * k}" for k in range(1, 6)]


@pytest.mark.parametrize(
    ("sentence", "steps"),
    [
        ("Solve 3x - 6 = 9 step by step: add 6 to both sides, then divide by 3.", ["3x - 6 = 9", "3x = 15", "x = 5"]),
        ("Solve 4x = 10 step by step.", ["4x = 10", "x = 5/2"]),
        ("Solve -x + 2 = 5 step by step: subtract 2 from both sides, then multiply both sides by -1.", ["-x + 2 = 5", "-x = 3", "x = -3"]),
    ],
)
def test_the_steps_of_a_linear_equation_are_worked_out(sentence: str, steps: list[str]) -> None:
    checklist = extract(sentence)
    assert [item.text for item in checklist.requirements if item.kind == "formula"] == steps
    assert [item.kind for item in checklist.requirements][-1] == "sequence", "and written one after another"


@pytest.mark.parametrize(
    "sentence",
    ["Plot y = " + "x " * 490, "label " * 160 + "A, " * 20, "the array " + "1, " * 330, "Write " + "1 + " * 240 + "1 = 2", "apple, " * 140],
)
def test_any_sentence_up_to_the_length_limit_gives_a_checklist(sentence: str) -> None:
    checklist = extract(sentence[:1000])
    assert len(checklist.requirements) <= 40
    if sentence.startswith("apple"):
        assert len(checklist.requirements) == 40 and "; " in (checklist.requirements[-1].text or ""), "the last look item stands for the rest"


@pytest.mark.parametrize("sentence", ["Scatter 400 small dots across the screen.", "Draw 50 rows of 30 squares.", "Draw 150 rows and 2 columns of dots."])
def test_a_count_past_counting_asks_for_the_objects_not_the_number(sentence: str) -> None:
    objects = [item for item in extract(sentence).requirements if item.kind == "object"]
    assert objects and all((item.count or 0) <= 2 and item.rows is None for item in objects), "more than one, not a number to count"


@pytest.mark.parametrize(
    "sentence",
    ["Write that the dot product of (1, 2) and (3, 4) equals 11.", "Show the 3 times table from 3 × 1 = 3 to 3 × 5 = 15, one line at a time."],
)
def test_extraction_asks_for_no_object_the_sentence_does_not_mean(sentence: str) -> None:
    assert [item for item in extract(sentence).requirements if item.kind == "object"] == []


def test_a_place_is_not_a_formula_to_write() -> None:
    assert [item.text for item in extract("Show a point moving along the line y = x/2 from x = -4 to x = 4.").requirements if item.kind == "formula"] == []


@pytest.mark.parametrize(
    ("hex_colour", "word", "expected"),
    [("#FC6255", "red", True), ("#58C4DD", "blue", True), ("#83C167", "green", True), ("#FFFF00", "yellow", True), ("#FFFFFF", "white", True),
     ("#58C4DD", "red", False), ("#FFFFFF", "blue", False), ("#9A72AC", "purple", True), ("#888888", "grey", True), ("#FF862F", "orange", True)],
)  # fmt: skip
def test_colour_words_cover_what_manim_draws(hex_colour: str, word: str, expected: bool) -> None:
    assert is_colour(hex_colour, word) is expected


def test_formulas_read_the_same_however_they_are_typeset() -> None:
    assert normalise(r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}").endswith(normalise("(-b ± √(b^2 - 4ac))/2a"))
    assert normalise(r"3 \times 4 = 12") == normalise("3 × 4 = 12")
    assert normalise("x^{2}") == normalise("x^2")
    assert normalise(r"\sqrt{x}") == normalise("sqrt(x)")


def test_a_hostile_timeline_keeps_only_well_formed_records() -> None:
    raw = [
        {"index": 0, "kind": "play", "time": 1.0, "frame": [-7, -4, 7, 4], "mobjects": [{"id": 1, "class": "Dot", "box": [0, 0, 0.1, 0.1]}, {"id": "x", "class": 7}, "junk"]},
        {"index": 1, "kind": "play", "time": "soon", "frame": None, "mobjects": []},
        "not a snapshot",
    ]
    timeline = Timeline.from_geometry(raw)
    assert len(timeline) == 1 and [entry.kind for entry in timeline.snapshots[0].entries] == ["Dot"]


def test_an_edited_checklist_is_validated_with_its_place() -> None:
    good = Checklist(sentence="s", requirements=[Requirement(kind="object", phrase="a dot", what="dot")])
    assert load_checklist(good.model_dump_json(), "plan.json") == good
    with pytest.raises(ChecklistError, match=r"plan.json: requirements.0.kind: "):
        load_checklist('{"sentence": "s", "requirements": [{"kind": "wish", "phrase": "x"}]}', "plan.json")


CELLS = """from manim import *
class A(Scene):
    def construct(self):
        cells = VGroup(*[VGroup(Square(1, color=BLUE), Text(v)) for v in ["1", "3", "5", "7", "9", "11"]]).arrange(RIGHT)
        self.play(FadeIn(cells))
"""
"""A sorted array in boxes, the start of the search scenes."""
SCENES = {
    "good number line": """from manim import *
class A(Scene):
    def construct(self):
        line = NumberLine(x_range=[0, 10, 1], include_numbers=True)
        dot = Dot(line.n2p(2), color=RED)
        self.play(Create(line), FadeIn(dot))
        self.play(dot.animate.move_to(line.n2p(7)))
""",
    "wrong number line": """from manim import *
class A(Scene):
    def construct(self):
        line = NumberLine(x_range=[-5, 5, 1], include_numbers=True)
        dot = Dot(line.n2p(2), color=BLUE)
        self.play(Create(line), FadeIn(dot))
""",
    "circle into square": """from manim import *
class A(Scene):
    def construct(self):
        shape = Circle(color=BLUE)
        self.play(Create(shape))
        self.play(Transform(shape, Square(color=RED)))
""",
    "circle beside square": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Create(Circle(color=BLUE).shift(LEFT * 2)), Create(Square(color=RED).shift(RIGHT * 2)))
""",
    "formula typeset": r"""from manim import *
class A(Scene):
    def construct(self):
        self.play(Write(MathTex(r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}")))
""",
    "superscript character in tex": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Write(MathTex(r"A = \\pi r²")))
""",
    "formula as text": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Write(Text("x = (-b +- sqrt(b^2 - 4ac)) / 2a", font_size=30)))
""",
    "turned 72": """from manim import *
class A(Scene):
    def construct(self):
        shape = RegularPolygon(5, color=PURPLE)
        self.play(Create(shape))
        self.play(Rotate(shape, 72 * DEGREES))
""",
    "turned 36": """from manim import *
class A(Scene):
    def construct(self):
        shape = RegularPolygon(5, color=PURPLE)
        self.play(Create(shape))
        self.play(Rotate(shape, 36 * DEGREES))
""",
    "grid": """from manim import *
class A(Scene):
    def construct(self):
        grid = VGroup(*[Square(0.6, color=BLUE) for _ in range(10)]).arrange_in_grid(2, 5)
        self.play(Create(grid))
""",
    "vector elsewhere": """from manim import *
class A(Scene):
    def construct(self):
        plane = NumberPlane()
        self.play(Create(plane), GrowArrow(Arrow(plane.c2p(0, 0), plane.c2p(2, 1), buff=0, color=GREEN)))
""",
    "straight jump": """from manim import *
class A(Scene):
    def construct(self):
        line = NumberLine(x_range=[0, 20, 1], length=11, include_numbers=True)
        dot = Dot(line.n2p(4), color=RED)
        self.play(Create(line), FadeIn(dot))
        self.play(dot.animate.move_to(line.n2p(12)))
""",
    "crossing missed": """from manim import *
class A(Scene):
    def construct(self):
        axes = Axes(x_range=[-4, 4, 1], y_range=[-12, 6, 2])
        curve = axes.plot(lambda x: -x**2 + 4, color=BLUE)
        self.play(Create(axes), Create(curve))
        self.play(FadeIn(Dot(axes.c2p(-2, 0)), Dot(axes.c2p(0, 4)), Dot(axes.c2p(1, 0))))
""",
    "secant": """from manim import *
class A(Scene):
    def construct(self):
        axes = Axes(x_range=[-4, 4, 1], y_range=[-2, 2, 1])
        curve = axes.plot(lambda x: np.sin(x), color=BLUE)
        self.play(Create(axes), Create(curve))
        self.play(Create(Line(axes.c2p(-1.5, -1.5 * 0.4), axes.c2p(1.5, 1.5 * 0.4), color=YELLOW)))
""",
    "piled": """from manim import *
class A(Scene):
    def construct(self):
        self.play(*[Create(Circle(radius=0.5, color=BLUE)) for _ in range(10)])
""",
    "search in order": CELLS + """        for i in (2, 4, 3):
            self.play(cells[i][0].animate.set_fill(YELLOW, opacity=0.6))
""",
    "search flashed out of order": CELLS + """        for i in (3, 2, 4):
            self.play(Indicate(cells[i]))
""",
    "there and back": """from manim import *
class A(Scene):
    def construct(self):
        ball = Circle(radius=0.4, color=BLUE, fill_opacity=1)
        self.play(FadeIn(ball))
        self.play(ball.animate.shift(RIGHT * 3))
        self.play(ball.animate.shift(LEFT * 3))
""",
    "force to the left": """from manim import *
class A(Scene):
    def construct(self):
        box = Square(1.6, color=BLUE)
        arrow = Arrow(box.get_left(), box.get_left() + LEFT * 2, buff=0, color=RED)
        self.play(Create(box), GrowArrow(arrow), Write(MathTex("F").next_to(arrow, UP)))
""",
    "mirrored across y": """from manim import *
class A(Scene):
    def construct(self):
        plane = NumberPlane()
        shape = Triangle(color=RED).move_to([2.5, 1.5, 0])
        self.play(Create(plane), Create(shape))
        image = shape.copy()
        self.play(image.animate.flip(UP, about_point=ORIGIN))
""",
    "diagonals behind a background": """from manim import *
class A(Scene):
    def construct(self):
        square = Square(3, color=BLUE)
        name = Text("square").add_background_rectangle().to_edge(UP)
        self.play(Create(square), FadeIn(name))
        self.play(Create(Line(square.get_corner(DL), square.get_corner(UR))), Create(Line(square.get_corner(DR), square.get_corner(UL))))
""",
    "words that fade": """from manim import *
class A(Scene):
    def construct(self):
        words = Text("Hello, Manim")
        self.play(Write(words))
        self.play(FadeOut(words))
""",
    "right triangle": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Create(Polygon([-2, -1, 0], [2, -1, 0], [-2, 2, 0], color=BLUE)))
""",
    "peaked triangle": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Create(Polygon([-1.5, -0.5, 0], [1.5, -0.5, 0], [0, 1.732, 0], color=BLUE)))
""",
    "hexagon": """from manim import *
class A(Scene):
    def construct(self):
        self.play(Create(RegularPolygon(6, color=BLUE)))
""",
    "words that stay": """from manim import *
class A(Scene):
    def construct(self):
        words = Text("Hello, Manim")
        self.play(Write(words))
        self.wait(0.5)
""",
}


@pytest.fixture(scope="module")
def timelines() -> dict[str, Timeline]:
    with RenderPool(2, use_cache=False) as pool:
        results = pool.map([RenderJob(code, quality="preview", geometry=True) for code in SCENES.values()])
    assert all(result.ok for result in results), [result.error_tail for result in results]
    return {name: Timeline.from_geometry(result.geometry) for name, result in zip(SCENES, results)}


def statuses(sentence: str, timeline: Timeline) -> list[str]:
    return [verdict.status for verdict in check(extract(sentence), timeline).verdicts]


def test_the_checker_holds_what_is_shown_and_fails_what_is_not(timelines: dict[str, Timeline]) -> None:
    assert statuses(NUMBER_LINE, timelines["good number line"]) == ["held"] * 6
    wrong = check(extract(NUMBER_LINE), timelines["wrong number line"])
    assert [verdict.status for verdict in wrong.verdicts] == ["held", "failed", "failed", "held", "failed", "failed"]
    assert wrong.verdicts[1].seen == "the dot is drawn, but in blue, not red"
    assert wrong.verdicts[2].seen == "`line` (NumberLine) spans -5 to 5, not 0 to 10"
    assert statuses("A blue circle transforms into a red square.", timelines["circle into square"]) == ["held"] * 3
    beside = check(extract("A blue circle transforms into a red square."), timelines["circle beside square"])
    assert beside.verdicts[-1].seen == "the circle is still there at the end beside the square: it never became one"
    elsewhere = check(extract("Draw the vector (3, 2) in green on a number plane."), timelines["vector elsewhere"])
    assert [verdict.status for verdict in elsewhere.verdicts] == ["held", "failed"]
    assert elsewhere.verdicts[1].seen == "no green arrow points to (3, 2)"


def test_a_part_no_rule_reads_is_left_to_look_for_and_never_held(timelines: dict[str, Timeline]) -> None:
    whole = check(extract(NUMBER_LINE), timelines["good number line"])
    assert whole.all_held and whole.sentence_held
    sentence = NUMBER_LINE.rstrip(".") + ", then highlight the even numbers in green."
    checklist = extract(sentence)
    assert [item.kind for item in checklist.requirements][-1:] == ["look"]
    assert checklist.requirements[-1].text == "then highlight the even numbers in green"
    assert "(not checked: look for it)" in checklist.render_text() and "highlight" not in checklist.render_text(looks=False)
    report = check(checklist, timelines["good number line"])
    assert report.all_held and not report.sentence_held, "what no check read cannot be vouched for"
    assert report.verdicts[-1].status == "unverifiable" and "look for it in the video" in report.verdicts[-1].seen


def test_rows_asked_are_rows_shown(timelines: dict[str, Timeline]) -> None:
    assert statuses("Show two rows of five blue squares.", timelines["grid"]) == ["held"]
    (five_rows,) = check(extract("Show five rows of two blue squares."), timelines["grid"]).verdicts
    assert five_rows.status == "failed" and five_rows.seen == "the squares stand in 2 row(s), not 5"


def test_hops_asked_are_stops_made(timelines: dict[str, Timeline]) -> None:
    (move,) = [verdict for verdict in check(extract("Show a number line from 0 to 20 and jump from 4 to 12 in two hops of 4."), timelines["straight jump"]).verdicts if verdict.requirement.kind == "move"]
    assert move.status == "failed" and move.seen.endswith("went from 4 to 12, never stopping at 8")


def test_a_crossing_is_marked_by_a_dot_on_the_curve_and_the_axis(timelines: dict[str, Timeline]) -> None:
    sentence = "Draw the parabola y = -x^2 + 4 and mark the two points where it crosses the x-axis."
    (mark,) = [verdict for verdict in check(extract(sentence), timelines["crossing missed"]).verdicts if verdict.requirement.kind == "mark"]
    assert mark.status == "failed" and mark.seen == "1 dot(s) on a curve and on the x-axis, where 2 are asked"
    assert [(item.kind, item.other) for item in extract("Plot y = x and y = 4 - x and mark where they cross.").requirements][-1] == ("mark", "curve")


def test_a_tangent_runs_along_the_curve_where_it_touches(timelines: dict[str, Timeline]) -> None:
    sentence = "Draw the tangent line to y = sin(x) at x = 0."
    assert [item.kind for item in extract(sentence).requirements] == ["object", "tangent"]
    (tangent,) = [verdict for verdict in check(extract(sentence), timelines["secant"]).verdicts if verdict.requirement.kind == "tangent"]
    assert tangent.status == "failed" and tangent.seen == "no straight line through the curve's point at x = 0 along it"


def test_a_tex_line_break_is_not_the_formula_asked() -> None:
    assert normalise(r"3 \times 4 = 12") == normalise("3 × 4 = 12")
    assert normalise(r"3 \\times 4 = 12") != normalise("3 × 4 = 12")


def test_a_formula_must_be_typeset_and_a_turn_must_reach_its_angle(timelines: dict[str, Timeline]) -> None:
    sentence = "Write the quadratic formula as a proper formula."
    assert statuses(sentence, timelines["formula typeset"]) == ["held"]
    (plain,) = check(extract(sentence), timelines["formula as text"]).verdicts
    assert plain.status == "failed" and "written as plain text" in plain.seen
    formula = extract(sentence).requirements[0]
    green = check(Checklist(sentence=sentence, requirements=[formula.model_copy(update={"colour": "green"})]), timelines["formula typeset"]).verdicts[0]
    assert green.status == "failed" and green.seen.endswith("is shown, but in white, not green"), "a colour asked is a colour checked"
    white = check(Checklist(sentence=sentence, requirements=[formula.model_copy(update={"colour": "white"})]), timelines["formula typeset"]).verdicts[0]
    assert white.status == "held"
    turning = "Draw a purple pentagon and rotate it by 72 degrees."
    assert statuses(turning, timelines["turned 72"]) == ["held", "held"]
    assert statuses(turning, timelines["turned 36"]) == ["held", "failed"]


def test_a_superscript_character_tex_does_not_draw_is_no_formula(timelines: dict[str, Timeline]) -> None:
    (verdict,) = check(extract("Write the formula A = πr²"), timelines["superscript character in tex"]).verdicts
    assert verdict.status == "failed" and verdict.seen.endswith("(TeX draws nothing for a ² or ³ character: write ^2 or ^3)")
    assert latex("A = πr²") == r"A = \pi r^{2}" and latex("x⁻¹") == "x^{-1}", "the builder writes what TeX draws"


def test_a_triangle_asked_right_equilateral_or_isosceles_is_measured_at_its_corners(timelines: dict[str, Timeline]) -> None:
    assert [(item.what, item.form) for item in extract("Draw a right triangle with sides labelled 3, 4 and 5.").requirements[:1]] == [("triangle", "right")]
    assert [item.form for item in extract("Draw a regular hexagon, then write its name below it.").requirements[:1]] == ["regular"]
    assert extract("Move the triangle to the right.").requirements[0].form is None, "a direction is not a form"
    assert statuses("Draw a right triangle.", timelines["right triangle"]) == ["held"]
    (peaked,) = check(extract("Draw a right triangle."), timelines["peaked triangle"]).verdicts
    assert peaked.status == "failed" and peaked.seen == "the triangle is drawn, but it is not right (its corners: 56°, 68°, 56°)"
    assert statuses("Draw an isosceles triangle.", timelines["peaked triangle"]) == ["held"]
    assert statuses("Draw an isosceles triangle.", timelines["right triangle"]) == ["failed"], "sides 4, 5 and 3"
    assert statuses("Draw an equilateral triangle.", timelines["peaked triangle"]) == ["failed"]
    assert statuses("Draw a regular hexagon.", timelines["hexagon"]) == ["held"]


def test_copies_on_one_spot_count_once(timelines: dict[str, Timeline]) -> None:
    sentence = "Show 2 × 5 = 10 as two rows of five blue circles."
    grid = check(extract(sentence), timelines["grid"])
    assert [verdict.status for verdict in grid.verdicts if verdict.requirement.kind == "object"] == ["failed"]
    sentence = "Show two rows of five blue squares."
    assert statuses(sentence, timelines["grid"]) == ["held"]
    piled = check(extract("Draw ten blue circles."), timelines["piled"]).verdicts[0]
    assert piled.status == "failed" and "piled copies count once" in piled.seen


def test_check_command_prints_verdicts_and_exits_by_them(tmp_path: Path) -> None:
    scene = tmp_path / "scene.py"
    scene.write_text(SCENES["good number line"])
    held = CliRunner().invoke(app, ["check", NUMBER_LINE, "--code", str(scene), "--json", "--quality", "preview"])
    assert held.exit_code == 0, held.output
    report = json.loads(held.output)
    assert (report["held"], report["failed"], report["all_held"]) == (6, 0, True)
    scene.write_text(SCENES["wrong number line"])
    failed = CliRunner().invoke(app, ["check", NUMBER_LINE, "--code", str(scene), "--quality", "preview"])
    assert failed.exit_code == 1
    assert "✗ failed" in failed.output and "2 held, 4 failed\n" in failed.output
    plan = tmp_path / "plan.json"
    plan.write_text(Checklist(sentence=NUMBER_LINE, requirements=[Requirement(kind="object", phrase="a number line", what="number line")]).model_dump_json())
    edited = CliRunner().invoke(app, ["check", NUMBER_LINE, "--code", str(scene), "--checklist", str(plan), "--json", "--quality", "preview"])
    assert edited.exit_code == 0 and json.loads(edited.output)["held"] == 1
    listed = CliRunner().invoke(app, ["check", NUMBER_LINE])
    assert listed.exit_code == 0 and "6. a dot on the number line moves from 2 to 7" in listed.output
    empty = CliRunner().invoke(app, ["check", "  "])
    assert empty.exit_code == 2 and "the sentence is empty" in empty.output
    scene.write_text(SCENES["good number line"])
    more = NUMBER_LINE.rstrip(".") + ", then highlight the even numbers in green."
    looked = CliRunner().invoke(app, ["check", more, "--code", str(scene), "--quality", "preview"])
    assert looked.exit_code == 0, "every checked item holds"
    assert "? not checked" in looked.output and "6 held, 0 failed, 1 not checked (look for them in the video)" in looked.output
    assert "7. then highlight the even numbers in green (not checked: look for it)" in CliRunner().invoke(app, ["check", more]).output


def test_a_search_is_the_probes_picked_out_in_order(timelines: dict[str, Timeline]) -> None:
    sentence = "Show binary search for 7 in the sorted array 1, 3, 5, 7, 9, 11."
    highlight = next(item for item in extract(sentence).requirements if item.kind == "highlight")
    assert highlight.items == ["5", "9", "7"], "the middles binary search probes"
    held = check(Checklist(sentence=sentence, requirements=[highlight]), timelines["search in order"]).verdicts[0]
    assert held.status == "held", held.seen
    flashed = check(Checklist(sentence=sentence, requirements=[highlight]), timelines["search flashed out of order"]).verdicts[0]
    assert flashed.status == "failed" and "not in the order asked" in flashed.seen
    red = highlight.model_copy(update={"colour": "red"})
    assert check(Checklist(sentence=sentence, requirements=[red]), timelines["search in order"]).verdicts[0].seen == "'5' is never picked out in red (no colour change, frame or flash on it)"


def test_a_move_there_and_back_moves_both_ways(timelines: dict[str, Timeline]) -> None:
    assert statuses("Show a ball moving to the right and then back to the left.", timelines["there and back"]) == ["held"] * 3
    assert statuses("Show a ball moving up.", timelines["there and back"])[-1:] != ["held"]


def test_crossing_segments_in_one_box_are_two_and_a_background_rectangle_is_recorded(timelines: dict[str, Timeline]) -> None:
    assert statuses("Draw a square and its two diagonals.", timelines["diagonals behind a background"]) == ["held", "held"]


def test_formulas_keep_their_names_colours_and_pieces() -> None:
    assert ("formula", "yellow", "7 × 8 = 56") in kinds("Write 7 x 8 = 56 in big yellow numbers.")
    big = extract("Write 7 x 8 = 56 in big yellow numbers.").requirements[0]
    assert big.colour == "yellow" and big.phrase.endswith(", in yellow, big")
    assert extract("Write Newton's second law F = ma.").requirements[0].phrase.startswith("Newton's second law, the formula F = ma")
    assert kinds("Write the power rule d/dx x^n = n x^(n-1).") == [("formula", "d/dx x^n = n x^(n-1)")], "one formula, not three pieces"
    assert ("formula", "x-axis") not in kinds("Show the parabola y = x^2 - 4 and mark where it crosses the x-axis.")
    plotted = extract("Show y = e^x and y = ln(x) on the same axes.").requirements
    assert not any(item.kind == "formula" for item in plotted) and any(item.label == "y = e^x" for item in plotted), "a written curve is its label"



def test_figures_grids_containers_and_picks_are_read() -> None:
    assert kinds("Draw a 4 by 4 grid of squares.") == [("object", "square", 16)]
    assert extract("Draw a 4 by 4 grid of squares.").requirements[0].rows == 4
    assert extract("Show 12 divided into 3 equal groups of 4 dots.").requirements[0].phrase == "12 dots divided into 3 equal groups (rows)"
    assert kinds("Draw a triangle with vertices labelled A, B and C.")[1:] == [("text", "vertex", "A"), ("text", "vertex", "B"), ("text", "vertex", "C")]
    assert ("text", "side", "3") in kinds("Show a square with side length 3 and write its area, 9.")
    assert ("text", "area", "9") in kinds("Show a square with side length 3 and write its area, 9.")
    assert ("object", "line", 2, "diagonal") in kinds("Draw a square and its two diagonals.")
    assert ("object", "matrix", "[[1, 2], [3, 4]]") in kinds("Show the 2 by 2 matrix [[1, 2], [3, 4]].")
    assert [item.at for item in extract("Show the columns of the matrix [[2, 1], [1, 3]] as two arrows.").requirements if item.at] == [[2.0, 1.0], [1.0, 3.0]]
    assert ("object", "stack") in kinds("Push 3, 5 and 8 onto a stack one after another.")
    tree = extract("Draw a tree with root A and three children B, C and D.").requirements
    assert tree[0].what == "node" and tree[0].count == 4 and tree[0].items == ["A", "B", "C", "D"] and tree[1].count == 3
    assert next(item for item in extract("Show linear search for 6 in the array 2, 6, 4, 8.").requirements if item.kind == "highlight").items == ["2", "6"]
    even = next(item for item in extract("Highlight the even numbers from 1 to 10 in green.").requirements if item.kind == "highlight")
    assert even.items == ["2", "4", "6", "8", "10"] and even.colour == "green"
    assert [item.direction for item in extract("Show a ball moving to the right and then back to the left.").requirements if item.kind == "move"] == ["right", "left"]
    assert ("scale", "rectangle", 2.0) in [(item.kind, item.what, item.factor) for item in extract("Draw a rectangle and double its width.").requirements]
    assert not any(item.kind == "formula" for item in extract("Show that (2, 3) + (1, -1) = (3, 2) with arrows.").requirements), "a cut through brackets"


def test_a_force_arrow_must_point_the_way_asked(timelines: dict[str, Timeline]) -> None:
    sentence = "Draw a box with a red arrow pointing right labelled F."
    report = check(extract(sentence), timelines["force to the left"])
    arrow = next(verdict for verdict in report.verdicts if verdict.requirement.what == "arrow")
    assert arrow.status == "failed" and arrow.seen == "no arrow points right"
    assert statuses(sentence.replace("right", "left"), timelines["force to the left"]) == ["held"] * 3


def test_arrays_containers_counting_falls_and_forces_are_read() -> None:
    assert [item.text for item in extract("Show the array [7, 2, 9, 4] and highlight the largest value in red.").requirements if item.kind == "text"] == ["7", "2", "9", "4"]
    assert not any(item.kind == "text" for item in extract("Show the matrix [[2, 0], [0, 3]].").requirements), "a matrix's rows are no array"
    assert [item.what for item in extract("Push 1, 2 and 3 onto a stack and then pop the top one.").requirements if item.kind == "disappear"] == ["3"]
    assert [item.what for item in extract("Enqueue A, B and C into a queue and then dequeue the front one.").requirements if item.kind == "disappear"] == ["A"]
    count = next(item for item in extract("Count by twos from 0 to 10 on a number line, jumping a green dot one step at a time.").requirements if item.kind == "move")
    assert (count.low, count.high, count.items) == (0.0, 10.0, ["2", "4", "6", "8"])
    assert not any(item.kind == "sequence" for item in extract("Count down from 10 to 1 on a number line, one step at a time.").requirements), "the hops are the steps"
    assert next(item for item in extract("Sort 3, 9, 1 from largest to smallest.").requirements if item.kind == "order").items == ["9", "3", "1"]
    fall = next(item for item in extract("Show a ball falling from the top of the screen to the bottom while speeding up.").requirements if item.kind == "move")
    assert (fall.what, fall.direction, fall.phrase) == ("ball", "down", "the ball falls from the top to the bottom, speeding up")
    force = extract("Draw a box with a red arrow pointing right labelled F.").requirements[1]
    assert (force.what, force.direction, force.colour, force.label) == ("arrow", "right", "red", "F")
    assert ("formula", "F = 10 N") in kinds("Draw a box with an arrow labelled F = 10 N pointing to the right.")
    summed = extract("Add the vectors (2, 0) and (0, 2) tip to tail and draw their sum in yellow.").requirements[-1]
    assert (summed.at, summed.colour) == ([2.0, 2.0], "yellow")
    assert next(item for item in extract("Plot y = x^3 and draw the tangent line at x = 1.").requirements if item.kind == "tangent").text == "y = x^3"
    assert next(item for item in extract("Shade the area under y = 2x from x = 0 to x = 3 in blue.").requirements if item.what == "area").colour == "blue"
    assert extract("Draw a triangle with vertices A, B and C and color it orange.").requirements[0].colour == "orange"
    assert extract("Draw 3 rows of 4 yellow squares and write 3 × 4 = 12 below them.").requirements[1].phrase.endswith(", below the drawing")
    orbit = next(item for item in extract("Show a dot moving in a circle of radius 2 around the origin.").requirements if item.kind == "trace")
    assert (orbit.other, orbit.high) == ("circle", 2.0)
    for sentence in ("Show a ball falling from the top of the screen to the bottom while speeding up.", "Enqueue A, B and C into a queue and then dequeue A."):
        assert unread(extract(sentence)) == [], sentence


def test_a_reflection_is_a_mirror_image_across_the_axis_asked(timelines: dict[str, Timeline]) -> None:
    assert statuses("Reflect a red triangle across the y-axis.", timelines["mirrored across y"]) == ["held", "held"]
    across_x = check(extract("Reflect a red triangle across the x-axis."), timelines["mirrored across y"]).verdicts[-1]
    assert across_x.status == "failed" and across_x.seen == "no triangle ever stands mirrored across the x-axis from where one stood"


def test_formulas_said_in_words_and_graphs_of_time_are_read() -> None:
    assert kinds("Write the integral of x^2 from 0 to 3 equals 9.")[-1] == ("formula", "∫_0^3 x^2 dx = 9")
    assert kinds("Write the derivative of x^3, which is 3x^2.") == [("formula", "d/dx x^3 = 3x^2")]
    graph = extract("Plot velocity against time as the line v = 2t from t = 0 to t = 5.").requirements
    assert ("curve", "v = 2t") in [(item.what, item.text) for item in graph]
    assert [(item.low, item.high) for item in graph if item.kind == "range"] == [(0.0, 5.0)]
    assert [item.text for item in graph if item.what == "axis"] == ["velocity", "time"]
    assert unread(extract("Plot velocity against time as the line v = 2t from t = 0 to t = 5.")) == []
    assert ("text", "hypotenuse", "10") in kinds("Draw a right triangle with legs 6 and 8 and hypotenuse 10, labelling each side.")
    assert kinds("Draw a circle with its diameter labelled d = 6.")[1] == ("text", "diameter", "d = 6"), "the label, not a formula to write besides"
    assert ("transform", "square", "circle") in kinds("Turn a red square into a blue circle.")
    assert [item.colour for item in extract("Draw the vectors (2, 3) and (-1, 2) from the origin in green and orange.").requirements] == ["green", "orange"]
    assert normalise(latex("m = (y2 - y1)/(x2 - x1)")) == normalise("m = (y2 - y1)/(x2 - x1)")


def test_what_fades_with_no_shape_named_is_the_quoted_text_before_it(timelines: dict[str, Timeline]) -> None:
    sentence = "The words 'Hello, Manim' are written on screen in white, then fade out."
    checklist = extract(sentence)
    assert [(item.kind, item.what) for item in checklist.requirements if item.kind == "disappear"] == [("disappear", "Hello, Manim")]
    assert [(item.phrase, item.colour) for item in checklist.requirements if item.kind == "text"] == [('the text "Hello, Manim" is shown in white', "white")]
    assert [item for item in checklist.requirements if item.kind == "look"] == [], "a comma in quotes ends no clause; the words written are read"
    assert statuses(sentence, timelines["words that fade"]) == ["held", "held"]
    yellow = check(extract(sentence.replace("white", "yellow")), timelines["words that fade"]).verdicts[0]
    assert (yellow.status, yellow.seen) == ("failed", "`words` (Text \"Hello, Manim\") is shown, but in white, not yellow")
    stays = check(checklist, timelines["words that stay"]).verdicts[1]
    assert (stays.status, stays.seen) == ("failed", "'Hello, Manim' is still on screen at the end")
    anything = check(extract("Draw it, then fade out."), timelines["words that fade"]).verdicts
    assert [(verdict.status, verdict.seen) for verdict in anything] == [("held", "1 object(s) at most, 0 at the end")]


def test_shaded_parts_are_read_however_they_are_counted() -> None:
    for sentence, count in (
        ("A rectangle divided into three equal parts with two of them shaded", 2),
        ("A circle divided into 4 equal parts with 3 parts shaded", 3),
        ("A square cut into 4 equal pieces with 2 of the pieces shaded in green", 2),
    ):
        shaded = [item for item in extract(sentence).requirements if item.what == "shaded part"]
        assert [(item.count, item.kind) for item in shaded] == [(count, "object")], sentence
        assert not [item for item in extract(sentence).requirements if item.kind == "look"], sentence
    assert [item.colour for item in extract("A square cut into 4 equal pieces with 2 of the pieces shaded in green").requirements if item.what == "shaded part"] == ["green"]
