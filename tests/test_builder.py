"""The scene builder: a checklist its blocks cover, compiled into plain Manim code that renders and holds
every requirement; anything it did not read whole is left to the model. Sentences from the development set."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from counting_renderer import CountingRenderer

from manimgen.agent import AgentConfig, run_agent
from manimgen.agent.builder import build
from manimgen.agent.formulas import NotAFormula, latex, parse
from manimgen.checks import Timeline, check, extract
from manimgen.checks.coverage import unread
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderJob, RenderPool

BUILT = [
    "Show 7 - 4 = 3 on a number line by moving a dot from 7 to 3.",
    "Plot y = x^3 from -2 to 2 and label the curve.",
    "Shade the area under y = x^2 between x = 1 and x = 2.",
    "Show a point moving along the line y = x/2 from x = -4 to x = 4.",
    "Transform the expression 2(x + 3) into 2x + 6.",
    "Draw a purple pentagon and rotate it by 72 degrees.",
    "Swap the first and last elements of the array 1, 2, 3, 4.",
    "Rotate the vector (1, 0) by 90 degrees to (0, 1).",
    "Show 2 × 5 = 10 as two rows of five circles.",
    "Show the fraction 2/3 as a rectangle divided into three equal parts with two of them shaded.",
    "Write 1/2 + 1/4 = 3/4 and show it with a circle cut into quarters.",
    "Show a number line from 0 to 20 and jump from 4 to 12 in two hops of 4.",
    "Solve 3x - 6 = 9 step by step: add 6 to both sides, then divide by 3.",
    "Show the 3 times table from 3 × 1 = 3 to 3 × 5 = 15, one line at a time.",
    "Draw the parabola y = -x^2 + 4 and mark the two points where it crosses the x-axis.",
    "Draw the tangent line to y = sin(x) at x = 0.",
    "Draw a right triangle with sides labelled 3, 4 and 5.",
    "Draw a circle and a chord, and label the chord AB.",
    "Draw a square and its two diagonals.",
    "Show a square with side length 3 and write its area, 9.",
    "Show the matrix [[1, 0], [0, 1]] and label it the identity.",
    "Draw a bar chart of the values 3, 5, 2 and 6.",
    "Draw a tree with root A and three children B, C and D.",
    "Push 3, 5 and 8 onto a stack one after another.",
    "Draw a linked list of the nodes 1, 2 and 3 with arrows between them.",
    "Show binary search for 7 in the sorted array 1, 3, 5, 7, 9, 11.",
    "Highlight the even numbers from 1 to 10 in green.",
    "Add the vectors (1, 2) and (3, 1) tip to tail and draw their sum (4, 3).",
    "Show the columns of the matrix [[2, 1], [1, 3]] as two arrows.",
    "Draw the vector (3, 2) and its x and y components as dashed lines.",
    "Draw y = x^2 and y = 2x on the same axes and shade the region between them.",
    "Show y = e^x and y = ln(x) on the same axes.",
    "Write 7 x 8 = 56 in big yellow numbers.",
    "Show a ball moving to the right and then back to the left.",
    "Draw a box with an arrow labelled F = 10 N pointing to the right.",
    "Draw a block on a surface with a force arrow pushing it to the right.",
    "Show a dot moving in a circle of radius 2 around the origin.",
    "Count by twos from 0 to 10 on a number line, jumping a green dot one step at a time.",
    "Push 1, 2 and 3 onto a stack and then pop the top one.",
    "Enqueue A, B and C into a queue and then dequeue A.",
    "Show a ball falling from the top of the screen to the bottom while speeding up.",
    "Draw 3 rows of 4 yellow squares and write 3 × 4 = 12 below them.",
    "Shade the area under y = 2x from x = 0 to x = 3 in blue.",
    "Plot y = x^3 and draw the tangent line at x = 1.",
    "Show the matrix [[2, 0], [0, 3]] and write its determinant 6 next to it.",
    "Show the array [7, 2, 9, 4] and highlight the largest value in red.",
    "Draw a triangle with vertices A, B and C and color it orange.",
    "Reflect a red triangle across the y-axis.",
    "Plot velocity against time as the line v = 2t from t = 0 to t = 5.",
    "Write the integral of 2x from 0 to 3 and its value, 9.",
    "Draw three circles of different colours in a row.",
    "Write the derivative of sin(x) is cos(x) and plot both curves on the same axes.",
    "Draw a right triangle with legs 6 and 8 and hypotenuse 10, labelling each side.",
    "Draw a circle with its diameter labelled d = 6.",
    "Turn a red square into a blue circle.",
    "Draw the vectors (2, 3) and (-1, 2) from the origin in green and orange.",
    "Show a red ball rising from the bottom of the screen to the top.",
    "Show a blue ball moving to the left across the screen.",
    "Write the slope formula m = (y2 - y1)/(x2 - x1) in blue.",
    "Count backwards from 20 to 0 by fives on a number line.",
]


def test_an_edited_checklist_reaches_the_built_code_only_as_numbers_and_known_colours() -> None:
    sentence = "On a number line from 0 to 10, move a dot from 0 to 10 by 2s."
    planned = extract(sentence)
    hostile = [
        item.model_copy(update={"items": ["2)); import os; os.system('x'); ((0"]}) if item.kind == "move" else
        item.model_copy(update={"colour": "RED); import os; (X"}) if item.what == "dot" else item
        for item in planned.requirements
    ]  # fmt: skip
    assert build(planned.model_copy(update={"requirements": hostile})) is None, "a stop that is no number: left to the model"
    recoloured = [item.model_copy(update={"colour": "RED); import os; (X"}) if item.what == "dot" else item for item in planned.requirements]
    code = build(planned.model_copy(update={"requirements": recoloured})) or ""
    assert "import os" not in code and "color=RED)" in code, "an unknown colour word is the block's own default"
    assert "color=DARK_BROWN" in (build(extract("Draw a brown square and rotate it by 45 degrees.")) or "")


def test_a_sum_of_fractions_shades_its_result() -> None:
    code = build(extract("Write 1/2 + 1/4 = 3/4 and show it with a circle cut into quarters.")) or ""
    assert "Sector(" in code and "fill_opacity=0.8 if index < 3 else 0" in code


def test_a_built_formula_is_the_tex_asked_for() -> None:
    code = build(extract("Show 2 × 5 = 10 as two rows of five circles.")) or ""
    (tex,) = [ast.literal_eval(node.args[0]) for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "MathTex"]
    assert tex == latex("2 × 5 = 10") == r"2 \times  5 = 10"
    assert "MathTex(r'2 \\times  5 = 10')" in code, "a raw string the reader can read as TeX"


@pytest.mark.parametrize(
    ("text", "python", "at_two"),
    [("y = 2x + 1", "2.0 * x + 1.0", 5.0), ("-x^2 + 4", "-(x) ** (2.0) + 4.0", 0.0), ("sqrt(x)", "np.sqrt((x))", 2**0.5), ("|x - 1| + 2", "np.abs(x - 1.0) + 2.0", 3.0)],
)
def test_a_formula_becomes_python_without_being_evaluated(text: str, python: str, at_two: float) -> None:
    expression = parse(text)
    assert expression.python == python
    assert eval(f"lambda x: {expression.python}", {"np": np, "__builtins__": {}})(2.0) == pytest.approx(at_two)


@pytest.mark.parametrize("text", ["__import__('os').system('x')", "open('/etc/passwd')", "x; import os", "lambda: 1", "y = " + "x+" * 40 + "1"])
def test_anything_but_a_formula_of_x_is_refused(text: str) -> None:
    with pytest.raises(NotAFormula):
        parse(text)


def test_a_tower_of_powers_is_left_to_the_model_not_computed() -> None:
    assert build(extract("Plot y = 9^9^9^9 from -2 to 2.")) is None


def test_a_written_formula_becomes_latex() -> None:
    assert latex("3 × 4 = 12") == r"3 \times  4 = 12"
    assert latex("1/2 + 1/4 = 3/4") == r"\frac{1}{2} + \frac{1}{4} = \frac{3}{4}"
    assert latex("x^2/2") == "x^{2}/2", "only a number over a number becomes a fraction"
    assert latex("(a + b)^2") == "(a + b)^{2}"
    assert latex("sqrt(x)") == r"\sqrt{x}"


def test_only_a_sentence_read_whole_is_built() -> None:
    assert unread(extract("Plot y = x^3 from -2 to 2 and label the curve.")) == []
    wider = "Draw an ellipse that is wider than it is tall."
    assert [item.text for item in unread(extract(wider))] == [wider.rstrip(".")], "'wider than it is tall' is not read"
    assert build(extract(wider)) is None
    assert build(extract("Draw the magnetic field lines around a bar magnet.")) is None
    assert build(extract("Show a car moving at constant speed with a velocity arrow above it.")) is None


def test_built_scenes_are_plain_manim_that_hold_every_requirement() -> None:
    checklists = [extract(sentence) for sentence in BUILT]
    codes = [build(checklist) for checklist in checklists]
    assert all(code is not None for code in codes)
    for code in codes:
        imported = {node.module for node in ast.walk(ast.parse(code or "")) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(ast.parse(code or "")) if isinstance(node, ast.Import) for alias in node.names}
        assert imported <= {"manim", "numpy"}, imported
    with RenderPool(2, use_cache=False) as pool:
        results = pool.map([RenderJob(code or "", quality="preview", geometry=True) for code in codes])
    for sentence, checklist, result in zip(BUILT, checklists, results):
        assert result.ok, (sentence, result.error_tail)
        report = check(checklist, Timeline.from_geometry(result.geometry))
        assert report.sentence_held, (sentence, [verdict.seen for verdict in report.verdicts if verdict.status != "held"])


def test_sample_check_starts_from_the_built_scene_and_asks_the_model_nothing_when_it_holds() -> None:
    with CountingRenderer() as renderer:
        trace = run_agent(ScriptedLLM(), BUILT[1], "sample-check", AgentConfig(rounds=3, renderer=renderer))
    assert [(round_.kind, round_.completion_tokens) for round_ in trace.rounds] == [("build", 0)]
    assert trace.llm_calls == 0 and trace.ok and trace.checks is not None and trace.checks["all_held"]


def test_figures_put_each_label_where_it_belongs() -> None:
    right = build(extract("Draw a right triangle with sides labelled 3, 4 and 5.")) or ""
    assert "Polygon([-2.50, -1.88, 0], [2.50, -1.88, 0], [-2.50, 1.88, 0]" in right, "legs 3 up and 4 across, to scale"
    assert "MathTex(r'3').move_to(side(2, 0)), MathTex(r'4').move_to(side(0, 1)), MathTex(r'5').move_to(side(1, 2))" in right
    assert "move_to(side(" not in (build(extract("Draw a triangle with vertices labelled A, B and C.")) or "move_to(side(")
    assert build(extract("Draw a circle with its radius and its diameter labelled d.")) is None, "a radius and a diameter: left to the model"


def test_a_curve_is_drawn_only_where_it_has_a_value_inside_the_axes() -> None:
    code = build(extract("Show y = e^x and y = ln(x) on the same axes.")) or ""
    assert "np.log((x)), x_range=[0.01, 4]" in code, "ln(x) from just above 0"
    assert "y_range=[-5, 25, 5]" in code and "(np.e) ** (x), x_range=[-4, 3.218]" in code, "e^x cut at the top of the axes, not squashing ln(x)"

