"""`manimgen mcp`: a real MCP client session over stdio with the server as a subprocess lists the
tools and calls each; the model behind `generate_animation` is scripted, every render is real."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from PIL import Image

from manimgen.data import BUILTIN_TASKS

GOOD = BUILTIN_TASKS[0].reference_code
BOARD = json.dumps({
    "title": "Two shapes",
    "scenes": [
        {"title": "A circle", "narration": ["Here is a circle."], "shows": "A blue circle appears"},
        {"title": "A square", "narration": ["And here a square."], "shows": "A red square appears"},
    ],
})  # fmt: skip
MODEL_MODULE = f'''from manimgen.agent import format_target
from manimgen.llm.scripted import ScriptedLLM


def make():
    return ScriptedLLM(*[format_target({GOOD!r})] * 2, {BOARD!r}, *[format_target({GOOD!r})] * 2, name="scripted")
'''


async def session(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "mcp_model.py").write_text(MODEL_MODULE)
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "manimgen.cli", "mcp", "--root", str(tmp_path / "jobs"), "--model", "py:mcp_model:make", "--strategy", "vanilla"],
        env={"PYTHONPATH": str(tmp_path)},
        cwd=str(tmp_path),
    )
    async with Client(parameters) as client:
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        lint = await client.call_tool("lint_scene", {"code": GOOD.replace("Create(", "ShowCreation(", 1)})
        models = await client.call_tool("list_models", {})
        generated = await client.call_tool("generate_animation", {"description": "A blue circle turns into a square"}, read_timeout_seconds=300)
        rendered = await client.call_tool("render_scene", {"code": "from manim import *\n\n\nclass Bad(Scene):\n    def construct(self):\n        self.play(Create(Circel()))\n"}, read_timeout_seconds=300)
        refused = await client.call_tool("generate_animation", {"description": "  "})
        portrait = await client.call_tool("render_scene", {"code": GOOD, "aspect": "9:16", "format": "gif"}, read_timeout_seconds=300)
        unshaped = await client.call_tool("render_scene", {"code": GOOD, "resolution": "1081x1920"})
        planned = await client.call_tool("plan_checklist", {"description": "Draw a purple pentagon and rotate it by 72 degrees."})
        checklist = dict(planned.structured_content or {})
        checklist["requirements"] = checklist["requirements"][:1]
        checked = await client.call_tool("generate_animation", {"description": "A purple pentagon", "checklist": checklist}, read_timeout_seconds=300)
        lesson = await client.call_tool("generate_lesson", {"topic": "Two shapes", "scenes": 2}, read_timeout_seconds=600)
        remote_voice = await client.call_tool("generate_lesson", {"topic": "Two shapes", "voice": "http://10.0.0.1/v1#nova"})
    return {
        "tools": tools,
        "lint": lint.structured_content,
        "models": models.structured_content,
        "generated": generated.structured_content,
        "rendered": rendered.structured_content,
        "refused": refused.structured_content,
        "portrait": portrait.structured_content,
        "unshaped": unshaped.structured_content,
        "planned": planned.structured_content,
        "checked": checked.structured_content,
        "lesson": lesson.structured_content,
        "remote_voice": remote_voice.structured_content,
    }


def test_an_mcp_client_lists_and_calls_every_tool(tmp_path: Path) -> None:
    results = asyncio.run(session(tmp_path))
    assert results["tools"] == ["generate_animation", "generate_lesson", "lint_scene", "list_models", "list_strategies", "plan_checklist", "render_scene"]
    lint = results["lint"]
    assert lint["findings"][0]["code"] == "removed-api" and "ShowCreation" in lint["findings"][0]["message"]
    assert lint["fixed_code"] == GOOD and lint["fixes"]
    assert "qwen2.5-coder-0.5b" in results["models"]["models"] and results["models"]["default"] == "py:mcp_model:make"
    generated = results["generated"]
    assert generated["status"] == "done" and generated["code"] == GOOD and generated["rounds"] == 1
    assert Path(generated["video_path"]).is_file() and Path(generated["video_path"]).suffix == ".mp4"
    rendered = results["rendered"]
    assert rendered["status"] == "failed" and rendered["video_path"] is None and "Circel" in rendered["error"]
    assert [item["phrase"] for item in results["planned"]["requirements"]] == ["a purple pentagon", "the pentagon turns by 72°"]
    assert results["checked"]["status"] == "done", "an edited checklist is accepted and the job runs"
    portrait = results["portrait"]
    assert portrait["status"] == "done" and Path(portrait["video_path"]).suffix == ".gif"
    with Image.open(portrait["video_path"]) as image:
        assert image.size == (480, 854) and image.n_frames > 1
    assert results["unshaped"] == {"status": "refused", "error": "1081x1920 cannot be encoded; give even sides from 16 to 4096 pixels"}
    assert results["refused"] == {"status": "refused", "error": 'the sentence is empty: describe the animation, e.g. "A blue circle turns into a red square"'}
    lesson = results["lesson"]
    assert lesson["status"] == "done" and Path(lesson["video_path"]).name == "lesson.mp4", lesson
    assert "Here is a circle." in Path(lesson["lesson_vtt_path"]).read_text(encoding="utf-8") and Path(lesson["storyboard_json_path"]).is_file()
    if shutil.which("espeak-ng"):
        assert '"voice": "espeak-ng"' in (Path(lesson["video_path"]).parent / "lesson.json").read_text(encoding="utf-8")
    assert results["remote_voice"] == {"status": "refused", "error": "unknown voice 'http://10.0.0.1/v1#nova'; choose one of: espeak-ng, silent"}
