"""A static model of a scene file, computed once from its syntax tree: what it takes from manim and
under which names, the classes it defines, which class each variable holds, and every call with its
receiver.

The static check (lint) and the API documentation (apidocs) both need to know what `circle` is in
`circle.set_fill_color(...)`; they read it here so that they cannot answer differently. Each answer
says how far it can be trusted: lint reports only certain problems and uses only `direct` answers
on classes that are not `open`, while documentation may follow a likely answer (a method chain on
a constructor, an unpacked tuple), since a wrong guess there costs one extra entry, not a false
alarm.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from manimgen.agent import manim_introspect as api
from manimgen.agent.removed_api import REMOVED_MODULES
from manimgen.syntax import parse

MANIM = "manim"
MODULE_DUNDERS = frozenset({"__file__", "__builtins__", "__cached__", "__annotations__", "__qualname__", "__module__"})
DYNAMIC_NAME_CALLS = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__"})
BUILDER_METHODS = frozenset({"build", "set_anim_args"})
IMPORT_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True)
class ClassModel:
    """What is known about instances of a class: the manim classes it derives from and the attributes
    the code gives it. `open` when the code can add attributes nobody can list (setattr with a
    computed name, `__getattr__`, class keywords), so a missing attribute proves nothing."""

    label: str
    manim_classes: tuple[type, ...]
    user_attributes: frozenset[str] = frozenset()
    from_user: bool = False
    open: bool = False


@dataclass(frozen=True)
class Instance:
    """What an expression holds: an instance of `cls`, or (`builder`) its `.animate` builder, whose
    methods are the class's. `direct` when every binding behind it is a plain `name = Cls(...)`; a
    binding through a method chain (`Square().shift(LEFT)`, assumed to return self), by unpacking
    (`a, b = Circle(), Dot()`), by `+=` or by a nested function's parameter of the same name makes it
    only likely."""

    cls: ClassModel
    builder: bool = False
    direct: bool = True


@dataclass(frozen=True)
class Absent:
    """Something the code takes that is not there: a module (`module` is None) or a name of the manim
    module `module`. `guarded` when a `try: ... except ImportError` around it expects that."""

    node: ast.AST
    name: str
    module: ModuleType | None = None
    guarded: bool = False


@dataclass(frozen=True)
class CallSite:
    """One call. `name` is what is called (`f` of `f(...)`, `m` of `x.m(...)`; None for other callees),
    `target` the manim object the callee names (through imports and aliases) and `target_name` its
    name in manim; for `receiver.m(...)`, `instance` is what the receiver holds, when known."""

    node: ast.Call
    name: str | None
    receiver: ast.expr | None
    target: Any
    target_name: str | None
    instance: Instance | None

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def keywords(self) -> tuple[str, ...]:
        """Keyword arguments by name; `**mapping` arguments have none and are left out."""
        return tuple(keyword.arg for keyword in self.node.keywords if keyword.arg is not None)


@dataclass
class _Unit:
    """A top-level function (with everything nested in it) or the module level: the scope of a variable's type.

    `types` maps a name to what it holds; None marks a name known to be unknown, which hides the
    module level's answer."""

    root: ast.AST
    nodes: list[ast.AST] = field(default_factory=list)
    types: dict[str, Instance | None] = field(default_factory=dict)
    self_name: str | None = None
    self_model: ClassModel | None = None


