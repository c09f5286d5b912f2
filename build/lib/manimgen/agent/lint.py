"""A static check of scene code against the installed manim, in milliseconds and without rendering.

A render costs seconds to minutes and reports one error at a time; most first-round failures of
small models are a wrong name, a keyword argument the class does not take, a method that does
not exist, or ManimGL API. This check finds all of them at once, with line numbers, so a repair
prompt can list them before any render. It only reports what would certainly fail: when the code
is too dynamic to follow (other star imports, exec, setattr with computed names, unknown base
classes), it stays silent. What the code means (imports, classes, the class of each variable, calls)
comes from the scene model (scene_model.py), shared with the API documentation; this module holds
the checks and their messages.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import functools
import inspect
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from manimgen.agent import manim_introspect as api
from manimgen.agent.edits import Edit, node_edit
from manimgen.agent.removed_api import REMOVED_METHODS, REMOVED_MODULES, REMOVED_NAMES, Replacement
from manimgen.agent.scene_model import BUILDER_METHODS, Absent, ClassModel, Instance, SceneModel
from manimgen.manim_import import manim_version
from manimgen.syntax import TOO_DEEP, parse

SCENE_FILE = "scene.py"
CLOSERS = {"(": ")", "[": "]", "{": "}"}
CERTAIN_CUTOFF = 0.85


@dataclass(frozen=True)
class Finding:
    """One certain problem. `column` is 1-based, like an editor's."""

    line: int
    column: int
    code: str
    message: str
    fix: Edit | None = field(default=None, compare=False)
    """The edit that certainly removes the problem, where there is one (see autofix.py)."""

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column} [{self.code}]: {self.message}"


def format_findings(findings: Sequence[Finding]) -> str:
    """The findings as a repair prompt shows them in place of render errors."""
    count = len(findings)
    header = f"A static check against manim {manim_version()} found {count} problem{'s' if count != 1 else ''} (the scene was not rendered):"
    return "\n".join([header, *(f"- {finding}" for finding in findings)])


def lint(code: str) -> list[Finding]:
    """All certain problems of `code` as a Manim CE scene file, sorted by position."""
    syntax = _syntax_findings(code)
    if syntax:
        return syntax
    try:
        tree = parse(code, SCENE_FILE)
    except SyntaxError as error:
        return [Finding(1, 1, "syntax", f"SyntaxError: {error.msg}")]
    checker = _Checker(SceneModel(tree))
    checker.run()
    unique = {(f.line, f.column, f.code, f.message): f for f in checker.findings}
    return sorted(unique.values(), key=lambda f: (f.line, f.column, f.code))


def _syntax_findings(code: str) -> list[Finding]:
    try:
        compile(code, SCENE_FILE, "exec")
    except (RecursionError, MemoryError) as error:
        return [Finding(1, 1, "syntax", f"SyntaxError: {TOO_DEEP.format('compile', type(error).__name__)}")]
    except SyntaxError as error:
        line = error.lineno or 1
        text = (error.text or "").strip()
        where = f" in `{text}`" if text else ""
        message = f"{type(error).__name__}: {error.msg}{where}"
        return [Finding(line, error.offset or 1, "syntax", message, _close_brackets(code, line, error.msg))]
    except ValueError as error:
        return [Finding(1, 1, "syntax", f"ValueError: {error}")]
    return []


def _close_brackets(code: str, line: int, problem: str) -> Edit | None:
    """For "'(' was never closed": the closers that line lacks, at its end (kept only if the file then compiles)."""
    if "was never closed" not in problem:
        return None
    lines = code.splitlines()
    if line > len(lines):
        return None
    text = lines[line - 1]
    stack: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text.strip() + "\n").readline):
            if token.type == tokenize.OP and token.string in CLOSERS:
                stack.append(CLOSERS[token.string])
            elif token.type == tokenize.OP and stack and token.string == stack[-1]:
                stack.pop()
    except (tokenize.TokenError, SyntaxError):
        pass  # the line ends inside the brackets: what was read so far is what counts
    if not stack:
        return None
    closers = "".join(reversed(stack))
    end = len(text.rstrip().encode()) + 1
    return Edit.insert(line, end, closers, f"closed the brackets the line left open (added `{closers}`)")


