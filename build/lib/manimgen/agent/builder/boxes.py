"""Numbered boxes (swapped into order, searched, a stack or a queue filled and emptied, a linked list), trees,
matrices and bar charts."""

from __future__ import annotations

import math

from manimgen.agent.builder.common import manim_colour, number_text, only_kinds, tex_literal, tick_step
from manimgen.agent.formulas import latex
from manimgen.checks import Requirement


CONTAINER_LAYOUT = {
    "stack": ("UP", "0.1", "DOWN"),
    "queue": ("RIGHT", "0.15", "LEFT"),
    "linked list": ("RIGHT", "0.9", "UP"),
}
"""How each container stands (the way cells pile, the gap, where a new cell comes from): a stack bottom up, a queue
joined at the back, a linked list with arrows in its gaps."""


def boxes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A row of numbered boxes (a stack, a queue or a linked list when the sentence names one), filled one after
    another when asked, and reordered by swaps into the order asked."""
    order = next((item for item in items if item.kind == "order"), None)
    sequence = next((item for item in items if item.kind == "sequence" and item.items), None)
    texts = [item.text for item in items if item.kind == "text" and item.text]
    picks = [item for item in items if item.kind == "highlight"]
    taken = [item.what for item in items if item.kind == "disappear"]
    listed = texts or (sequence.items if sequence else []) or (order.items if order and picks else [])  # "the even numbers from 1 to 10"
    container = next((item.what for item in items if item.kind == "object" and item.what in CONTAINER_LAYOUT), None)
    parts = {container, "node", "box", "arrow"} if container else {"box"}
    if not listed or not only_kinds(items, {"text", "order", "sequence", "object", "highlight", "disappear"}) or formulas:
        return None
    if taken and (container not in ("stack", "queue") or any(value not in listed for value in taken)):
        return None
    if any(item.kind == "object" and item.what not in parts for item in items) or container and order:
        return None
    if any(value not in listed for item in picks for value in item.items):
        return None
    direction, gap, arrival = CONTAINER_LAYOUT.get(container or "", ("RIGHT", "0.25", "DOWN"))
    body = [
        f"values = {listed!r}",
        f"cells = VGroup(*[VGroup(Square(side_length=1.1, color=BLUE), Text(value, font_size=40)) for value in values]).arrange({direction}, buff={gap})",
        "cells.scale_to_fit_width(min(cells.width, 12)).scale_to_fit_height(min(cells.height, 7))",
    ]
    if container == "linked list":
        body.append("links = VGroup(*[Arrow(left.get_right(), right.get_left(), buff=0.05) for left, right in zip(cells, cells[1:])])")
    if sequence is not None or container in ("stack", "queue"):
        body += ["for cell in cells:", f"    self.play(FadeIn(cell, shift={arrival} * 0.6))"]
    else:
        body.append("self.play(FadeIn(cells))")
    if container == "linked list":
        body.append("self.play(LaggedStart(*[GrowArrow(link) for link in links], lag_ratio=0.3))")
    if order is not None and sorted(order.items) == sorted(listed) and order.items != listed:
        body += ["slots = [cell.get_center() for cell in cells]", "place = list(range(len(cells)))"]
        swaps = _adjacent_swaps if "swapping neighbours" in order.phrase else _swaps
        for first, second in swaps(listed, order.items):
            body += [
                f"a, b = place[{first}], place[{second}]",
                "self.play(cells[a][0].animate.set_color(YELLOW), cells[b][0].animate.set_color(YELLOW), run_time=0.4)",
                f"self.play(cells[a].animate.move_to(slots[{second}]), cells[b].animate.move_to(slots[{first}]), path_arc=PI / 2)",
                "self.play(cells[a][0].animate.set_color(BLUE), cells[b][0].animate.set_color(BLUE), run_time=0.3)",
                f"place[{first}], place[{second}] = b, a",
            ]
    for pick in picks:
        body += _picked(pick, listed)
    for value in taken:
        body += [f"self.play(FadeOut(cells[{listed.index(value or '')}], shift={'UP' if container == 'stack' else 'LEFT'} * 0.8))"]
    return [*body, "self.wait(1)"]


def _picked(pick: Requirement, listed: list[str]) -> list[str]:
    """A search's probes lit one after another (the one it finds green), or the values asked for lit together."""
    places = [listed.index(value) for value in pick.items]
    if pick.text is None:
        colour = manim_colour(pick.colour, "YELLOW")
        return [f"self.play({', '.join(f'cells[{place}][0].animate.set_fill({colour}, opacity=0.7)' for place in places)})"]
    body = []
    for place, value in zip(places, pick.items):
        body.append(f"self.play(cells[{place}][0].animate.set_fill(YELLOW, opacity=0.6), run_time=0.6)")
        found = value == pick.text
        body.append(f"self.play(cells[{place}][0].animate.set_fill({'GREEN' if found else 'GREY'}, opacity={0.8 if found else 0.4}), run_time=0.6)")
    return body


