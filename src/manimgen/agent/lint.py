"""A static check of scene code against the installed manim, in milliseconds and without rendering.

A render costs seconds to minutes and reports one error at a time; most first-round failures of
small models are a wrong name, a keyword argument the class does not take, a method that does
not exist, or ManimGL API. This check finds all of them at once, with line numbers, so a repair
prompt can list them before any render. It only reports what would certainly fail: when the code
is too dynamic to follow (other star imports, exec, setattr with computed names, unknown base
classes), it stays silent.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import importlib
import importlib.util
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from manimgen.agent import manim_introspect as api
from manimgen.agent.removed_api import REMOVED_METHODS, REMOVED_MODULES, REMOVED_NAMES, Replacement
from manimgen.manim_import import manim_version

SCENE_FILE = "scene.py"
MODULE_DUNDERS = frozenset({"__file__", "__builtins__", "__cached__", "__annotations__", "__qualname__", "__module__"})
DYNAMIC_NAME_CALLS = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__"})
BUILDER_METHODS = frozenset({"build", "set_anim_args"})
MANIM = "manim"
IMPORT_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True)
class Finding:
    """One certain problem. `column` is 1-based, like an editor's."""

    line: int
    column: int
    code: str
    message: str

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
    checker = _Checker(ast.parse(code, SCENE_FILE))
    checker.run()
    unique = {(f.line, f.column, f.code, f.message): f for f in checker.findings}
    return sorted(unique.values(), key=lambda f: (f.line, f.column, f.code))


def _syntax_findings(code: str) -> list[Finding]:
    try:
        compile(code, SCENE_FILE, "exec")
    except SyntaxError as error:
        line = error.lineno or 1
        text = (error.text or "").strip()
        where = f" in `{text}`" if text else ""
        return [Finding(line, error.offset or 1, "syntax", f"{type(error).__name__}: {error.msg}{where}")]
    except ValueError as error:
        return [Finding(1, 1, "syntax", f"ValueError: {error}")]
    return []


def _suggest(name: str, candidates: Any) -> str:
    public = [c for c in candidates if not c.startswith("_")]
    close = difflib.get_close_matches(name, public, n=3, cutoff=0.75)
    return f" Did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""


def _removed(name: str, table: dict[str, Replacement], what: str) -> str:
    return f"`{name}` is {what}, not Manim Community Edition {manim_version()}: {table[name].advice}."


@dataclass
class _ClassModel:
    """What is known about instances of a class: manim classes it derives from and attributes it adds."""

    label: str
    manim_classes: tuple[type, ...]
    user_attributes: frozenset[str] = frozenset()
    from_user: bool = False


@dataclass(frozen=True)
class _Builder:
    """`mobject.animate` (or a chain on it): methods are the mobject's."""

    model: _ClassModel


Inferred = _ClassModel | _Builder | None
_POISONED = object()


@dataclass
class _Unit:
    """A top-level function (with everything nested in it) or the module level: the scope of a variable's type."""

    root: ast.AST
    nodes: list[ast.AST] = field(default_factory=list)
    types: dict[str, Any] = field(default_factory=dict)
    self_name: str | None = None
    self_model: _ClassModel | None = None


