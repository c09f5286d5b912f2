"""Formulas written one after another down the screen, or one becoming another."""

from __future__ import annotations

import re

from manimgen.agent.builder.common import formula_tex, manim_colour, only_kinds, tex_literal
from manimgen.agent.formulas import latex
from manimgen.checks import Requirement


def formula_steps(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Formulas one after another down the screen (a value the sentence names is shown inside one), or one becoming another."""
    inside = [item for item in items if item.kind == "text" and item.text and any(item.text in (formula.text or "") for formula in formulas)]
    if not formulas or not only_kinds([item for item in items if item not in inside], {"sequence"}):
        return None
    turned = [item for item in formulas if item.other]
    if turned:
        first = turned[0]
        return [
            f"before = MathTex({tex_literal(formula_tex(first))}).scale(1.3)",
            f"after = MathTex({tex_literal(latex(first.other or ''))}).scale(1.3)",
            "self.play(Write(before))",
            "self.wait(0.5)",
            "self.play(TransformMatchingTex(before, after), run_time=2)",
            "self.wait(1)",
        ]
    shown = list({formula_tex(item): item for item in formulas}.items())
    written = [f"MathTex({tex_literal(tex)}, color={manim_colour(item.colour, 'WHITE')})" for tex, item in shown]
    body = [f"steps = VGroup({', '.join(written)}).arrange(DOWN, buff=0.5)"]
    if len(shown) == 1:
        body.append(f"steps.scale({2.2 if re.search(r', (?:big|large|huge)', shown[0][1].phrase) else 1.6})")
    body.append("steps.scale_to_fit_height(min(steps.height, 6)).scale_to_fit_width(min(steps.width, 12))")
    body += ["for step in steps:", "    self.play(Write(step))", "    self.wait(0.3)"]
    return [*body, "self.wait(1)"]