def _swaps(start: list[str], goal: list[str]) -> list[tuple[int, int]]:
    """Swaps of positions that turn `start` into `goal` (selection order: each place filled in turn)."""
    current, swaps = list(start), []
    for position, wanted in enumerate(goal):
        found = current.index(wanted, position)
        if found != position:
            current[position], current[found] = current[found], current[position]
            swaps.append((position, found))
    return swaps


def _adjacent_swaps(start: list[str], goal: list[str]) -> list[tuple[int, int]]:
    """Swaps of neighbours that turn `start` into `goal` (bubble sort's, one pair at a time)."""
    current, swaps = list(start), []
    rank = {value: goal.index(value) for value in goal}
    for end in range(len(current) - 1, 0, -1):
        for position in range(end):
            if rank[current[position]] > rank[current[position + 1]]:
                current[position], current[position + 1] = current[position + 1], current[position]
                swaps.append((position, position + 1))
    return swaps


def tree(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A root above its children, each a labelled circle, joined by lines."""
    shape = next((item for item in items if item.kind == "object" and item.what == "node" and len(item.items) >= 2), None)
    joins = [item for item in items if item.kind == "object" and item.what == "line" and item.other == "tree"]
    if shape is None or formulas or any(item.kind != "text" and item is not shape and item not in joins for item in items):
        return None
    if any((item.text or "") not in shape.items for item in items if item.kind == "text"):
        return None
    root, *children = shape.items
    body = [
        f"root = VGroup(Circle(radius=0.45, color=BLUE), MathTex({tex_literal(latex(root))})).move_to(UP * 2)",
        f"children = VGroup(*[VGroup(Circle(radius=0.45, color=GREEN), MathTex(name)) for name in {[latex(child) for child in children]!r}])",
        "children.arrange(RIGHT, buff=1.2).move_to(DOWN * 1.2)",
        "edges = VGroup(*[Line(root[0].get_bottom(), child[0].get_top()) for child in children])",
        "self.play(FadeIn(root))",
        "self.play(LaggedStart(*[Create(edge) for edge in edges], lag_ratio=0.3), LaggedStart(*[FadeIn(child) for child in children], lag_ratio=0.3))",
    ]
    return [*body, "self.wait(1)"]


def matrix(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Each matrix the sentence writes out, side by side, with the name it is given below."""
    written = [item for item in items if item.kind == "object" and item.what == "matrix" and item.text]
    names = [item.text for item in items if item.kind == "text" and item.text]
    if not written or formulas or len(written) + len(names) != len(items) or len(names) > 1:
        return None
    body = [f"matrix{index} = Matrix({item.text})" for index, item in enumerate(written)]
    body.append(f"matrices = VGroup({', '.join(f'matrix{index}' for index in range(len(written)))}).arrange(RIGHT, buff=1)")
    body += ["matrices.scale_to_fit_width(min(matrices.width, 12))", "self.play(Write(matrices))"]
    determinant = next((item for item in items if item.kind == "text" and item.what == "determinant"), None)
    if determinant is not None:
        body += [f"name = MathTex(r'\\det = {latex(determinant.text or '')}').next_to(matrices, RIGHT, buff=0.6)", "self.play(Write(name))"]
    elif names:
        body += [f"name = Text({names[0]!r}, font_size=40).next_to(matrices, DOWN, buff=0.5)", "self.play(Write(name))"]
    return [*body, "self.wait(1)"]


def bar_chart(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Bars of the heights the sentence lists, each with its value on top."""
    bars = [item for item in items if item.kind == "object" and item.what == "bar"]
    values = [number_text(item.text) for item in items if item.kind == "text"]
    if len(bars) != 1 or formulas or len(values) < 2 or None in values or not only_kinds(items, {"object", "text"}) or len(items) != 1 + len(values):
        return None
    heights = [int(value) if value.is_integer() else value for value in values if value is not None]
    if min(heights) < 0:
        return None
    top = tick_step(0, max(heights)) * math.ceil(max(heights) * 1.15 / tick_step(0, max(heights)))
    body = [
        f"chart = BarChart(values={heights!r}, y_range=[0, {top:g}, {tick_step(0, top):g}], x_length=9, y_length=5.5,",
        f"                 bar_colors=[{manim_colour(bars[0].colour, 'BLUE')}, GREEN, YELLOW, RED, PURPLE, ORANGE])",
        "values = chart.get_bar_labels(font_size=36)",
        "self.play(Create(chart), run_time=2)",
        "self.play(Write(values))",
    ]
    return [*body, "self.wait(1)"]