def certain_match(name: str, candidates: Any) -> str | None:
    """The one existing name `name` certainly meant: the same words in another order (`BLUE_DARK` →
    `DARK_BLUE`), the same letters in another case, or the only close spelling (keeping a
    `get_`/`set_`-style first word). None when there is no such name or more than one."""
    public = sorted({c for c in candidates if not c.startswith("_") and c != name})
    for same in (
        [c for c in public if sorted(c.split("_")) == sorted(name.split("_"))],
        [c for c in public if c.lower() == name.lower()],
    ):
        if len(same) == 1:
            return same[0]
    first = name.split("_")[0] if "_" in name else None
    close = difflib.get_close_matches(name, public, n=2, cutoff=CERTAIN_CUTOFF)
    close = [c for c in close if first is None or c.split("_")[0] == first]
    return close[0] if len(close) == 1 else None


def _suggest(name: str, candidates: Any) -> str:
    public = [c for c in candidates if not c.startswith("_")]
    close = difflib.get_close_matches(name, public, n=3, cutoff=0.75)
    return f" Did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""


@functools.cache
def removed_names() -> frozenset[str]:
    """The names of the removed-API table the installed manim does not have: a release may bring one back
    (`BraceText` is in 0.22, not in 0.19), and then it is no longer a mistake."""
    return frozenset(REMOVED_NAMES) - api.star_names()


def _removed(name: str, table: dict[str, Replacement], what: str) -> str:
    return f"`{name}` is {what}, not Manim Community Edition {manim_version()}: {table[name].advice}."


def _trusted(instance: Instance | None) -> Instance | None:
    """The instance when it is certain enough to report on: every binding a plain constructor call and
    the class's attributes all known."""
    return instance if instance is not None and instance.direct and not instance.cls.open else None


