"""A text edit of scene code at AST positions: how a lint finding carries its certain fix."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace the source between two 1-based (line, column) positions, end exclusive, with `text`."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str
    note: str

    @classmethod
    def insert(cls, line: int, column: int, text: str, note: str) -> Edit:
        """`text` added at one position, nothing replaced."""
        return cls(line, column, line, column, text, note)

    def apply(self, code: str) -> str:
        lines = code.splitlines(keepends=True)
        start = _offset(lines, self.line, self.column)
        end = _offset(lines, self.end_line, self.end_column)
        return code[:start] + self.text + code[end:]


def node_edit(node: ast.AST, text: str, note: str) -> Edit:
    """An edit replacing an AST node's whole source span (positions as `ast` gives them, 0-based columns)."""
    return Edit(node.lineno, node.col_offset + 1, node.end_lineno or node.lineno, (node.end_col_offset or 0) + 1, text, note)


def _offset(lines: list[str], line: int, column: int) -> int:
    """The character offset of a 1-based (line, column); `ast` counts columns in UTF-8 bytes."""
    before = sum(len(text) for text in lines[: line - 1])
    current = lines[line - 1] if line - 1 < len(lines) else ""
    return before + len(current.encode()[: column - 1].decode(errors="ignore"))
