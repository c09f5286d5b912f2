"""The static scene model: imports and aliases, the code's classes, the class each variable holds, call
sites with their receivers, and the promise it exists for: lint and apidocs name the same class."""

from __future__ import annotations

import ast
import textwrap

import manim
import pytest

from manimgen.agent.apidocs import api_info, call_targets
from manimgen.agent.lint import lint
from manimgen.agent.scene_model import CallSite, Instance, SceneModel

HEADER = "from manim import *\nimport manim as m\nfrom manim import Circle as C\nimport numpy as np\n"


def scene(body: str, header: str = HEADER, extra: str = "") -> str:
    """A scene file whose construct() holds `body`, followed by `extra` top-level code."""
    return header + "\n\nclass Probe(Scene):\n    def construct(self):\n" + textwrap.indent(textwrap.dedent(body), " " * 8) + extra


def site(model: SceneModel, name: str, nth: int = 0) -> CallSite:
    return [call for call in model.calls if call.name == name][nth]


def held(model: SceneModel, variable: str) -> Instance | None:
    """What the first load of `variable` holds."""
    node = next(n for n in ast.walk(model.tree) if isinstance(n, ast.Name) and n.id == variable and isinstance(n.ctx, ast.Load))
    return model.instance(node)


def test_imports_and_aliases_say_which_names_come_from_manim():
    model = SceneModel.parse("try:\n    import not_a_real_module_xyz\nexcept ImportError:\n    pass\n" + HEADER)
    assert model.manim_star and not model.unresolved_star
    assert model.module_aliases["m"] is manim
    assert model.manim_imports["C"] == ("Circle", manim.Circle)
    expressions = {text: ast.parse(text, mode="eval").body for text in ("C", "m.Square", "Dot", "np", "m.Nope")}
    assert [model.resolve(e) for e in expressions.values()] == [manim.Circle, manim.Square, manim.Dot, None, None]
    assert [model.manim_name(e) for e in expressions.values()] == ["Circle", "Square", "Dot", None, None]
    assert "np" in model.local_names and model.imported["np"] == "numpy"
    assert not {"C", "m"} & model.local_names
    assert [(a.name, a.guarded) for a in model.absent_imports] == [("not_a_real_module_xyz", True)]
    assert [a.name for a in SceneModel.parse(HEADER + "m.Nope()\n").absent_attributes] == ["Nope"]


def test_a_rebound_alias_is_the_codes_own_name():
    model = SceneModel.parse(HEADER + "m = 3\nC = 4\n")
    assert model.resolve(ast.parse("m.Circle", mode="eval").body) is None
    assert model.resolve(ast.parse("C", mode="eval").body) is None


def test_user_classes_know_their_manim_bases_and_own_attributes():
    code = scene(
        "pass\n",
        extra="\n\nclass Badge(VGroup):\n    size = 2\n\n    def run(self):\n        return self\n"
        "\n\nclass Big(Badge):\n    pass\n"
        "\n\nclass Magic(VGroup):\n    def __getattr__(self, name):\n        return 1\n"
        "\n\nclass Stranger(SomethingElse):\n    pass\n",
    )
    model = SceneModel.parse(code)
    badge = model.user_class("Badge")
    assert badge is not None and badge.manim_classes == (manim.VGroup,) and badge.from_user and not badge.open
    assert {"run", "size"} <= badge.user_attributes
    big = model.user_class("Big")
    assert big is not None and big.manim_classes == (manim.VGroup,) and "run" in big.user_attributes
    magic = model.user_class("Magic")
    assert magic is not None and magic.open
    assert model.user_class("Stranger") is None
    probe = model.user_class("Probe")
    assert probe is not None and probe.manim_classes == (manim.Scene,)