class _Checker:
    """The checks over one file's model: imports, names, then calls with the receivers the model knows."""

    def __init__(self, model: SceneModel) -> None:
        self.model = model
        self.findings: list[Finding] = []

    def report(self, node: ast.AST, code: str, message: str, fix: Edit | None = None) -> None:
        self.findings.append(Finding(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, code, message, fix))

    def run(self) -> None:
        for absent in self.model.absent_imports:
            self._report_absent(absent)
        if not self.model.unresolved_star and not self.model.dynamic_names:
            self._check_names()
        for absent in self.model.absent_attributes:
            self._report_absent(absent)
        for site in self.model.calls:
            self._check_call(site.node, site.target, _trusted(site.instance))

    def _report_absent(self, absent: Absent) -> None:
        """A missing module or manim name; an import inside `try: ... except ImportError` may fail on purpose."""
        if absent.guarded:
            return
        if absent.module is not None:
            self._report_missing_manim_name(absent.node, absent.name, absent.module.__name__, set(dir(absent.module)))
            return
        top = absent.name.split(".")[0]
        if top in REMOVED_MODULES:
            self.report(absent.node, "removed-api", _removed(top, REMOVED_MODULES, "ManimGL's package"))
        else:
            self.report(absent.node, "unknown-module", f"No module named `{absent.name}` is installed.")

    def _report_missing_manim_name(self, node: ast.AST, name: str, module_name: str, candidates: set[str]) -> None:
        if name in REMOVED_NAMES:
            self.report(node, "removed-api", _removed(name, REMOVED_NAMES, "ManimGL or old manim API"))
        else:
            self.report(node, "unknown-name", f"`{module_name}` has no name `{name}`.{_suggest(name, candidates)}")

    def _check_names(self) -> None:
        first_use: dict[str, ast.Name] = {}
        lines: dict[str, list[int]] = {}
        for node in ast.walk(self.model.tree):
            if id(node) in self.model.unevaluated:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not self.model.defines(node.id):
                first = first_use.setdefault(node.id, node)
                if (node.lineno, node.col_offset) < (first.lineno, first.col_offset):
                    first_use[node.id] = node
                lines.setdefault(node.id, []).append(node.lineno)
        for name, node in first_use.items():
            others = sorted(set(lines[name]) - {node.lineno})
            also = f" (also used on line{'s' if len(others) > 1 else ''} {', '.join(map(str, others))})" if others else ""
            if name in removed_names():
                rename = REMOVED_NAMES[name].rename
                fix = node_edit(node, rename, f"`{name}` → `{rename}` (ManimGL or old manim API)") if rename else None
                self.report(node, "removed-api", _removed(name, REMOVED_NAMES, "ManimGL or old manim API") + also, fix)
            elif name in api.star_names():
                fix = Edit.insert(1, 1, "from manim import *\n", f"added `from manim import *` (`{name}` is a manim name)")
                self.report(node, "unknown-name", f"`{name}` is not defined{also}: it is a manim name, so add `from manim import *`.", fix)
            else:
                candidates = self._meanable(name) | set(api.star_names()) | set(dir(builtins))
                meant = certain_match(name, candidates)
                fix = node_edit(node, meant, f"`{name}` → `{meant}` (not defined; the only name it can mean)") if meant else None
                if fix is None and name.islower() and callable(getattr(numpy, name, None)):
                    fix = Edit.insert(1, 1, f"from numpy import {name}\n", f"added `from numpy import {name}` (`{name}` is numpy's)")
                self.report(node, "unknown-name", f"`{name}` is not defined{also}: neither the code nor manim {manim_version()} defines it.{_suggest(name, candidates)}", fix)

    def _meanable(self, name: str) -> set[str]:
        """The code's own names an unknown one may stand for: a capitalised name (an invented class,
        `Parabola`) never means a lower-case variable (`parabola = Parabola(...)` must not become
        `parabola = parabola(...)`)."""
        if name[:1].isupper():
            return {local for local in self.model.local_names if not local[:1].islower()}
        return set(self.model.local_names)

    def _check_call(self, call: ast.Call, target: Any, receiver: Instance | None) -> None:
        if target is not None:
            self._check_keywords(call, target, _call_label(call.func))
        elif receiver is not None and not self.model.dynamic_attributes:
            self._check_method(call, receiver)

    def _check_keywords(self, call: ast.Call, target: Any, label: str) -> None:
        if inspect.isclass(target):
            accepted = api.constructor_keywords(target)
        elif inspect.isfunction(target) or inspect.ismethod(target):
            accepted = api.function_keywords(target)
        else:
            return
        paired = _old_range_pairs(call, accepted)
        if paired:
            names = ", ".join(f"`{axis}_min`/`{axis}_max`" for axis in paired)
            self.report(
                call,
                "bad-kwarg",
                f"`{label}(...)`: {names} are the old manim API; {label} takes "
                + ", ".join(f"`{axis}_range=[min, max]`" for axis in paired) + ".",
                _range_fix(call, paired, label),
            )
        for keyword in call.keywords:
            if keyword.arg is not None and not accepted.accepts(keyword.arg) and keyword.arg[0] + "_" not in {f"{a}_" for a in paired}:
                hint = _suggest(keyword.arg, accepted.names)
                self.report(
                    keyword,
                    "bad-kwarg",
                    f"`{label}(..., {keyword.arg}=...)`: {label} does not accept the keyword argument `{keyword.arg}`.{hint}",
                    _keyword_fix(call, keyword, certain_match(keyword.arg, accepted.names), label),
                )

    def _check_method(self, call: ast.Call, receiver: Instance) -> None:
        func = call.func
        assert isinstance(func, ast.Attribute)
        name = func.attr
        model = receiver.cls
        where = _call_label(func.value)
        kind = f"`{where}` is {_article(model.label)}" + (" animation builder" if receiver.builder else "")
        if model.from_user and model.manim_classes:
            kind += f" (a subclass of {', '.join(cls.__name__ for cls in model.manim_classes)})"
        if receiver.builder and name in BUILDER_METHODS:
            return
        if self.model.has_attribute(model, name):
            if not model.from_user or name not in model.user_attributes:
                method = next((getattr(cls, name) for cls in model.manim_classes if hasattr(cls, name)), None)
                if method is not None and not receiver.builder:
                    self._check_keywords(call, method, f"{where}.{name}")
            return
        owners = {owner for cls in model.manim_classes for owner in api.dynamic_getattr_owners(cls)}
        mobject = api.mobject_class()
        if owners - {mobject}:
            return
        accessor = ""
        if owners and name.startswith(("get_", "set_")):
            arguments = len(call.args) + len(call.keywords)
            fits = (arguments == 0) if name.startswith("get_") else (len(call.args) == 1 and not call.keywords)
            if fits or any(isinstance(a, ast.Starred) for a in call.args):
                return
            takes = "no arguments" if name.startswith("get_") else "exactly one positional argument"
            accessor = f" (an undefined `{name}` only reads or writes the attribute `{name[4:]}` and takes {takes})"
        if name in REMOVED_METHODS:
            message = f"`{where}.{name}(...)`: {kind}; " + _removed(name, REMOVED_METHODS, "ManimGL or old manim API")
            rename = REMOVED_METHODS[name].rename
            self.report(func, "removed-api", message, _method_fix(func, rename, "ManimGL or old manim API") if rename else None)
            return
        candidates = set(model.user_attributes)
        for cls in model.manim_classes:
            candidates |= set(dir(cls))
        hint = _suggest(name, candidates) + _owner_hint(name, model)
        meant = None if accessor else certain_match(name, candidates)
        fix = _method_fix(func, meant, f"{model.label} has no `{name}`; the only name it can mean") if meant else None
        self.report(func, "unknown-method", f"`{where}.{name}(...)`: {kind}, which has no method `{name}`{accessor}.{hint}", fix)


