"""The static check: each kind of finding on small scenes, silence on valid code, and zero findings on
every ManimBench reference (human-written scenes that render with manim 0.19)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap

import manim
import pytest

from manimgen.agent.lint import Finding, format_findings, lint, removed_names
from manimgen.agent.removed_api import REMOVED_METHODS, REMOVED_MODULES, REMOVED_NAMES
from manimgen.data import load_tasks
from manimgen.data.errors import DatasetError


def scene(body: str, header: str = "from manim import *\n", base: str = "Scene") -> str:
    """A scene file whose construct() holds `body`; the body starts on line 5."""
    return header + f"\nclass Probe({base}):\n    def construct(self):\n" + textwrap.indent(textwrap.dedent(body), " " * 8)


def codes(code: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in lint(code)]


def only(code: str) -> Finding:
    findings = lint(code)
    assert len(findings) == 1, findings
    return findings[0]


def test_syntax_error_is_reported_with_its_line():
    finding = only(scene("self.play(Create(Circle())\nself.wait()\n"))
    assert finding.code == "syntax"
    assert finding.line in (5, 6)
    assert "SyntaxError" in finding.message


def test_unknown_name_gets_a_close_suggestion_and_every_line():
    finding = only(scene("self.add(Sqaure())\nself.add(Sqaure(color=RED))\n"))
    assert (finding.line, finding.column, finding.code) == (5, 18, "unknown-name")
    assert "`Sqaure`" in finding.message and "`Square`" in finding.message and "line 6" in finding.message


def test_manim_name_without_the_import_is_explained():
    findings = lint(scene("self.add(Circle())\n", header="import numpy as np\n"))
    assert [(f.line, f.code) for f in findings] == [(3, "unknown-name"), (5, "unknown-name")]
    assert all("from manim import *" in f.message for f in findings)


def test_explicit_imports_are_checked_against_manim():
    code = "from manim import Scene, Circle, Circel\nfrom manim.mobject.geometry.arc import Dot, Dott\n"
    code += scene("self.add(Circle(), Dot())\n", header="")
    findings = lint(code)
    assert [(f.line, f.code) for f in findings] == [(1, "unknown-name"), (2, "unknown-name")]
    assert "`Circel`" in findings[0].message and "`Circle`" in findings[0].message
    assert "`Dott`" in findings[1].message


def test_missing_module_and_manimgl_package():
    assert codes("import not_a_real_module_xyz\n" + scene("self.wait()\n")) == [(1, "unknown-module")]
    finding = only(scene("self.add(Circle())\n", header="from manimlib import *\n"))
    assert finding.code == "removed-api" and "from manim import *" in finding.message


def test_manimgl_names_under_manimlib_import_are_reported_too():
    code = scene("self.play(ShowCreation(Circle()))\n", header="from manimlib import *\n")
    assert codes(code) == [(1, "removed-api"), (5, "removed-api")]


def test_bad_keyword_of_a_manim_class_with_suggestion():
    finding = only(scene("circle = Circle(radius=1, colour=RED)\nself.add(circle)\n"))
    assert (finding.line, finding.code) == (5, "bad-kwarg")
    assert "Circle" in finding.message and "`colour`" in finding.message and "`color`" in finding.message


def test_keywords_are_followed_up_the_mro():
    """fill_opacity lives on VMobject, stroke_width on VMobject, z_index on Mobject: all valid for Square."""
    assert lint(scene("self.add(Square(side_length=2, fill_opacity=0.5, stroke_width=2, z_index=1))\n")) == []
    assert codes(scene("self.add(Square(side_lenght=2))\n")) == [(5, "bad-kwarg")]


def test_bad_keyword_of_a_method_without_kwargs():
    finding = only(scene("a = Circle()\nb = Square()\na.next_to(b, RIGHT, buf=0.1)\nself.add(a, b)\n"))
    assert (finding.line, finding.code) == (7, "bad-kwarg") and "`buff`" in finding.message


def test_animations_accept_any_keyword_because_manim_does():
    """Animation.__init__ swallows unknown keywords, so reporting them would be a false alarm."""
    assert lint(scene("self.play(FadeIn(Circle(), direction=UP, whatever=1))\n")) == []


def test_unknown_method_on_a_constructed_variable():
    finding = only(scene("sq = Square()\nsq.flipp(RIGHT)\nself.add(sq)\n"))
    assert (finding.line, finding.code) == (6, "unknown-method")
    assert "Square" in finding.message and "`flip`" in finding.message


def test_unknown_method_on_a_constructor_call():
    finding = only(scene("self.add(Square().flipp(RIGHT))\n"))
    assert (finding.line, finding.code) == (5, "unknown-method") and "`flip`" in finding.message
    assert lint(scene("self.add(Square().flip(RIGHT).shift(UP))\n")) == []
    finding = only(scene("self.add(manim.Square().flipp(RIGHT))\n", header="import manim\nfrom manim import *\n"))
    assert (finding.line, finding.code) == (6, "unknown-method") and "`flip`" in finding.message


def test_a_scene_named_after_a_manim_class_is_what_its_own_code_constructs():
    code = "from manim import *\n\n\nclass Dodecahedron(Scene):\n    def construct(self):\n        self.add(Dodecahedron().to_edge(UP))\n"
    finding = only(code)
    assert (finding.line, finding.code) == (6, "unknown-method")
    assert "a subclass of Scene" in finding.message and "`to_edge`" in finding.message


def test_unknown_method_on_self_names_the_scene_class_that_has_it():
    finding = only(scene("self.set_camera_orientation(phi=60 * DEGREES)\n"))
    assert finding.code == "unknown-method" and "ThreeDScene" in finding.message
    assert lint(scene("self.set_camera_orientation(phi=60 * DEGREES)\n", base="ThreeDScene")) == []


def test_animate_chains_are_checked_against_the_mobject():
    code = scene("dot = Dot()\nself.play(dot.animate.shift(UP).scal(2))\nself.play(dot.animate(run_time=2).shift(UP))\n")
    finding = only(code)
    assert (finding.line, finding.code) == (6, "unknown-method") and "`scale`" in finding.message


def test_removed_names_and_methods_name_their_replacement():
    code = scene("axes = Axes()\ngraph = axes.get_graph(lambda x: x)\nself.play(ShowCreation(graph))\n")
    findings = lint(code)
    assert [(f.line, f.code) for f in findings] == [(6, "removed-api"), (7, "removed-api")]
    assert "axes.plot" in findings[0].message and "Create" in findings[1].message
    finding = only(scene("self.add(TextMobject('hi'))\n"))
    assert finding.code == "removed-api" and "Text" in finding.message
    finding = only("from manim import *\n\n\nclass Old(GraphScene):\n    def construct(self):\n        self.setup_axes()\n")
    assert (finding.line, finding.code) == (4, "removed-api") and "Axes" in finding.message


@pytest.mark.parametrize(
    "body",
    [
        "t = Text('hi')\nt.set_width(3)\nself.add(t)\n",  # Mobject.__getattr__ turns set_width(x) into width = x
        "c = Circle()\nc.glow = lambda: None\nc.glow()\n",  # attribute set by the code itself
        "c = Circle()\nc.set(pulse=lambda: None)\nc.pulse()\n",  # Mobject.set() stores attributes
        "m = Circle()\nm = Text('x')\nm.get_text_part()\n",  # rebound to another class: type unknown
        "for m in [Circle()]:\n    m.anything()\n",  # loop variable: type unknown
        "x = Badge()\nx.run()\n",  # a class the code defines below
        "plane = NumberPlane()\nplane.prepare_for_nonlinear_transform()\nself.add(plane)\n",
        "g = VGroup(*[Dot() for _ in range(3)])\ng.arrange(RIGHT, buff=0.2)\nself.add(g)\n",
        "tracker = ValueTracker(0)\nself.play(tracker.animate.set_value(1))\n",
        "eval('undefined_anything')\n",  # dynamic code: names cannot be followed
        "try:\n    from manim import NotInManim\nexcept ImportError:\n    NotInManim = Circle\nself.add(NotInManim())\n",
        "try:\n    import not_a_real_module_xyz\nexcept Exception:\n    pass\n",
        "size: UndefinedType = 2\nself.add(Circle(radius=size))\n",  # a local annotation is never evaluated
    ],
)
def test_valid_or_unknowable_code_is_not_reported(body):
    code = scene(body) + "\n\nclass Badge(VGroup):\n    def run(self):\n        return self\n"
    assert lint(code) == []


def test_annotations_count_only_where_python_evaluates_them():
    body = "def make_circle(size: UndefinedType) -> Circle:\n    return Circle(radius=size)\nself.add(make_circle(1))\n"
    assert codes(scene(body)) == [(5, "unknown-name")]
    assert lint(scene(body, header="from __future__ import annotations\n\nfrom manim import *\n")) == []


def test_other_star_imports_silence_the_name_check():
    assert lint(scene("self.add(Circle(radius=pi))\n", header="from manim import *\nfrom math import *\n")) == []


def test_format_findings_lists_every_finding_with_its_position():
    findings = lint(scene("self.add(Sqaure())\nc = Circle(colour=RED)\n"))
    text = format_findings(findings)
    assert text.count("\n- ") == 2 and "line 5, column 18 [unknown-name]" in text and "line 6" in text
    assert "not rendered" in text


def test_removed_tables_hold_only_absent_names_with_present_replacements():
    for table in (REMOVED_NAMES, REMOVED_METHODS):
        for name, replacement in table.items():
            for used in replacement.uses:
                owner, _, attribute = used.partition(".")
                target = getattr(manim, owner)
                assert not attribute or hasattr(target, attribute), f"{name}: {used} missing"
    assert not any(hasattr(manim, name) for name in removed_names()), "a name the installed manim has is not flagged"
    assert not any(
        hasattr(cls, method) for method in REMOVED_METHODS for cls in (manim.Axes, manim.VMobject, manim.Mobject)
    )
    assert all(module != "manim" for module in REMOVED_MODULES)


def test_config_replacements_exist():
    for name in ("frame_width", "frame_height", "frame_x_radius", "frame_y_radius"):
        assert hasattr(manim.config, name)
    assert "background" in inspect.signature(manim.VMobject.set_stroke).parameters


def _references(split: str) -> list:
    try:
        return load_tasks(split)
    except DatasetError as error:
        pytest.skip(f"ManimBench is not available: {error}")


@pytest.mark.parametrize("split", ["test", "train", "validation"])
def test_no_finding_on_any_manimbench_reference(split):
    tasks = _references(split)
    assert tasks, f"no {split} tasks"
    reported = {task.id: [str(f) for f in lint(task.reference_code)] for task in tasks}
    assert {task_id: found for task_id, found in reported.items() if found} == {}


def test_linting_imports_manim_quietly() -> None:
    """The first import of manim in a process may come from the lint; pydub's ffmpeg warning must not reach a user."""
    program = "from manimgen.agent.lint import lint\nprint(lint('from manim import *\\nclass A(Scene):\\n    pass\\n'))"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
    assert "ffmpeg" not in done.stderr