class _Checker:
    """One pass over one file: imports, names, then calls with the types it can follow."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.findings: list[Finding] = []
        self._quiet = False
        self.manim_star = False
        self.unresolved_star = False
        self.manim_imports: dict[str, Any] = {}
        self.module_aliases: dict[str, ModuleType] = {}
        self.local_names: set[str] = set()
        self.attribute_stores: set[str] = set()
        self.dynamic_names = False
        self.dynamic_attributes = False
        self.user_classes: dict[str, ast.ClassDef] = {
            node.name: node for node in tree.body if isinstance(node, ast.ClassDef)
        }
        self._models: dict[str, _ClassModel | None] = {}

    def report(self, node: ast.AST, code: str, message: str) -> None:
        if self._quiet:
            return
        self.findings.append(Finding(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, code, message))

    def run(self) -> None:
        self._check_imports()
        self._collect_bindings()
        if not self.unresolved_star and not self.dynamic_names:
            self._check_names()
        self._check_module_attributes()
        units = self._units()
        for unit in units.values():
            self._type_unit(unit)
        module_unit = units[id(self.tree)]
        for unit in units.values():
            for node in unit.nodes:
                if isinstance(node, ast.Call):
                    self._check_call(node, unit, module_unit)

    # imports ---------------------------------------------------------------------------------

    def _check_imports(self) -> None:
        """Check every import; one inside `try: ... except ImportError` may fail on purpose, so it stays quiet."""
        guarded = _guarded_imports(self.tree)
        for node in ast.walk(self.tree):
            self._quiet = id(node) in guarded
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._check_import(node, alias)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                self._check_import_from(node)
            elif isinstance(node, ast.ImportFrom):
                self.unresolved_star |= any(alias.name == "*" for alias in node.names)
        self._quiet = False

    def _missing_module(self, node: ast.AST, module: str) -> bool:
        top = module.split(".")[0]
        if top in REMOVED_MODULES:
            self.report(node, "removed-api", _removed(top, REMOVED_MODULES, "ManimGL's package"))
            return True
        found = _module_exists(module)
        if not found:
            self.report(node, "unknown-module", f"No module named `{module}` is installed.")
        return not found

    def _check_import(self, node: ast.Import, alias: ast.alias) -> None:
        if self._missing_module(node, alias.name):
            return
        if alias.name == MANIM or (alias.name.startswith(MANIM + ".") and alias.asname is None):
            self.module_aliases[alias.asname or MANIM] = api.manim_module()

    def _check_import_from(self, node: ast.ImportFrom) -> None:
        module_name = node.module or ""
        is_manim = module_name == MANIM or module_name.startswith(MANIM + ".")
        stars = any(alias.name == "*" for alias in node.names)
        if self._missing_module(node, module_name):
            is_manimgl = module_name.split(".")[0] in REMOVED_MODULES
            self.manim_star |= stars and is_manimgl
            self.unresolved_star |= stars and not is_manimgl
            return
        if not is_manim:
            self.unresolved_star |= stars
            return
        module = importlib.import_module(module_name)
        for alias in node.names:
            if alias.name == "*":
                if module_name == MANIM:
                    self.manim_star = True
                else:
                    self.unresolved_star = True
                continue
            if hasattr(module, alias.name):
                self.manim_imports[alias.asname or alias.name] = getattr(module, alias.name)
            elif not _module_exists(f"{module_name}.{alias.name}"):
                self._report_missing_manim_name(node, alias.name, module_name, set(dir(module)))

    def _report_missing_manim_name(self, node: ast.AST, name: str, module_name: str, candidates: set[str]) -> None:
        if name in REMOVED_NAMES:
            self.report(node, "removed-api", _removed(name, REMOVED_NAMES, "ManimGL or old manim API"))
        else:
            self.report(node, "unknown-name", f"`{module_name}` has no name `{name}`.{_suggest(name, candidates)}")

    # names -----------------------------------------------------------------------------------

    def _collect_bindings(self) -> None:
        manim_aliases = set(self.manim_imports) | set(self.module_aliases)
        for node in ast.walk(self.tree):
            names: list[str] = []
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.append(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, ast.arg):
                names.append(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = [(alias.asname or alias.name.split(".")[0]) for alias in node.names if alias.name != "*"]
                module = node.module if isinstance(node, ast.ImportFrom) else None
                from_manim = (module or "").split(".")[0] == MANIM if isinstance(node, ast.ImportFrom) else False
                names += [name for name in bound if not ((from_manim or module is None) and name in manim_aliases)]
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                names.append(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.append(node.rest)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names += node.names
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                self.attribute_stores.add(node.attr)
            elif isinstance(node, ast.Call):
                self._note_dynamic_call(node)
            self.local_names.update(names)

    def _note_dynamic_call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in DYNAMIC_NAME_CALLS:
            self.dynamic_names = True
        if isinstance(func, ast.Name) and func.id == "setattr":
            if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant):
                self.dynamic_attributes = True
            else:
                self.attribute_stores.add(str(node.args[1].value))
        if isinstance(func, ast.Attribute) and func.attr == "set":
            if any(keyword.arg is None for keyword in node.keywords):
                self.dynamic_attributes = True
            self.attribute_stores.update(keyword.arg for keyword in node.keywords if keyword.arg)

    def _known_name(self, name: str) -> bool:
        return (
            name in self.local_names
            or name in self.manim_imports
            or name in self.module_aliases
            or (self.manim_star and name in api.star_names())
            or hasattr(builtins, name)
            or name in MODULE_DUNDERS
        )

    def _check_names(self) -> None:
        first_use: dict[str, ast.Name] = {}
        lines: dict[str, list[int]] = {}
        annotations = _annotation_nodes(self.tree)
        for node in ast.walk(self.tree):
            if id(node) in annotations:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not self._known_name(node.id):
                first = first_use.setdefault(node.id, node)
                if (node.lineno, node.col_offset) < (first.lineno, first.col_offset):
                    first_use[node.id] = node
                lines.setdefault(node.id, []).append(node.lineno)
        for name, node in first_use.items():
            others = sorted(set(lines[name]) - {node.lineno})
            also = f" (also used on line{'s' if len(others) > 1 else ''} {', '.join(map(str, others))})" if others else ""
            if name in REMOVED_NAMES:
                self.report(node, "removed-api", _removed(name, REMOVED_NAMES, "ManimGL or old manim API") + also)
            elif name in api.star_names():
                self.report(node, "unknown-name", f"`{name}` is not defined{also}: it is a manim name, so add `from manim import *`.")
            else:
                candidates = self.local_names | set(api.star_names()) | set(dir(builtins))
                self.report(node, "unknown-name", f"`{name}` is not defined{also}: neither the code nor manim {manim_version()} defines it.{_suggest(name, candidates)}")

    def _check_module_attributes(self) -> None:
        """`manim.X` through `import manim`: X must exist."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
                module = self._module_alias(node.value.id)
                if module is not None and not hasattr(module, node.attr) and node.attr not in self.attribute_stores:
                    if not _module_exists(f"{module.__name__}.{node.attr}"):
                        self._report_missing_manim_name(node, node.attr, module.__name__, set(dir(module)))

    def _module_alias(self, name: str) -> ModuleType | None:
        if name in self.module_aliases and name not in self.local_names:
            return self.module_aliases[name]
        return None

    def resolve(self, expr: ast.expr) -> Any:
        """The manim object an expression names (`Circle`, `manim.Circle`), or None."""
        if isinstance(expr, ast.Name):
            if expr.id in self.local_names:
                return None
            if expr.id in self.manim_imports:
                return self.manim_imports[expr.id]
            if self.manim_star and expr.id in api.star_names():
                return getattr(api.manim_module(), expr.id, None)
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            module = self._module_alias(expr.value.id)
            return getattr(module, expr.attr, None) if module is not None else None
        return None

    # classes and variables -------------------------------------------------------------------

    def class_model(self, expr: ast.expr) -> _ClassModel | None:
        """The model of the class a constructor call names: a manim class or a class defined in the code."""
        target = self.resolve(expr)
        if inspect.isclass(target):
            return _ClassModel(target.__name__, (target,))
        if isinstance(expr, ast.Name) and expr.id in self.user_classes:
            return self._user_model(expr.id)
        return None

    def constructed(self, expr: ast.expr) -> _ClassModel | None:
        """The model of what a constructor call (`Circle()`, `manim.Circle()`, a class of the code) returns."""
        return self.class_model(expr.func) if isinstance(expr, ast.Call) else None

    def _user_model(self, name: str) -> _ClassModel | None:
        if name in self._models:
            return self._models[name]
        self._models[name] = None
        node = self.user_classes[name]
        if node.keywords or self.dynamic_attributes:
            return None
        manim_classes: list[type] = []
        attributes: set[str] = set()
        for base in node.bases:
            model = self.class_model(base)
            if model is None:
                return None
            manim_classes += model.manim_classes
            attributes |= model.user_attributes
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                attributes.add(statement.name)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                attributes |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            else:
                attributes |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if {"__getattr__", "__getattribute__"} & attributes:
            return None
        model = _ClassModel(name, tuple(manim_classes), frozenset(attributes), from_user=True)
        self._models[name] = model
        return model

    def _units(self) -> dict[int, _Unit]:
        units: dict[int, _Unit] = {id(self.tree): _Unit(self.tree)}

        def visit(node: ast.AST, unit: _Unit, owner: ast.ClassDef | None) -> None:
            for child in ast.iter_child_nodes(node):
                child_unit = unit
                if unit.root is self.tree and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    child_unit = units.setdefault(id(child), _Unit(child))
                    if owner is not None and not isinstance(child, ast.Lambda):
                        self._bind_self(child_unit, child, owner)
                child_unit.nodes.append(child)
                child_owner = child if isinstance(child, ast.ClassDef) and node is self.tree else None
                visit(child, child_unit, child_owner if child_unit is unit else None)

        visit(self.tree, units[id(self.tree)], None)
        return units

    def _bind_self(self, unit: _Unit, function: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef) -> None:
        positional = function.args.posonlyargs + function.args.args
        if function.decorator_list or not positional:
            return
        unit.self_name = positional[0].arg
        unit.self_model = self._user_model(owner.name)

    def _type_unit(self, unit: _Unit) -> None:
        """name -> model when every binding in the unit is a constructor call of one class."""
        typed: set[int] = set()
        candidates: dict[str, list[_ClassModel | None]] = {}
        for node in unit.nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if all(isinstance(t, ast.Name) for t in targets):
                    model = self.constructed(node.value)
                    for target in targets:
                        typed.add(id(target))
                        candidates.setdefault(target.id, []).append(model)
        poisoned: set[str] = set()
        for node in unit.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in typed:
                poisoned.add(node.id)
            elif isinstance(node, ast.arg):
                poisoned.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                poisoned.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                poisoned |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                poisoned |= set(node.names)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                poisoned.add(node.name)
        if isinstance(unit.root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = unit.root.args
            every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [a for a in (arguments.vararg, arguments.kwarg) if a]
            poisoned |= {a.arg for a in every}
        for name in poisoned:
            unit.types[name] = _POISONED
        for name, models in candidates.items():
            if name in poisoned:
                continue
            labels = {(m.label, m.from_user) if m else None for m in models}
            unit.types[name] = models[0] if len(labels) == 1 and models[0] is not None else _POISONED
        if unit.self_name is not None:
            parameters = sum(1 for node in unit.nodes if isinstance(node, ast.arg) and node.arg == unit.self_name)
            rebound = unit.self_name in candidates or parameters > 1
            unit.types[unit.self_name] = _POISONED if rebound else unit.self_model

    def infer(self, expr: ast.expr, unit: _Unit, module_unit: _Unit) -> Inferred:
        if isinstance(expr, ast.Name):
            value = unit.types[expr.id] if expr.id in unit.types else module_unit.types.get(expr.id)
            return value if isinstance(value, _ClassModel) else None
        if isinstance(expr, ast.Attribute) and expr.attr == "animate":
            model = self.infer(expr.value, unit, module_unit)
            return _Builder(model) if isinstance(model, _ClassModel) and self._has_attribute(model, "animate") else None
        constructed = self.constructed(expr)
        if constructed is not None:
            return constructed
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            receiver = self.infer(expr.func.value, unit, module_unit)
            if expr.func.attr == "animate" and isinstance(receiver, _ClassModel) and self._has_attribute(receiver, "animate"):
                return _Builder(receiver)
            if isinstance(receiver, _Builder) and expr.func.attr not in BUILDER_METHODS:
                return receiver
        return None

    def _has_attribute(self, model: _ClassModel, name: str) -> bool:
        if name in model.user_attributes or name in self.attribute_stores or hasattr(object, name):
            return True
        return any(hasattr(cls, name) or name in api.instance_attributes(cls) for cls in model.manim_classes)

    def _dynamic_owners(self, model: _ClassModel) -> set[type]:
        return {owner for cls in model.manim_classes for owner in api.dynamic_getattr_owners(cls)}

    # calls -----------------------------------------------------------------------------------

    def _check_call(self, call: ast.Call, unit: _Unit, module_unit: _Unit) -> None:
        target = self.resolve(call.func)
        if target is not None:
            self._check_keywords(call, target, _call_label(call.func))
            return
        if isinstance(call.func, ast.Attribute):
            receiver = self.infer(call.func.value, unit, module_unit)
            if receiver is not None and not self.dynamic_attributes:
                self._check_method(call, receiver)

    def _check_keywords(self, call: ast.Call, target: Any, label: str) -> None:
        if inspect.isclass(target):
            accepted = api.constructor_keywords(target)
        elif inspect.isfunction(target) or inspect.ismethod(target):
            accepted = api.function_keywords(target)
        else:
            return
        for keyword in call.keywords:
            if keyword.arg is not None and not accepted.accepts(keyword.arg):
                hint = _suggest(keyword.arg, accepted.names)
                self.report(
                    keyword,
                    "bad-kwarg",
                    f"`{label}(..., {keyword.arg}=...)`: {label} does not accept the keyword argument `{keyword.arg}`.{hint}",
                )

    def _check_method(self, call: ast.Call, receiver: _ClassModel | _Builder) -> None:
        func = call.func
        assert isinstance(func, ast.Attribute)
        name = func.attr
        model = receiver.model if isinstance(receiver, _Builder) else receiver
        where = _call_label(func.value)
        kind = f"`{where}` is {_article(model.label)}" + (" animation builder" if isinstance(receiver, _Builder) else "")
        if model.from_user and model.manim_classes:
            kind += f" (a subclass of {', '.join(cls.__name__ for cls in model.manim_classes)})"
        if isinstance(receiver, _Builder) and name in BUILDER_METHODS:
            return
        if self._has_attribute(model, name):
            if not model.from_user or name not in model.user_attributes:
                method = next((getattr(cls, name) for cls in model.manim_classes if hasattr(cls, name)), None)
                if method is not None and isinstance(receiver, _ClassModel):
                    self._check_keywords(call, method, f"{where}.{name}")
            return
        owners = self._dynamic_owners(model)
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
            self.report(func, "removed-api", message)
            return
        candidates = set(model.user_attributes)
        for cls in model.manim_classes:
            candidates |= set(dir(cls))
        hint = _suggest(name, candidates) + _owner_hint(name, model)
        self.report(func, "unknown-method", f"`{where}.{name}(...)`: {kind}, which has no method `{name}`{accessor}.{hint}")


def _guarded_imports(tree: ast.Module) -> set[int]:
    """Imports inside a `try` whose handlers catch a failed import."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, ast.TryStar)) and any(_catches_import_error(h) for h in node.handlers):
            for statement in node.body:
                guarded |= {id(n) for n in ast.walk(statement) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return guarded


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(c, ast.Name) and c.id in IMPORT_GUARDS for c in caught)


def _annotation_nodes(tree: ast.Module) -> set[int]:
    """Nodes inside annotations Python never evaluates: all of them under `from __future__ import
    annotations`, else those of local variables."""
    postponed = any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__" and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if postponed and isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif postponed and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif postponed and isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            roots += [n.annotation for n in ast.walk(node) if isinstance(n, ast.AnnAssign)]
    return {id(n) for root in roots for n in ast.walk(root)}


def _owner_hint(name: str, model: _ClassModel) -> str:
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


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _article(word: str) -> str:
    return f"an {word}" if word[:1].upper() in "AEIOU" else f"a {word}"


def _call_label(expr: ast.expr) -> str:
    try:
        text = ast.unparse(expr)
    except (ValueError, TypeError, AttributeError):
        return "object"
    return text if len(text) <= 40 else text[:37] + "..."