def _owner_hint(name: str, model: ClassModel) -> str:
    """For a scene method that lives on another Scene class (`set_camera_orientation` -> ThreeDScene)."""
    scene = api.manim_module().Scene
    if not any(issubclass(cls, scene) for cls in model.manim_classes):
        return ""
    owners = sorted(
        value.__name__
        for value in (getattr(api.manim_module(), n) for n in api.star_names())
        if inspect.isclass(value) and issubclass(value, scene) and name in vars(value)
    )
    return f" It is a method of {', '.join(f'`{o}`' for o in owners)}: derive the scene from that class." if owners else ""


def _article(word: str) -> str:
    return f"an {word}" if word[:1].upper() in "AEIOU" else f"a {word}"


def _call_label(expr: ast.expr) -> str:
    try:
        text = ast.unparse(expr)
    except (ValueError, TypeError, AttributeError):
        return "object"
    return text if len(text) <= 40 else text[:37] + "..."


def _method_fix(func: ast.Attribute, rename: str, why: str) -> Edit:
    """Rename the attribute of `obj.name`: its name is the last characters of the node's span."""
    end_line, end = func.end_lineno or func.lineno, (func.end_col_offset or 0) + 1
    return Edit(end_line, end - len(func.attr.encode()), end_line, end, rename, f"`.{func.attr}` → `.{rename}` ({why})")


def _keyword_fix(call: ast.Call, keyword: ast.keyword, meant: str | None, label: str) -> Edit:
    """Rename the keyword to the one parameter it certainly meant, else drop it (the call binds without it)."""
    if meant is not None:
        column = keyword.col_offset + 1
        note = f"`{label}(..., {keyword.arg}=...)` → `{meant}=...` (the only parameter it can mean)"
        return Edit(keyword.lineno, column, keyword.lineno, column + len((keyword.arg or "").encode()), meant, note)
    kept = ast.Call(call.func, call.args, [other for other in call.keywords if other is not keyword])
    return node_edit(call, ast.unparse(kept), f"dropped `{keyword.arg}=...` from `{label}(...)`, which takes no such keyword")


def _old_range_pairs(call: ast.Call, accepted: Any) -> list[str]:
    """Axes whose range is given the old way (`x_min=…, x_max=…`) where the callee takes `x_range`."""
    given = {keyword.arg for keyword in call.keywords}
    return [
        axis for axis in "xyz"
        if {f"{axis}_min", f"{axis}_max"} <= given and f"{axis}_range" not in given
        and accepted.accepts(f"{axis}_range") and not accepted.accepts(f"{axis}_min")
    ]  # fmt: skip


def _range_fix(call: ast.Call, axes: list[str], label: str) -> Edit:
    """`x_min=a, x_max=b` → `x_range=[a, b]`, in the place of the first of the two."""
    values = {keyword.arg: keyword.value for keyword in call.keywords}
    merged: list[ast.keyword] = []
    for keyword in call.keywords:
        axis = (keyword.arg or " ")[0]
        if axis in axes and keyword.arg in (f"{axis}_min", f"{axis}_max"):
            if keyword.arg == f"{axis}_min" or f"{axis}_min" not in values:
                pair = ast.List([values[f"{axis}_min"], values[f"{axis}_max"]], ast.Load())
                merged.append(ast.keyword(f"{axis}_range", pair))
            continue
        merged.append(keyword)
    merged = list({keyword.arg or id(keyword): keyword for keyword in merged}.values())
    kept = ast.Call(call.func, call.args, merged)
    names = ", ".join(f"`{axis}_min`/`{axis}_max` → `{axis}_range`" for axis in axes)
    return node_edit(call, ast.unparse(kept), f"{names} in `{label}(...)` (the old manim API)")
