"""Python source parsed into an AST, one thread at a time.

Why: CPython 3.11 keeps the AST constructor's recursion counter in interpreter-wide state and
resets it from the calling thread's stack depth, so when two threads run `ast.parse` at once (a
finalizer can switch threads mid-parse) the deeper one fails with "SystemError: AST constructor
recursion depth mismatch" (python/cpython#106905 and the reports around it). The study scores one
sample in a thread while the agent lints the next, and lost samples to it; every parse in the
package goes through this lock instead.
"""

from __future__ import annotations

import ast
import threading

_PARSING = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, serialised across threads; raises SyntaxError as it does."""
    with _PARSING:
        return ast.parse(source, filename)


def defined_classes(code: str) -> set[str]:
    """The names of every class CODE defines (empty when it does not parse)."""
    try:
        tree = parse(code)
    except SyntaxError:
        return set()
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
