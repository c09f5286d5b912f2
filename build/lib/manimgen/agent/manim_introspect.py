"""What the installed manim accepts: its public names, the keyword arguments a class really takes,
the attributes its instances carry. The static check asks these questions; answers are cached.

Every answer errs towards "accepted": a keyword the analysis cannot follow (forwarded to another
constructor, stored, logged) makes the class open, and any `self.<name> = ...` in manim's own
source counts as an attribute. A false alarm would send a model to "fix" working code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from manimgen.manim_import import manim as manim_module
from manimgen.syntax import parse

KWARGS_HARMLESS_METHODS = frozenset({"pop", "get", "setdefault", "update"})


def import_manim_module(module_name: str) -> ModuleType:
    """`manim` or one of its submodules, with manim itself imported quietly first (see manim_import)."""
    manim_module()
    return importlib.import_module(module_name)


@cache
def star_names(module_name: str = "manim") -> frozenset[str]:
    """The names `from <module> import *` binds."""
    module = import_manim_module(module_name)
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return frozenset(exported)
    return frozenset(name for name in vars(module) if not name.startswith("_"))


@dataclass(frozen=True)
class KeywordSet:
    """The keyword arguments a constructor or function accepts; `open` means any keyword may be valid."""

    names: frozenset[str]
    open: bool

    def accepts(self, keyword: str) -> bool:
        return self.open or keyword in self.names


OPEN = KeywordSet(frozenset(), True)


def _function_tree(function: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(function))
        node = parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _string_constants(tree: ast.AST) -> set[str]:
    """Keys a body may read out of **kwargs by name (`kwargs.pop("x")`, `"x" in kwargs`, ...)."""
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _is_init_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"


def _forwards_only_to_inits(tree: ast.FunctionDef | ast.AsyncFunctionDef, varkw: str) -> bool:
    """True when **varkw flows into `super().__init__` / `Base.__init__` and is otherwise only read key by key.

    An __init__ that never passes **varkw on swallows every keyword: it accepts anything.
    """
    allowed: set[int] = set()
    forwarded = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg is None and isinstance(keyword.value, ast.Name) and keyword.value.id == varkw:
                    if not _is_init_call(node):
                        return False
                    allowed.add(id(keyword.value))
                    forwarded = True
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == varkw:
                if func.attr not in KWARGS_HARMLESS_METHODS:
                    return False
                allowed.add(id(func.value))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == varkw:
            allowed.add(id(node.value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            right = node.comparators[0]
            if isinstance(right, ast.Name) and right.id == varkw:
                allowed.add(id(right))
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == varkw]
    return forwarded and all(id(use) in allowed for use in uses)


def _named_parameters(signature: inspect.Signature) -> set[str]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {name for name, parameter in signature.parameters.items() if parameter.kind in kinds}


def _varkw(signature: inspect.Signature) -> str | None:
    return next((p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)


def _own_constructors(cls: type) -> list[Any]:
    return [vars(klass)[name] for klass in cls.__mro__ if klass is not object for name in ("__new__", "__init__") if name in vars(klass)]


def _first_init(cls: type) -> Any:
    """The __init__ Python calls for `cls(...)`: the first one along the MRO."""
    return next(vars(klass)["__init__"] for klass in cls.__mro__ if "__init__" in vars(klass))


def _signature(function: Any) -> inspect.Signature | None:
    if isinstance(function, (staticmethod, classmethod)):
        function = function.__func__
    if not inspect.isfunction(function):
        return None
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


@cache
def constructor_keywords(cls: type) -> KeywordSet:
    """Keywords `cls(...)` accepts, following **kwargs up the MRO.

    Without **kwargs the first __init__ decides alone. With it, a keyword is accepted if any
    __init__/__new__ along the MRO names it (or reads it out of **kwargs by key); the set stays
    closed only while every **kwargs flows into other __init__s and nowhere else.
    """
    first = _signature(_first_init(cls))
    if first is None:
        return OPEN
    if _varkw(first) is None:
        return KeywordSet(frozenset(_named_parameters(first)), False)
    names: set[str] = set()
    for constructor in _own_constructors(cls):
        signature = _signature(constructor)
        if signature is None:
            return OPEN
        names |= _named_parameters(signature)
        varkw = _varkw(signature)
        if varkw is None:
            continue
        tree = _function_tree(constructor)
        if tree is None or not _forwards_only_to_inits(tree, varkw):
            return OPEN
        names |= _string_constants(tree)
    return KeywordSet(frozenset(names), False)


@cache
def function_keywords(function: Any) -> KeywordSet:
    """Keywords a plain function or method accepts; anything with **kwargs is open."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return OPEN
    if _varkw(signature) is not None:
        return OPEN
    return KeywordSet(frozenset(_named_parameters(signature)), False)


def _self_attribute_stores(klass: type) -> set[str]:
    try:
        tree = parse(textwrap.dedent(inspect.getsource(klass)))
    except (OSError, TypeError, SyntaxError):
        return set()
    stored = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    for node in ast.walk(tree):
        is_setattr = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
        if is_setattr and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            stored.add(str(node.args[1].value))
    return stored


@cache
def instance_attributes(cls: type) -> frozenset[str]:
    """Attribute names any class in the MRO assigns on an instance in its own source."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is not object:
            names |= _self_attribute_stores(klass)
    return frozenset(names)


@cache
def dynamic_getattr_owners(cls: type) -> tuple[type, ...]:
    """Classes in the MRO that define __getattr__/__getattribute__ (object excluded)."""
    return tuple(
        klass for klass in cls.__mro__ if klass is not object and ("__getattr__" in vars(klass) or "__getattribute__" in vars(klass))
    )


def mobject_class() -> type:
    return manim_module().Mobject
