"""Python source parsed into an AST, one thread at a time, and code Python cannot compile named as such.

Why one thread at a time: CPython 3.11 keeps the AST constructor's recursion counter in interpreter-wide state and
resets it from the calling thread's stack depth, so when two threads run `ast.parse` at once (a
finalizer can switch threads mid-parse) the deeper one fails with "SystemError: AST constructor
recursion depth mismatch" (python/cpython#106905 and the reports around it). The study scores one
sample in a thread while the agent lints the next, and lost samples to it; every parse in the
package goes through this lock instead.

Why here: code a model (or anyone) wrote can nest deeper than CPython's parser and compiler go
(`x = ------…1` is a MemoryError, a sum of 10^6 terms a RecursionError), and every recursive AST
visitor fails long before that; code nested deeper than MAX_DEPTH reads as a SyntaxError that says
so, so every caller handles it as the code's fault.
"""

from __future__ import annotations

import ast
import threading
import traceback

_PARSING = threading.Lock()
TOO_DEEP = "the code nests too deeply for Python to {} ({}); write it with fewer nested operators or brackets"
# Far deeper than any scene (they stay under 40); a recursive visitor needs two or three frames a level.
MAX_DEPTH = 200


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, serialised across threads; raises SyntaxError as it does, and for code too deep to parse or visit."""
    with _PARSING:
        try:
            tree = _parse_once_more_if_raced(source, filename)
        except (RecursionError, MemoryError) as error:
            raise SyntaxError(TOO_DEEP.format("parse", type(error).__name__)) from None
    if _deeper_than(tree, MAX_DEPTH):
        raise SyntaxError(TOO_DEEP.format("check", f"more than {MAX_DEPTH} levels"))
    return tree


def _parse_once_more_if_raced(source: str, filename: str) -> ast.Module:
    """`ast.parse`, tried once more when a parse outside this lock (a library's, in another thread) upset the
    shared counter mid-way: the error is the interpreter's state, not the code's (seen once in 64 study samples)."""
    try:
        return ast.parse(source, filename)
    except SystemError as error:
        if "recursion depth mismatch" not in str(error):
            raise
        return ast.parse(source, filename)


def _deeper_than(tree: ast.AST, limit: int) -> bool:
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def compile_error(source: str, filename: str) -> str | None:
    """Python's own message for code that cannot compile, as the interpreter would print it; None when it compiles."""
    try:
        compile(source, filename, "exec")
    except SyntaxError as error:
        return "".join(traceback.format_exception_only(error)).rstrip()
    except ValueError as error:
        return f"ValueError: {error}"
    except (RecursionError, MemoryError) as error:
        return f"SyntaxError: {TOO_DEEP.format('compile', type(error).__name__)}"
    return None


def defined_classes(code: str) -> set[str]:
    """The names of every class CODE defines (empty when it does not parse)."""
    try:
        tree = parse(code)
    except SyntaxError:
        return set()
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
