"""The model's lines added to the scene builder's scene, so the part the blocks drew stays as they drew it.

Asked to extend a whole built scene, a small model rewrites it and often loses what the blocks drew (a
label, the layout, the ordering). Asked for only the lines that add what is missing, its answer is added
at the end of the built scene's `construct`, before its last wait; an answer that is a whole scene
anyway is taken as the model's own scene.
"""

from __future__ import annotations

import re
import textwrap

BODY_INDENT = " " * 8
"""How deep the builder's `construct` body is indented (agent/builder/__init__.py's `_scene`)."""
LAST_WAIT = f"{BODY_INDENT}self.wait(1)\n"
WHOLE_SCENE = re.compile(r"^\s*class\s+\w+\s*\(", re.M)
NAMED = re.compile(rf"^{BODY_INDENT}(\w+) = (\w+)\(", re.M)


def scene_names(scene: str) -> list[str]:
    """The built scene's objects as "`name` (Class)", for the model to refer to."""
    return [f"`{name}` ({kind})" for name, kind in dict(NAMED.findall(scene)).items()]


def splice(scene: str, lines: str) -> str:
    """`scene` with `lines` added at the end of its `construct` (before the last wait); `lines` itself when it is a
    whole scene."""
    if WHOLE_SCENE.search(lines) or LAST_WAIT not in scene:
        return lines
    kept = [line for line in lines.splitlines() if not re.match(r"\s*(?:from\s+manim\s+import|import\s+(?:numpy|manim))\b", line)]
    body = textwrap.dedent("\n".join(kept)).strip("\n")
    if not body:
        return scene
    head, tail = scene.rsplit(LAST_WAIT, 1)
    return f"{head}{textwrap.indent(body, BODY_INDENT)}\n{LAST_WAIT}{tail}"