class SceneModel:
    """The model of one parsed scene file; everything is computed in the constructor."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.manim_star = False
        self.unresolved_star = False
        self.manim_imports: dict[str, tuple[str, Any]] = {}
        self.module_aliases: dict[str, ModuleType] = {}
        self.imported: dict[str, str] = {}
        self.absent_imports: list[Absent] = []
        self.local_names: set[str] = set()
        self.attribute_stores: set[str] = set()
        self.dynamic_names = False
        self.dynamic_attributes = False
        self.user_classes: dict[str, ast.ClassDef] = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        self._models: dict[str, ClassModel | None] = {}
        self._read_imports()
        self._collect_bindings()
        self.absent_attributes = self._absent_module_attributes()
        self.unevaluated = _annotation_nodes(tree)
        self._module_unit = _Unit(tree)
        self._units = [self._module_unit]
        self._unit_of: dict[int, _Unit] = {}
        calls = self._split_units()
        for unit in self._units:
            self._type_unit(unit)
        self.calls = [self._call_site(call) for call in calls]

    @classmethod
    def parse(cls, code: str) -> SceneModel:
        """The model of `code`; raises SyntaxError."""
        return cls(parse(code))

    # imports ---------------------------------------------------------------------------------

    def _read_imports(self) -> None:
        guarded = _guarded_imports(self.tree)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._read_import(node, alias, id(node) in guarded)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                self._read_import_from(node, id(node) in guarded)
            elif isinstance(node, ast.ImportFrom):
                self.unresolved_star |= any(alias.name == "*" for alias in node.names)

    def _available(self, node: ast.AST, module: str, guarded: bool) -> bool:
        """Whether `module` is installed; ManimGL's package counts as absent, since CE code cannot use it."""
        if module.split(".")[0] in REMOVED_MODULES or not module_exists(module):
            self.absent_imports.append(Absent(node, module, guarded=guarded))
            return False
        return True

    def _read_import(self, node: ast.Import, alias: ast.alias, guarded: bool) -> None:
        if not self._available(node, alias.name, guarded):
            return
        if alias.name == MANIM or (alias.name.startswith(MANIM + ".") and alias.asname is None):
            self.module_aliases[alias.asname or MANIM] = api.manim_module()

    def _read_import_from(self, node: ast.ImportFrom, guarded: bool) -> None:
        module_name = node.module or ""
        is_manim = module_name == MANIM or module_name.startswith(MANIM + ".")
        stars = any(alias.name == "*" for alias in node.names)
        if not self._available(node, module_name, guarded):
            is_manimgl = module_name.split(".")[0] in REMOVED_MODULES
            self.manim_star |= stars and is_manimgl
            self.unresolved_star |= stars and not is_manimgl
            return
        if not is_manim:
            self.unresolved_star |= stars
            return
        module = api.import_manim_module(module_name)
        for alias in node.names:
            if alias.name == "*":
                if module_name == MANIM:
                    self.manim_star = True
                else:
                    self.unresolved_star = True
                continue
            if hasattr(module, alias.name):
                self.manim_imports[alias.asname or alias.name] = (alias.name, getattr(module, alias.name))
            elif not module_exists(f"{module_name}.{alias.name}"):
                self.absent_imports.append(Absent(node, alias.name, module, guarded))

    # names -----------------------------------------------------------------------------------

    def _collect_bindings(self) -> None:
        """Every name the code binds itself (manim's names excepted), the attributes it sets and whether
        it uses names or attributes too dynamically to follow."""
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
                module = node.module if isinstance(node, ast.ImportFrom) else None
                from_manim = (module or "").split(".")[0] == MANIM if isinstance(node, ast.ImportFrom) else False
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    bound = alias.asname or alias.name.split(".")[0]
                    self.imported[bound] = (module or "") if isinstance(node, ast.ImportFrom) else alias.name
                    if not ((from_manim or module is None) and bound in manim_aliases):
                        names.append(bound)
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

    def defines(self, name: str) -> bool:
        """Whether `name` is bound when the code runs: by the code, by manim, as a builtin or by the module."""
        return (
            name in self.local_names
            or name in self.manim_imports
            or name in self.module_aliases
            or (self.manim_star and name in api.star_names())
            or hasattr(builtins, name)
            or name in MODULE_DUNDERS
        )

    def _absent_module_attributes(self) -> list[Absent]:
        """`manim.X` through `import manim` where manim has no X (and the code never sets it)."""
        absent = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
                module = self.module_alias(node.value.id)
                if module is not None and not hasattr(module, node.attr) and node.attr not in self.attribute_stores:
                    if not module_exists(f"{module.__name__}.{node.attr}"):
                        absent.append(Absent(node, node.attr, module))
        return absent

    def module_alias(self, name: str) -> ModuleType | None:
        """The manim module `name` stands for (`import manim as m`), unless the code rebinds it."""
        if name in self.module_aliases and name not in self.local_names:
            return self.module_aliases[name]
        return None

    def _lookup(self, expr: ast.expr) -> tuple[str, Any] | None:
        if isinstance(expr, ast.Name):
            if expr.id in self.local_names:
                return None
            if expr.id in self.manim_imports:
                return self.manim_imports[expr.id]
            if self.manim_star and expr.id in api.star_names():
                value = getattr(api.manim_module(), expr.id, None)
                return (expr.id, value) if value is not None else None
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            module = self.module_alias(expr.value.id)
            if module is not None and hasattr(module, expr.attr):
                return expr.attr, getattr(module, expr.attr)
        return None

    def resolve(self, expr: ast.expr) -> Any:
        """The manim object an expression names (`Circle`, `manim.Circle`, an alias of either), or None."""
        found = self._lookup(expr)
        return found[1] if found is not None else None

    def manim_name(self, expr: ast.expr) -> str | None:
        """The name manim knows the object `expr` names by (`Circle` for `C` after `import Circle as C`)."""
        found = self._lookup(expr)
        return found[0] if found is not None else None

    # classes ---------------------------------------------------------------------------------

    def class_model(self, expr: ast.expr) -> ClassModel | None:
        """The model of the class `expr` names: a manim class or a class defined in the code."""
        target = self.resolve(expr)
        if isinstance(target, type):
            return ClassModel(target.__name__, (target,))
        if isinstance(expr, ast.Name) and expr.id in self.user_classes:
            return self.user_class(expr.id)
        return None

    def constructed(self, expr: ast.expr) -> ClassModel | None:
        """The model of what a constructor call (`Circle()`, `manim.Circle()`, a class of the code) returns."""
        return self.class_model(expr.func) if isinstance(expr, ast.Call) else None

    def user_class(self, name: str) -> ClassModel | None:
        """The model of a top-level class of the code; None when a base is not a class the model knows."""
        if name in self._models:
            return self._models[name]
        self._models[name] = None
        node = self.user_classes[name]
        manim_classes: list[type] = []
        attributes: set[str] = set()
        is_open = bool(node.keywords) or self.dynamic_attributes
        for base in node.bases:
            model = self.class_model(base)
            if model is None:
                return None
            manim_classes += model.manim_classes
            attributes |= model.user_attributes
            is_open |= model.open
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                attributes.add(statement.name)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                attributes |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            else:
                attributes |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        is_open |= bool({"__getattr__", "__getattribute__"} & attributes)
        model = ClassModel(name, tuple(manim_classes), frozenset(attributes), from_user=True, open=is_open)
        self._models[name] = model
        return model

    def has_attribute(self, model: ClassModel, name: str) -> bool:
        """Whether instances of the class have `name`: from manim, from the code's class body or set by the code."""
        if name in model.user_attributes or name in self.attribute_stores or hasattr(object, name):
            return True
        return any(hasattr(cls, name) or name in api.instance_attributes(cls) for cls in model.manim_classes)

    # variables -------------------------------------------------------------------------------

    def _split_units(self) -> list[ast.Call]:
        """Assign every node to its unit; returns the calls in source order, each before the calls inside it."""
        calls: list[ast.Call] = []

        def visit(node: ast.AST, unit: _Unit, owner: ast.ClassDef | None) -> None:
            for child in ast.iter_child_nodes(node):
                child_unit = unit
                if unit is self._module_unit and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    child_unit = _Unit(child)
                    self._units.append(child_unit)
                    if owner is not None and not isinstance(child, ast.Lambda):
                        self._bind_self(child_unit, child, owner)
                child_unit.nodes.append(child)
                self._unit_of[id(child)] = child_unit
                if isinstance(child, ast.Call):
                    calls.append(child)
                child_owner = child if isinstance(child, ast.ClassDef) and node is self.tree else None
                visit(child, child_unit, child_owner if child_unit is unit else None)

        visit(self.tree, self._module_unit, None)
        return calls

    def _bind_self(self, unit: _Unit, function: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef) -> None:
        positional = function.args.posonlyargs + function.args.args
        if function.decorator_list or not positional:
            return
        unit.self_name = positional[0].arg
        unit.self_model = self.user_class(owner.name)

    def _value(self, expr: ast.expr, direct: bool) -> Instance | None:
        """What a bound value holds: a constructor call, or (never direct) a method chain on one."""
        model = self.constructed(expr)
        if model is not None:
            return Instance(model, direct=direct)
        root = expr
        while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute):
            root = root.func.value
        model = self.constructed(root) if root is not expr else None
        return Instance(model, direct=False) if model is not None else None

    def _type_unit(self, unit: _Unit) -> None:
        """name -> instance when every binding in the unit gives an instance of one class; None otherwise."""
        typed: set[int] = set()
        candidates: dict[str, list[Instance | None]] = {}

        def bind(target: ast.expr, value: ast.expr, direct: bool) -> None:
            if isinstance(target, ast.Name):
                typed.add(id(target))
                candidates.setdefault(target.id, []).append(self._value(value, direct))
            else:
                for element, element_value in _unpacked(target, value):
                    bind(element, element_value, False)

        for node in unit.nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                direct = all(isinstance(t, ast.Name) for t in targets)
                for target in targets:
                    if direct or not isinstance(target, ast.Name):
                        bind(target, node.value, direct)
        unknown, kept = _other_bindings(unit, typed)
        for name, instances in candidates.items():
            first = instances[0]
            labels = {(i.cls.label, i.cls.from_user) if i else None for i in instances}
            if name in unknown or len(labels) != 1 or first is None:
                continue
            unit.types[name] = replace(first, direct=name not in kept and all(i is not None and i.direct for i in instances))
        for name in (unknown | kept | set(candidates)) - set(unit.types):
            unit.types[name] = None
        if unit.self_name is not None:
            parameters = sum(1 for node in unit.nodes if isinstance(node, ast.arg) and node.arg == unit.self_name)
            rebound = unit.self_name in candidates or parameters > 1
            model = None if rebound else unit.self_model
            unit.types[unit.self_name] = Instance(model) if model is not None else None

    def instance(self, expr: ast.expr) -> Instance | None:
        """What `expr` holds, read in the scope it appears in; None when the model cannot tell."""
        return self._infer(expr, self._unit_of.get(id(expr), self._module_unit))

    def _infer(self, expr: ast.expr, unit: _Unit) -> Instance | None:
        if isinstance(expr, ast.Name):
            return unit.types[expr.id] if expr.id in unit.types else self._module_unit.types.get(expr.id)
        if isinstance(expr, ast.Attribute) and expr.attr == "animate":
            return self._animate(self._infer(expr.value, unit))
        model = self.constructed(expr)
        if model is not None:
            return Instance(model)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            receiver = self._infer(expr.func.value, unit)
            if expr.func.attr == "animate" and receiver is not None and not receiver.builder:
                return self._animate(receiver)
            if receiver is not None and receiver.builder and expr.func.attr not in BUILDER_METHODS:
                return receiver
        return None

    def _animate(self, instance: Instance | None) -> Instance | None:
        """`x.animate` (or `x.animate(...)`): a builder for x's class, when that class has `animate`."""
        if instance is None or instance.builder or not self.has_attribute(instance.cls, "animate"):
            return None
        return replace(instance, builder=True)

    # calls -----------------------------------------------------------------------------------

    def _call_site(self, call: ast.Call) -> CallSite:
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        receiver = func.value if isinstance(func, ast.Attribute) else None
        found = self._lookup(func)
        instance = self.instance(receiver) if receiver is not None else None
        return CallSite(call, name, receiver, found[1] if found else None, found[0] if found else None, instance)


