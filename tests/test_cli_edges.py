"""The command line at its edges: text from renders and models shown literally, bad input refused in one line.

Every command runs as the real CLI (typer's CliRunner in this process, or `python -m manimgen.cli` as a
separate one); a command may end with an exit status but never with an exception.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from manimgen.cli import app
from manimgen.cli.app import literal
from manimgen.render import RenderResult, RenderStatus

MARKUP = "Error reading [/etc/manim.cfg]\nscene said [green]ok[/green] and [bold red]"
SCENE_HINT = "pass a Python file holding a Manim scene"
EMPTY_SENTENCE = 'error: the sentence is empty: describe the animation, e.g. "A blue circle turns into a red square"'


def invoke(*args: str, **env: str) -> Result:
    """Run the CLI in this process; an exception (a traceback for a user) fails the test."""
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", **env})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def printed(text: object) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(text)
    return console.file.getvalue()


def test_literal_text_is_never_markup() -> None:
    assert printed(literal(MARKUP)) == MARKUP + "\n"
    assert printed(literal("progress 10%\rprogress 100%\n\x1b[31mred\x07")) == "progress 100%\n\\x1b[31mred\\x07\n"


def test_literal_text_has_a_bounded_size() -> None:
    one_line = literal("x" * 10**7).plain
    assert len(one_line) < 400 and one_line.endswith(f"… ({10**7 - 300} more characters)")
    many_lines = literal("".join(f"line {index}\n" for index in range(10**5))).plain.splitlines()
    assert len(many_lines) == 41
    assert many_lines[0] == f"… {10**5 - 40} earlier lines not shown" and many_lines[-1] == f"line {10**5 - 1}"


class Answering:
    """A renderer whose every render gives `result`: what a scene that prints anything could make the CLI show."""

    def __init__(self, result: RenderResult) -> None:
        self.result = result

    def render(self, job: object) -> RenderResult:
        return self.result

    def close(self) -> None:
        """Nothing was started."""


def test_render_error_tail_is_printed_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = tmp_path / "scene.py"
    scene.write_text("from manim import *\n")
    failed = RenderResult(RenderStatus.CODE_ERROR, None, None, MARKUP + "\n" + "y" * 10**6, "low", 1.0)
    monkeypatch.setattr("manimgen.render.open_renderer", lambda *args, **kwargs: Answering(failed))
    result = invoke("render", str(scene))
    assert result.exit_code == 1
    assert result.output.splitlines()[:3] == ["code_error after 1.0 s", *MARKUP.splitlines()]
    assert len(result.output) < 1000


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("scene.bin", b"\x89PNG\r\n\x1a\n\xff\xfe", "scene.bin is not a UTF-8 text file"),
        ("nul.py", b"from manim import *\n\x00\n", "nul.py is not a UTF-8 text file"),
        ("folder", None, "folder is a directory"),
        ("missing.py", None, "missing.py does not exist"),
    ],
)
def test_render_refuses_what_is_not_a_scene_file(
    name: str, content: bytes | None, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / name).write_bytes(content)
    elif name == "folder":
        (tmp_path / name).mkdir()
    monkeypatch.setattr("manimgen.render.render", lambda *args, **kwargs: pytest.fail("rendered a bad file"))
    result = invoke("render", name)
    assert (result.exit_code, result.output) == (2, f"error: {message}: {SCENE_HINT}\n")


def test_score_refuses_a_binary_scene_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scene.bin").write_bytes(b"\xff\xfe\x00")
    result = invoke("score", "--task", "circle-to-square", "--code", "scene.bin")
    assert (result.exit_code, result.output) == (2, f"error: scene.bin is not a UTF-8 text file: {SCENE_HINT}\n")


@pytest.mark.parametrize("sentence", ["", "   \n\t"])
def test_generate_refuses_an_empty_sentence_before_loading_a_model(sentence: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_model(*args: object, **kwargs: object) -> None:
        pytest.fail("a model was loaded for an empty sentence")

    monkeypatch.setattr("manimgen.llm.load_model", no_model)
    monkeypatch.setattr("manimgen.llm.ensure_gguf", no_model)
    result = invoke("generate", sentence)
    assert (result.exit_code, result.output) == (2, EMPTY_SENTENCE + "\n")


def test_generate_with_a_server_that_is_down_names_it_and_never_says_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("manimgen.llm.openai_compat.OpenAICompatLLM._wait", lambda self, state: 0.0)
    result = invoke("generate", "A blue circle", "--model", "openai:http://127.0.0.1:9/v1#m", "--strategy", "vanilla")
    assert result.exit_code == 2
    assert result.output == (
        "error: cannot reach http://127.0.0.1:9/v1/chat/completions (ConnectError): "
        "start the server or fix the URL in the spec\n"
    )


def test_generate_says_ready_after_the_first_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "edge_model.py").write_text(
        "from manimgen.llm.scripted import ScriptedLLM\n\n\n"
        "def make():\n    return ScriptedLLM('I cannot draw [green]ok[/green].', name='scripted')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = invoke("generate", "A blue circle", "--model", "py:edge_model:make", "--strategy", "vanilla")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("model scripted ready: loaded in ") and "first answer in" in lines[0]
    assert lines[1].startswith("round 1 generate") and "no code" in lines[1]
    assert lines[2].startswith("failed (no code in the final answer)")


def write_dataset(folder: Path, *rows: str) -> Path:
    folder.mkdir()
    if rows:
        (folder / "manimbench_v2.jsonl").write_text("\n".join(rows) + "\n")
    return folder


@pytest.mark.parametrize("command", [("tasks", "--split", "test"), ("refs", "render", "--split", "test")])
def test_missing_or_malformed_dataset_is_one_line(command: tuple[str, ...], tmp_path: Path) -> None:
    empty = write_dataset(tmp_path / "empty")
    result = invoke(*command, MANIMGEN_MANIMBENCH=str(empty))
    assert (result.exit_code, result.output) == (
        2,
        f"error: {empty} holds neither manimbench_v2.jsonl nor manim_sft_dataset_v2.parquet; "
        "set MANIMGEN_MANIMBENCH to the ManimBench v2 folder\n",
    )
    broken = write_dataset(tmp_path / "broken", "{not json")
    result = invoke(*command, MANIMGEN_MANIMBENCH=str(broken))
    assert (result.exit_code, result.output) == (
        2,
        f"error: {broken / 'manimbench_v2.jsonl'}:1 is not JSON "
        "(Expecting property name enclosed in double quotes); fix or remove that line\n",
    )
    listed = write_dataset(tmp_path / "listed", "[1, 2]")
    result = invoke(*command, MANIMGEN_MANIMBENCH=str(listed))
    assert (result.exit_code, result.output) == (
        2,
        f"error: {listed / 'manimbench_v2.jsonl'}:1 is not a JSON object but list; fix or remove that line\n",
    )
    row = '{"row": "seven", "Reviewed Description": "d", "Code": "c", "Type": "Basic", "Split": "test"}'
    named = write_dataset(tmp_path / "named", row)
    result = invoke(*command, MANIMGEN_MANIMBENCH=str(named))
    assert (result.exit_code, result.output) == (
        2,
        "error: ManimBench row 'seven': field 'row' must be a whole number ≥ 0; fix or remove that row\n",
    )


def test_tasks_without_a_dataset_in_a_separate_process(tmp_path: Path) -> None:
    empty = write_dataset(tmp_path / "empty")
    env = {"PATH": "/usr/bin:/bin", "MANIMGEN_MANIMBENCH": str(empty), "COLUMNS": "200", "HOME": str(tmp_path)}
    finished = subprocess.run(
        [sys.executable, "-m", "manimgen.cli", "tasks", "--split", "test"], env=env, capture_output=True, text=True, timeout=120
    )
    assert finished.returncode == 2
    assert "Traceback" not in finished.stdout + finished.stderr
    assert finished.stdout.splitlines() == [
        f"error: {empty} holds neither manimbench_v2.jsonl nor manim_sft_dataset_v2.parquet; "
        "set MANIMGEN_MANIMBENCH to the ManimBench v2 folder"
    ]


def test_task_descriptions_are_listed_as_written(tmp_path: Path) -> None:
    row = (
        '{"row": 7, "Reviewed Description": "Show [/etc/manim.cfg] then [green]ok[/green]", '
        '"Code": "from manim import *", "Type": "Basic", "Split": "test"}'
    )
    dataset = write_dataset(tmp_path / "one", row)
    result = invoke("tasks", "--split", "test", MANIMGEN_MANIMBENCH=str(dataset))
    assert result.exit_code == 0
    assert "Show [/etc/manim.cfg] then [green]ok[/green]" in result.output


def test_a_real_scene_error_with_markup_prints_as_written(tmp_path: Path) -> None:
    scene = tmp_path / "markup.py"
    scene.write_text(
        "from manim import *\n\nclass Markup(Scene):\n    def construct(self):\n"
        "        raise RuntimeError('cannot read [/etc/manim.cfg]; [green]ok[/green]' + 'z' * 5_000)\n"
    )
    result = CliRunner().invoke(app, ["render", str(scene), "--no-cache", "--timeout", "60"], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "RuntimeError: cannot read [/etc/manim.cfg];" in result.output and "[green]ok[/green]zzz" in result.output
    assert "more characters)" in result.output
    assert len(result.output) < 10_000


MISSING_PART = """import sys
sys.modules[{module!r}] = None
sys.argv = ["manimgen", *{argv!r}]
from manimgen.cli import main
main()
"""


@pytest.mark.parametrize(
    ("module", "argv", "part"),
    [("fastapi", ["serve", "--port", "0"], "serve"), ("trl", ["train", "sft", "--help"], None), ("IPython", [], None)],
)
def test_a_command_whose_part_is_not_installed_names_it_in_one_line(module: str, argv: list[str], part: str | None, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", MISSING_PART.format(module=module, argv=argv)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    if part is None:
        assert done.returncode in (0, 2) and "needs manimgen's" not in done.stdout, "a help text or the command list needs no part"
        return
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    assert done.stdout.strip() == (
        f"error: this needs manimgen's `{part}` part (no module {module!r}): pip install -e '.[{part}]' in the checkout, "
        f"or pip install 'manimgen[{part}]'"
    )


def test_every_part_is_an_extra_of_the_package_and_brings_its_modules() -> None:
    import importlib.util
    import tomllib

    from manimgen.extras import EXTRAS, extra_for

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    missing = [module for modules in EXTRAS.values() for module in modules if importlib.util.find_spec(module) is None]
    assert missing == [], "the test set-up installs every part"
    assert (extra_for("trl.trainer"), extra_for("manim")) == ("train", None), "a dotted name by its top; the core is no part"


def test_doctor_lists_a_missing_part_as_not_installed_not_as_a_fault(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MISSING_PART.format(module="IPython", argv=["doctor"])],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env={**os.environ, "COLUMNS": "250"},
    )
    rows = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if line.count("│") > 3}
    assert "not installed" in rows["part: notebook"] and "pip install -e '.[notebook]'" in rows["part: notebook"]
    assert "ok" in rows["part: serve"] and "ok" in rows["environment"]
