"""API documentation for the manim names a piece of scene code calls (the RITL-DOC feedback).

Small models invent classes and methods (`ShowCreationThenFadeAway2`, `circle.set_fill_color`).
Showing them the real signature and docstring of every name they call, and saying plainly which
names do not exist, lets them repair the code before a render even fails. Nothing here runs the
code: calls are read from its syntax tree and looked up with `inspect` in the installed manim.

Resolution: `Name(...)` is looked up in `manim`; `self.m(...)` on the scene's manim base class
(Scene unless the scene inherits ThreeDScene, MovingCameraScene, ...); `var.m(...)` on the class
`var` was built from by `var = Cls(...)` (also through `var.animate.m(...)` and `Cls(...).m(...)`);
`Mod.m(...)` when `Mod` is itself a manim name. Receivers whose type cannot be known from the text
(loop variables, results of method calls) are skipped rather than guessed. Builtins, names the
file defines or imports from elsewhere, and a stop-list of ubiquitous calls are dropped.

Docstrings are cut at their "Examples" section (and at any `.. manim::` directive): those examples
are the benchmark's reference scenes and must never reach a model under test.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from manimgen.manim_import import manim, manim_version

STOP_NAMES = frozenset(
    {"play", "wait", "add", "remove", "print", "range", "np", "numpy", "math", "random", "super", "construct", "setup"}
)
BUILTIN_NAMES = frozenset(dir(builtins))
SCENE_BASE = "Scene"
MAX_SIGNATURE_CHARS = 400
MAX_DOC_CHARS = 700
MAX_TEXT_CHARS = 6000
MAX_UNRESOLVED_LISTED = 20

_EXAMPLES_HEADING = re.compile(r"^\s*Examples?\s*:?\s*$", re.IGNORECASE)
_MANIM_DIRECTIVE = re.compile(r"^\s*\.\.\s+manim::")
_RST_ROLE = re.compile(r":\w+:`~?\.?([^`]+)`")
_UNDERLINE = re.compile(r"^\s*[-=]{3,}\s*$\n?", re.MULTILINE)


@dataclass(frozen=True)
class CallTarget:
    """One call site: `owner.name(...)`, or `name(...)` when owner is None.

    `owner_known` is False for a receiver that is only a bare name in the code (`thing.m()`): such an
    owner is looked up only if manim has it, because it may as well be a loop variable.
    """

    name: str
    owner: str | None = None
    owner_known: bool = True

    @property
    def qualified(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name


@dataclass
class ApiInfo:
    """The `<API_INFO>` text and which names were found in manim and which were not."""

    text: str
    resolved: list[str]
    unresolved: list[str]


def _constructor(node: ast.expr) -> str | None:
    """The class a value is built from: `Cls(...)` or `Cls(...).method(...)...` (manim methods return self)."""
    while isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id if func.id[:1].isupper() else None
        if not isinstance(func, ast.Attribute):
            return None
        node = func.value
    return None


class _CallCollector(ast.NodeVisitor):
    """Walks a module in source order, tracking `var = Cls(...)` types and the enclosing scene's base."""

    def __init__(self) -> None:
        self.targets: list[CallTarget] = []
        self.types: dict[str, str] = {}
        self.defined: set[str] = set()
        self.foreign: set[str] = set()
        self.manim_bases: list[str] = [SCENE_BASE]

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not alias.name.startswith("manim"):
                self.foreign.add((alias.asname or alias.name).split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not (node.module or "").startswith("manim"):
            self.foreign.update(alias.asname or alias.name for alias in node.names)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.defined.add(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.defined.add(node.name)
        bases = [base.id for base in node.bases if isinstance(base, ast.Name) and base.id not in self.defined]
        self.manim_bases.append(bases[0] if bases else self.manim_bases[-1])
        self.generic_visit(node)
        self.manim_bases.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self._bind(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self._bind(node.target, node.value)

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            cls = _constructor(value)
            if cls is not None:
                self.types[target.id] = cls
            else:
                self.types.pop(target.id, None)
                if isinstance(value, ast.Lambda):
                    self.defined.add(target.id)
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for element, element_value in zip(target.elts, value.elts):
                self._bind(element, element_value)

    def visit_For(self, node: ast.For) -> None:
        for name in ast.walk(node.target):
            if isinstance(name, ast.Name):
                self.types.pop(name.id, None)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        target = self._target(node.func)
        if target is not None:
            self.targets.append(target)
        self.generic_visit(node)

    def _target(self, func: ast.expr) -> CallTarget | None:
        if isinstance(func, ast.Name):
            return CallTarget(func.id)
        if not isinstance(func, ast.Attribute):
            return None
        owner = self._receiver(func.value)
        return CallTarget(func.attr, owner[0], owner[1]) if owner else None

    def _receiver(self, node: ast.expr) -> tuple[str, bool] | None:
        """(class name, known) of what a method is called on; None when it cannot be told from the text."""
        if isinstance(node, ast.Attribute) and node.attr == "animate":
            return self._receiver(node.value)
        if isinstance(node, ast.Name):
            if node.id == "self":
                return self.manim_bases[-1], True
            if node.id in self.types:
                return self.types[node.id], True
            return node.id, False
        if isinstance(node, ast.Call):
            cls = _constructor(node)
            return (cls, True) if cls is not None and isinstance(node.func, ast.Name) else None
        return None


def _collect(code: str) -> _CallCollector:
    collector = _CallCollector()
    collector.visit(ast.parse(code))
    return collector


def call_targets(code: str) -> list[CallTarget]:
    """Every call in `code` with its receiver resolved, in source order; raises SyntaxError."""
    return _collect(code).targets


def called_names(code: str) -> list[CallTarget]:
    """The calls worth documenting: distinct, first-use order, builtins, own and foreign names and stop-list dropped."""
    collector = _collect(code)
    skipped = BUILTIN_NAMES | STOP_NAMES | collector.defined | collector.foreign
    seen: set[str] = set()
    kept = []
    for target in collector.targets:
        if target.name.startswith("__") or target.name in STOP_NAMES:
            continue
        if target.owner is None and target.name in skipped:
            continue
        if target.owner is not None and target.owner in skipped:
            continue
        if target.qualified not in seen:
            seen.add(target.qualified)
            kept.append(target)
    return kept


def _cut_examples(doc: str) -> str:
    """The docstring up to its examples (they are the benchmark's answers), in plain compact text."""
    lines = doc.splitlines()
    for index, line in enumerate(lines):
        if _MANIM_DIRECTIVE.match(line) or _EXAMPLES_HEADING.match(line):
            lines = lines[:index]
            break
    text = _UNDERLINE.sub("", _RST_ROLE.sub(r"\1", "\n".join(lines))).replace("``", "`")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return (cut[: cut.rfind("\n")] if "\n" in cut else cut).rstrip() + " …"


def _signature(obj: Any) -> str:
    try:
        return _shorten(str(inspect.signature(obj)), MAX_SIGNATURE_CHARS)
    except (TypeError, ValueError):
        return "(…)"


def _entry(title: str, obj: Any) -> str:
    if not callable(obj):
        return f"{title}: a {type(obj).__name__}, not callable"
    owner = title.rpartition(".")[0]
    definer = getattr(obj, "__qualname__", "").rpartition(".")[0]
    defined_on = f"   (defined on {definer})" if owner and definer and definer != owner else ""
    doc = _shorten(_cut_examples(inspect.getdoc(obj) or ""), MAX_DOC_CHARS)
    body = "\n".join(f"    {line}" if line else "" for line in doc.splitlines())
    return f"{title}{_signature(obj)}{defined_on}\n{body}".rstrip()


_MISSING = object()


@cache
def describe(qualified: str) -> str | None:
    """Signature and docstring of `Name` or `Owner.method` in manim; None when manim has no such name."""
    owner, _, name = qualified.rpartition(".")
    holder: Any = manim()
    if owner:
        holder = getattr(holder, owner, _MISSING)
        if holder is _MISSING:
            return None
    obj = getattr(holder, name, _MISSING)
    return None if obj is _MISSING else _entry(qualified, obj)


def _is_manim_name(name: str) -> bool:
    return hasattr(manim(), name)


def api_info(code: str) -> ApiInfo:
    """The `<API_INFO>` text for `code`: each called manim name documented, unknown names called out."""
    try:
        targets = called_names(code)
    except SyntaxError as error:
        return ApiInfo(f"The code could not be parsed ({error.msg}, line {error.lineno}), so no API could be looked up.", [], [])
    called_directly = {target.name for target in targets if target.owner is None}
    entries: list[str] = []
    resolved: list[str] = []
    unresolved: list[str] = []
    for target in targets:
        owner = target.owner or ""
        owner_exists = not owner or _is_manim_name(owner)
        text = describe(target.qualified) if owner_exists else None
        if text is not None:
            resolved.append(target.qualified)
            entries.append(text)
        elif owner_exists:
            unresolved.append(target.qualified)
        elif not target.owner_known and not owner[:1].isupper():
            continue  # a bare lower-case receiver manim lacks is a variable of the scene's own
        elif owner not in called_directly and owner not in unresolved:
            unresolved.append(owner)  # e.g. a made-up scene base; a made-up Cls(...) is reported as itself
    return ApiInfo(_compose(entries, unresolved), resolved, unresolved)


def _compose(entries: list[str], unresolved: list[str]) -> str:
    """The names manim does not have first (the likeliest errors), then entries up to the size bound."""
    parts: list[str] = []
    if unresolved:
        listed = ", ".join(unresolved[:MAX_UNRESOLVED_LISTED])
        more = f" and {len(unresolved) - MAX_UNRESOLVED_LISTED} more" if len(unresolved) > MAX_UNRESOLVED_LISTED else ""
        version = manim_version()
        parts.append(
            f"NOT FOUND in manim {version} (probably hallucinated: use an existing class, function or method "
            f"instead): {listed}{more}"
        )
    used = 0
    for shown, entry in enumerate(entries):
        if used + len(entry) > MAX_TEXT_CHARS:
            parts.append(f"({len(entries) - shown} more names not shown)")
            break
        parts.append(entry)
        used += len(entry)
    if not parts:
        return "The code calls no manim names that need documentation."
    return "\n\n".join(parts)