def test_variables_hold_the_class_they_were_built_from_through_any_alias():
    code = scene(
        "circle = C(radius=1)\nsquare = m.Square()\ndot = Dot()\n"
        "self.add(circle, square, dot)\n"
        "chained = Square().shift(LEFT)\nfirst, second = Circle(), Dot()\n"
        "self.add(chained, first, second)\n"
        "changing = Circle()\nchanging = Text('x')\nself.add(changing)\n"
        "for item in [Circle()]:\n    self.add(item)\n"
    )
    model = SceneModel.parse(code)
    for variable, cls in (("circle", manim.Circle), ("square", manim.Square), ("dot", manim.Dot)):
        instance = held(model, variable)
        assert instance is not None and instance.cls.manim_classes == (cls,) and instance.direct, variable
    for variable, cls in (("chained", manim.Square), ("first", manim.Circle), ("second", manim.Dot)):
        instance = held(model, variable)
        assert instance is not None and instance.cls.manim_classes == (cls,) and not instance.direct, variable
    assert held(model, "changing") is None
    assert held(model, "item") is None


def test_variables_are_scoped_to_their_function():
    code = scene("shape = Circle()\nself.add(shape)\n", extra="\n\ndef helper(shape):\n    return shape.copy()\n")
    model = SceneModel.parse(code)
    assert [c.instance is not None for c in model.calls if c.name in ("add", "copy")] == [True, False]


def test_call_sites_carry_name_receiver_class_keywords_and_line():
    code = scene("circle = C(radius=1, color=RED)\ncircle.animate.shift(UP).scale(2)\nself.play(Create(circle))\n")
    model = SceneModel.parse(code)
    constructor = site(model, "C")
    assert (constructor.target, constructor.target_name, constructor.keywords) == (manim.Circle, "Circle", ("radius", "color"))
    assert constructor.receiver is None and constructor.line == 9
    shift, scale = site(model, "shift"), site(model, "scale")
    assert shift.instance is not None and shift.instance.builder and shift.instance.cls.label == "Circle"
    assert scale.instance == shift.instance and scale.line == 10
    assert isinstance(shift.receiver, ast.Attribute) and ast.unparse(shift.receiver) == "circle.animate"
    play = site(model, "play")
    assert play.instance is not None and play.instance.cls.label == "Probe" and play.instance.cls.manim_classes == (manim.Scene,)
    create = site(model, "Create")
    assert create.target is manim.Create and create.target_name == "Create"
    assert [call.name for call in model.calls] == ["C", "scale", "shift", "play", "Create"], "outer calls first"


@pytest.mark.parametrize(
    ("header", "constructor"),
    [
        ("from manim import *\n", "Circle()"),
        ("import manim as m\nfrom manim import RED, Scene\n", "m.Circle()"),
        ("from manim import *\nfrom manim import Circle as C\n", "C()"),
    ],
)
def test_lint_and_apidocs_agree_on_the_receiver_class(header, constructor):
    code = scene(f"circle = {constructor}\ncircle.set_fill_color(RED, opacity=0.5)\nself.add(circle)\n", header=header)
    receiver = site(SceneModel.parse(code), "set_fill_color").instance
    assert receiver is not None and receiver.cls.label == "Circle"
    findings = lint(code)
    assert [f.code for f in findings] == ["unknown-method"]
    assert "`circle` is a Circle, which has no method `set_fill_color`" in findings[0].message
    assert api_info(code).unresolved == ["Circle.set_fill_color"]
    assert "Circle.set_fill_color" in [target.qualified for target in call_targets(code)]


def test_apidocs_documents_aliases_under_manim_names_and_skips_the_codes_own_methods():
    code = scene(
        "circle = C()\nsquare = m.Square()\nself.show(circle)\nsquare.rotate(1)\nself.add(circle, square)\n",
        extra="\n\n    def show(self, mobject):\n        self.add(mobject)\n",
    )
    info = api_info(code)
    assert {"Circle", "Square", "Square.rotate"} <= set(info.resolved)
    assert info.unresolved == []
