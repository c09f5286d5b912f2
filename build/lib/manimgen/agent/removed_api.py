"""Names from ManimGL or from old manim releases that models still write, with their Community Edition form.

Models trained on the web mix three manims: 3Blue1Brown's ManimGL, pre-0.2 community releases and
Manim CE. A crash on `ShowCreation` only says "not defined"; the repair is far easier when the
prompt names the Community Edition replacement. Every name a replacement relies on is listed in
`uses`, so a test can prove the advice is valid for the installed manim.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Replacement:
    """`rename` is set where the new name takes the same arguments, so a mechanical repair may swap it in."""

    advice: str
    uses: tuple[str, ...]
    rename: str | None = None


REMOVED_NAMES: dict[str, Replacement] = {
    "ShowCreation": Replacement("use `Create(mobject)`", ("Create",), "Create"),
    "ShowCreationThenDestruction": Replacement("use `ShowPassingFlash(mobject)`", ("ShowPassingFlash",)),
    "ShowCreationThenFadeOut": Replacement(
        "use `Succession(Create(mobject), FadeOut(mobject))`", ("Succession", "Create", "FadeOut")
    ),
    "ShowCreationThenDestructionAround": Replacement("use `Circumscribe(mobject)`", ("Circumscribe",), "Circumscribe"),
    "ShowCreationThenFadeAround": Replacement("use `Circumscribe(mobject, fade_out=True)`", ("Circumscribe",)),
    "ShowPassingFlashAround": Replacement("use `Circumscribe(mobject)`", ("Circumscribe",), "Circumscribe"),
    "FlashAround": Replacement("use `Circumscribe(mobject)`", ("Circumscribe",), "Circumscribe"),
    "FlashUnder": Replacement("use `ShowPassingFlash(Underline(mobject))`", ("ShowPassingFlash", "Underline")),
    "CircleIndicate": Replacement("use `Circumscribe(mobject, Circle)`", ("Circumscribe", "Circle")),
    "WiggleOutThenIn": Replacement("use `Wiggle(mobject)`", ("Wiggle",), "Wiggle"),
    "TextMobject": Replacement("use `Text(...)` for plain text, or `Tex(...)` for LaTeX text", ("Text", "Tex")),
    "TexMobject": Replacement("use `MathTex(...)`", ("MathTex",), "MathTex"),
    "TexText": Replacement("use `Tex(...)`", ("Tex",), "Tex"),
    "OldTex": Replacement("use `MathTex(...)`", ("MathTex",), "MathTex"),
    "OldTexText": Replacement("use `Tex(...)`", ("Tex",), "Tex"),
    "BraceText": Replacement("use `BraceLabel(mobject, text, label_constructor=Text)`", ("BraceLabel", "Text")),
    "GraphScene": Replacement(
        "subclass `Scene`, build `axes = Axes(x_range=..., y_range=...)` and draw with `axes.plot(function)`",
        ("Scene", "Axes"),
    ),
    "InteractiveScene": Replacement("subclass `Scene`", ("Scene",), "Scene"),
    "ParametricSurface": Replacement("use `Surface(function, u_range=..., v_range=...)`", ("Surface",)),
    "FadeInFrom": Replacement("use `FadeIn(mobject, shift=direction)`", ("FadeIn",)),
    "FadeInFromDown": Replacement("use `FadeIn(mobject, shift=UP)`", ("FadeIn", "UP")),
    "FadeInFromLarge": Replacement("use `FadeIn(mobject, scale=factor)`", ("FadeIn",)),
    "FadeInFromPoint": Replacement("use `FadeIn(mobject, target_position=point)`", ("FadeIn",)),
    "FadeOutAndShift": Replacement("use `FadeOut(mobject, shift=direction)`", ("FadeOut",)),
    "FadeOutAndShiftDown": Replacement("use `FadeOut(mobject, shift=DOWN)`", ("FadeOut", "DOWN")),
    "FadeOutToPoint": Replacement("use `FadeOut(mobject, target_position=point)`", ("FadeOut",)),
    "VFadeIn": Replacement("use `FadeIn(mobject)`", ("FadeIn",), "FadeIn"),
    "VFadeOut": Replacement("use `FadeOut(mobject)`", ("FadeOut",), "FadeOut"),
    "ContinualAnimation": Replacement("attach an updater with `mobject.add_updater(function)`", ("Mobject",)),
    "TracingTail": Replacement("use `TracedPath(point_function)`", ("TracedPath",)),
    "SmallDot": Replacement("use `Dot(radius=DEFAULT_SMALL_DOT_RADIUS)`", ("Dot", "DEFAULT_SMALL_DOT_RADIUS")),
    "LargeDot": Replacement("use `Dot(radius=2 * DEFAULT_DOT_RADIUS)`", ("Dot", "DEFAULT_DOT_RADIUS")),
    "FRAME_WIDTH": Replacement("use `config.frame_width`", ("config",), "config.frame_width"),
    "FRAME_HEIGHT": Replacement("use `config.frame_height`", ("config",), "config.frame_height"),
    "FRAME_X_RADIUS": Replacement("use `config.frame_x_radius`", ("config",), "config.frame_x_radius"),
    "FRAME_Y_RADIUS": Replacement("use `config.frame_y_radius`", ("config",), "config.frame_y_radius"),
    "TOP": Replacement("use `config.frame_y_radius * UP`", ("config", "UP")),
    "BOTTOM": Replacement("use `config.frame_y_radius * DOWN`", ("config", "DOWN")),
    "LEFT_SIDE": Replacement("use `config.frame_x_radius * LEFT`", ("config", "LEFT")),
    "RIGHT_SIDE": Replacement("use `config.frame_x_radius * RIGHT`", ("config", "RIGHT")),
    "PiCreature": Replacement("draw the character from basic shapes (it is 3Blue1Brown's own code)", ("VGroup",)),
    "Randolph": Replacement("draw the character from basic shapes (it is 3Blue1Brown's own code)", ("VGroup",)),
    "Mortimer": Replacement("draw the character from basic shapes (it is 3Blue1Brown's own code)", ("VGroup",)),
    "SpeechBubble": Replacement("draw the bubble with `RoundedRectangle` and a `Triangle`", ("RoundedRectangle", "Triangle")),
    "ThoughtBubble": Replacement("draw the bubble with `Ellipse` and small `Circle`s", ("Ellipse", "Circle")),
}

REMOVED_METHODS: dict[str, Replacement] = {
    "get_graph": Replacement("use `axes.plot(function)`", ("Axes.plot",), "plot"),
    "get_derivative_graph": Replacement("use `axes.plot_derivative_graph(graph)`", ("Axes.plot_derivative_graph",), "plot_derivative_graph"),
    "get_parametric_curve": Replacement("use `axes.plot_parametric_curve(function)`", ("Axes.plot_parametric_curve",), "plot_parametric_curve"),
    "get_implicit_curve": Replacement("use `axes.plot_implicit_curve(function)`", ("Axes.plot_implicit_curve",), "plot_implicit_curve"),
    "get_line_graph": Replacement("use `axes.plot_line_graph(x_values, y_values)`", ("Axes.plot_line_graph",), "plot_line_graph"),
    "fix_in_frame": Replacement(
        "in a `ThreeDScene`, call `self.add_fixed_in_frame_mobjects(mobject)`", ("ThreeDScene.add_fixed_in_frame_mobjects",)
    ),
    "set_backstroke": Replacement("use `mobject.set_stroke(color, width, background=True)`", ("VMobject.set_stroke",)),
}

REMOVED_MODULES: dict[str, Replacement] = {
    "manimlib": Replacement("it is ManimGL; write `from manim import *` (Manim Community Edition)", ("Scene",)),
}