def module_exists(name: str) -> bool:
    """Whether `name` can be imported (finding a submodule imports its parents)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _unpacked(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """`a, b = x, y`: the (element, value) pairs of a literal unpacked element by element; none otherwise."""
    sequences = (ast.Tuple, ast.List)
    if not isinstance(target, sequences) or not isinstance(value, sequences) or len(target.elts) != len(value.elts):
        return []
    if any(isinstance(element, ast.Starred) for element in (*target.elts, *value.elts)):
        return []
    return list(zip(target.elts, value.elts))


def _other_bindings(unit: _Unit, typed: set[int]) -> tuple[set[str], set[str]]:
    """Names the unit also binds other than by assignment: first those bindings that say nothing of a
    class (parameters, loops, imports, ...), then those assumed to keep it: `x += ...` (manim's `+=`
    adds to x itself) and a nested function's parameter named like the variable, in scene code mostly
    the same object (`number.add_updater(lambda number: ...)`)."""
    parameters: list[ast.arg] = []
    if isinstance(unit.root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = unit.root.args
        parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        parameters += [a for a in (arguments.vararg, arguments.kwarg) if a]
    own = {id(parameter) for parameter in parameters}
    augmented = {id(n.target) for n in unit.nodes if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    unknown = {parameter.arg for parameter in parameters}
    kept: set[str] = set()
    for node in unit.nodes:
        if isinstance(node, ast.Name) and id(node) in augmented:
            kept.add(node.id)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in typed:
            unknown.add(node.id)
        elif isinstance(node, ast.arg):
            (unknown if id(node) in own else kept).add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            unknown.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            unknown |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            unknown |= set(node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            unknown.add(node.name)
    return unknown, kept


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


def _annotation_nodes(tree: ast.Module) -> frozenset[int]:
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
    return frozenset(id(n) for root in roots for n in ast.walk(root))
