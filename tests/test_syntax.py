"""The package's one parse entry point holds up when two threads parse at once."""

from __future__ import annotations

import ast
import gc
import sys
import threading
import time
from collections.abc import Callable

import pytest

from manimgen.syntax import defined_classes, parse

SOURCE = "\n".join(f"def f{i}(x):\n    return [y * {i} for y in range(x) if y % 2]" for i in range(200))


class _SwitchesThreads:
    """Garbage in a cycle whose finalizer gives up the GIL, so a collection mid-parse switches threads."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0)


def _race(parser: Callable[[str], ast.Module]) -> list[str]:
    """Two threads at different stack depths parse SOURCE over and over; the SystemErrors they met."""
    errors: list[str] = []

    def work() -> None:
        for _ in range(60):
            for _ in range(50):
                _SwitchesThreads()
            try:
                parser(SOURCE)
            except SystemError as error:
                errors.append(str(error))
                return

    def at_depth(depth: int) -> None:
        work() if depth == 0 else at_depth(depth - 1)

    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.set_threshold(50)
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=at_depth, args=(depth,)) for depth in (0, 60)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)
    return errors


def test_parsing_in_two_threads_at_once_never_fails() -> None:
    # With bare ast.parse on CPython 3.11 about three races in four raise the SystemError.
    assert [_race(parse) for _ in range(3)] == [[], [], []]


def test_parse_keeps_syntax_errors_and_classes_are_found() -> None:
    code = "class A:\n    class B: pass\nclass C(A): pass\n"
    assert defined_classes(code) == {"A", "B", "C"}
    assert defined_classes("class (:") == set()
    with pytest.raises(SyntaxError) as raised:
        parse("def (:")
    assert raised.value.lineno == 1


def test_a_parse_upset_by_another_threads_parse_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ast.parse
    failures = [SystemError("AST constructor recursion depth mismatch (before=114, after=30)")]

    def raced(source: str, filename: str = "<unknown>") -> ast.Module:
        if failures:
            raise failures.pop()
        return real(source, filename)

    monkeypatch.setattr(ast, "parse", raced)
    assert isinstance(parse("x = 1"), ast.Module)
    failures.append(SystemError("something else"))
    with pytest.raises(SystemError, match="something else"):
        parse("x = 1")
