"""The notebook magics in a real IPython kernel (started and driven over Jupyter's protocol): a
sentence becomes a video shown under the cell and its code the next cell; edited code renders as a
GIF; bad input is a one-line error. The model is scripted; every render is real."""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from manimgen.data import BUILTIN_TASKS

GOOD = BUILTIN_TASKS[0].reference_code
MODEL_MODULE = f'''from manimgen.agent import format_target
from manimgen.llm.scripted import ScriptedLLM


def make():
    return ScriptedLLM(format_target({GOOD!r}), name="scripted")
'''


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Any]:
    """A kernel of this interpreter, working in `tmp_path` with the scripted model importable."""
    spec_dir = tmp_path / "kernels" / "manimgen-test"
    spec_dir.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "test", "language": "python"}))
    (tmp_path / "nb_model.py").write_text(MODEL_MODULE)
    manager = KernelManager(kernel_name="manimgen-test", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")]))
    manager.start_kernel(cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": str(tmp_path)})
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run(client: Any, code: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Execute a cell; its outputs (stream, display, error messages) and its reply."""
    outputs: list[dict[str, Any]] = []
    reply = client.execute_interactive(code, timeout=600, output_hook=lambda message: outputs.append(message))
    return outputs, reply["content"]


def displayed(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [message["content"]["data"] for message in outputs if message["msg_type"] == "display_data"]


def printed(outputs: list[dict[str, Any]]) -> str:
    return "".join(message["content"]["text"] for message in outputs if message["msg_type"] == "stream")


def test_the_magics_make_show_and_hand_over_the_code_in_a_real_kernel(kernel: Any, tmp_path: Path) -> None:
    assert run(kernel, "%load_ext manimgen.notebook")[1]["status"] == "ok"

    outputs, reply = run(kernel, "%%manimgen --model py:nb_model:make --strategy vanilla\nA blue circle\nturns into a square")
    assert reply["status"] == "ok", outputs
    (video,) = displayed(outputs)
    assert '<video controls loop' in video["text/html"] and 'type="video/mp4"' in video["text/html"]
    made = tmp_path / "runs/notebook/a-blue-circle-turns-into-a-square.mp4"
    assert made.is_file() and base64.b64encode(made.read_bytes()).decode()[:200] in video["text/html"], "the video itself, embedded"
    (handed,) = [payload for payload in reply["payload"] if payload["source"] == "set_next_input"]
    assert handed["text"] == f"%%manimgen_render --quality low --format mp4 --out runs/notebook\n{GOOD}"

    edited = GOOD.replace("BLUE", "GREEN")
    outputs, reply = run(kernel, f"%%manimgen_render --aspect 1:1 --format gif --out edited\n{edited}")
    assert reply["status"] == "ok", outputs
    (picture,) = displayed(outputs)
    gif = base64.b64decode(picture["image/gif"])
    assert gif[:6] == b"GIF89a" and int.from_bytes(gif[6:8], "little") == int.from_bytes(gif[8:10], "little") == 480, "a square GIF"
    assert [path.name for path in (tmp_path / "edited").glob("*.gif")] == ["circletosquare.gif"], "named after the scene class"

    (tmp_path / "scene.py").write_text(GOOD)
    outputs, reply = run(kernel, "%manimgen_render scene.py --format png")
    assert reply["status"] == "ok" and "image/png" in displayed(outputs)[0] and (tmp_path / "runs/notebook/scene.png").is_file()

    outputs, reply = run(kernel, "%%manimgen_render\nfrom manim import *\n\nclass Bad(Scene):\n    def construct(self):\n        self.play(Create(Circel()))\n")
    assert reply["status"] == "ok" and not displayed(outputs) and "code_error" in printed(outputs) and "Circel" in printed(outputs)

    for cell, message in [
        ("%%manimgen\n   ", "UsageError: write the sentence in the cell under %%manimgen"),
        ("%%manimgen --format avi\nA dot", "UsageError: unknown format 'avi'; choose one of: mp4, webm, gif, png"),
        ("%%manimgen --strategy best\nA dot", "UsageError: unknown strategy 'best'"),
        ("%manimgen_render", "UsageError: give scene code in the cell under %%manimgen_render, or a file"),
        ("%manimgen_render missing.py", "UsageError: cannot read missing.py"),
    ]:
        outputs, reply = run(kernel, cell)
        shown = printed(outputs) + "".join(message_["content"].get("evalue", "") for message_ in outputs if message_["msg_type"] == "error")
        assert message.removeprefix("UsageError: ") in shown, (cell, outputs)
        assert "Traceback" not in shown
