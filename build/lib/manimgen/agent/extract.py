"""Pull the scene code out of a model's answer.

Rule (from the study we reproduce): the last `<CODE>…</CODE>` block; else the last fenced python
block; else nothing. A Markdown fence inside a `<CODE>` block is removed. Tags are matched without
regard to case, and a fence counts as python when it is tagged python, py or python3, or untagged.

Truncated answers (the model hit its token limit): a closed block always wins over an unclosed one,
because a complete earlier answer is more likely to run than a cut-off later one. When no block is
closed, the text after the last opening `<CODE>` (or an opening python fence) is taken as the code:
a cut-off scene then fails its render with a SyntaxError the repair prompt can show the model,
instead of being reported as "no code" with nothing to learn from.
"""

from __future__ import annotations

import re
import textwrap

_CODE_BLOCK = re.compile(r"<CODE>(.*?)</CODE>", re.IGNORECASE | re.DOTALL)
_CODE_OPEN = re.compile(r"<CODE>", re.IGNORECASE)
_PYTHON_TAGS = {"", "python", "py", "python3"}
_FENCE = re.compile(r"```[ \t]*(?P<tag>[\w+-]*)[^\n]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```[ \t]*(?P<tag>[\w+-]*)[^\n]*\n")
_FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)


def _clean(code: str) -> str | None:
    """Dedent and trim; blank code counts as no code."""
    code = textwrap.dedent(code).strip("\n").rstrip()
    return f"{code}\n" if code.strip() else None


def _python_fences(text: str) -> list[str]:
    return [match["body"] for match in _FENCE.finditer(text) if match["tag"].lower() in _PYTHON_TAGS]


def _unclosed_fence(text: str) -> str | None:
    """The body of a python fence opened after the last closed fence and never closed."""
    closed = list(_FENCE.finditer(text))
    rest = text[closed[-1].end() :] if closed else text
    opening = [match for match in _OPEN_FENCE.finditer(rest) if match["tag"].lower() in _PYTHON_TAGS]
    return rest[opening[-1].end() :] if opening else None


def _unfence(block: str) -> str | None:
    """The code inside a `<CODE>` block: its last python fence, else the block without stray fence lines."""
    fences = _python_fences(block)
    if fences:
        return _clean(fences[-1])
    return _clean(_FENCE_LINE.sub("", block))


def extract_code(completion: str) -> str | None:
    """The scene code in `completion`, or None when it holds none (see the module doc for the rule)."""
    blocks = _CODE_BLOCK.findall(completion)
    for block in reversed(blocks):
        code = _unfence(block)
        if code is not None:
            return code
    openings = list(_CODE_OPEN.finditer(completion))
    truncated = _unfence(completion[openings[-1].end() :]) if openings and not blocks else None
    if truncated is not None:
        return truncated
    fences = _python_fences(completion)
    if fences:
        return _clean(fences[-1])
    unclosed = _unclosed_fence(completion)
    return _clean(_FENCE_LINE.sub("", unclosed)) if unclosed is not None else None


_STRICT_STRIP = re.compile(r"<CODE>|</CODE>|```python|```")


def extract_code_strict(completion: str) -> str | None:
    """The original ManimBench code's extraction (the `paper` preset): the last closed `<CODE>` block
    (tags all upper or all lower case), else the last closed fence opened exactly as ```python; every
    fence mark inside is deleted. Anything else, an unclosed block among it, is no code."""
    text = re.sub(r"`<CODE>`|`</CODE>`", "", completion)
    text = text.replace("<code>", "<CODE>").replace("</code>", "</CODE>").replace("CODE>", "<CODE>").replace("</<CODE>", "</CODE>")
    blocks = re.findall(r"<CODE>(.*?)</CODE>", text, re.DOTALL) or re.findall(r"```python(.*?)```", text, re.DOTALL)
    code = _STRICT_STRIP.sub("", blocks[-1]).strip() if blocks else ""
    return f"{code}\n" if code else None
