"""API documentation for the manim names a piece of scene code calls (the RITL-DOC feedback).

Small models invent classes and methods (`ShowCreationThenFadeAway2`, `circle.set_fill_color`).
Showing them the real signature and docstring of every name they call, and saying plainly which
names do not exist, lets them repair the code before a render even fails. Nothing here runs the
code: calls are read from its syntax tree and looked up with `inspect` in the installed manim.

Resolution comes from the scene model (scene_model.py), the one the static check reads too, so both
name the same class: `Name(...)` is looked up in `manim` under the name manim gives it (also through
aliases: `C(...)` after `from manim import Circle as C`, `m.Circle(...)` after `import manim as m`);
`self.m(...)` on the scene's manim base class (Scene unless the scene inherits ThreeDScene,
MovingCameraScene, ..., directly or through the code's own classes); `var.m(...)` on the class the
variable holds (bound by `var = Cls(...)`, `var = Cls(...).method(...)`, `a, b = Cls(...), ...`;
also through `var.animate.m(...)` and `Cls(...).m(...)`); `Mod.m(...)` when `Mod` is itself a manim
name. Receivers whose class cannot be known from the text (loop variables, results of method calls,
a variable bound to different classes) are skipped rather than guessed. Builtins, names and methods
the code defines or imports from elsewhere, and a stop-list of ubiquitous calls are dropped.

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

from manimgen.agent.scene_model import BUILDER_METHODS, CallSite, Instance, SceneModel
from manimgen.manim_import import manim, manim_version

STOP_NAMES = frozenset(
    {"play", "wait", "add", "remove", "print", "range", "np", "numpy", "math", "random", "super", "construct", "setup"}
)
BUILTIN_NAMES = frozenset(dir(builtins))
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


def _owner(instance: Instance, name: str, model: SceneModel) -> str | None:
    """The manim class whose `name` a call on `instance` documents: the first of the instance's manim
    classes that has it, else the first (where it is missing). None for the code's own methods and
    attributes, and for the builder's own methods."""
    classes = instance.cls.manim_classes
    if not classes or name in instance.cls.user_attributes or (instance.builder and name in BUILDER_METHODS):
        return None
    having = [cls for cls in classes if hasattr(cls, name)]
    if not having and model.has_attribute(instance.cls, name):
        return None
    return (having or classes)[0].__name__


def _target(site: CallSite, model: SceneModel) -> CallTarget | None:
    """What one call documents: manim's name for what the callee names, else the method on the receiver's
    manim class, else on a receiver that is a bare name (looked up later only if manim has that name)."""
    if site.target_name is not None:
        return CallTarget(site.target_name)
    if site.name is None:
        return None
    if site.receiver is None:
        return CallTarget(site.name)
    if site.instance is not None:
        owner = _owner(site.instance, site.name, model)
        return CallTarget(site.name, owner) if owner is not None else None
    manim_owner = model.manim_name(site.receiver)
    if manim_owner is not None:
        return CallTarget(site.name, manim_owner)
    if isinstance(site.receiver, ast.Name):
        return CallTarget(site.name, site.receiver.id, owner_known=False)
    return None


def _targets(model: SceneModel) -> list[CallTarget]:
    return [target for site in model.calls if (target := _target(site, model)) is not None]


def call_targets(code: str) -> list[CallTarget]:
    """Every call in `code` with its receiver resolved, in source order; raises SyntaxError."""
    return _targets(SceneModel.parse(code))


def _own_names(model: SceneModel) -> set[str]:
    """Names the code binds itself; a name imported from a manim package (ManimGL's too) is manim's."""
    return model.local_names - {name for name, module in model.imported.items() if module.startswith("manim")}


def called_names(code: str) -> list[CallTarget]:
    """The calls worth documenting: distinct, first-use order, builtins, the code's own names and stop-list dropped."""
    model = SceneModel.parse(code)
    skipped = BUILTIN_NAMES | STOP_NAMES | _own_names(model)
    seen: set[str] = set()
    kept = []
    for target in _targets(model):
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
