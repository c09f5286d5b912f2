"""render(code) -> RenderResult: the one place that turns scene code into a video, through the sandbox.

Where the render child runs is a `ChildRunner`: a fresh sandbox per render (`FreshSandbox`, what
`render` uses) or a warm worker's fork (`render.warm`, what the pool uses). Everything around the
run (checks, argv, classification, output hand-over, caching) is this module's, so both give the
same RenderResult for the same outcome.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from manimgen.render.cache import RenderCache, default_cache, render_key, uncached_store
from manimgen.render.geometry import read_geometry
from manimgen.render.handover import HandoverError, Scratch, opened, parse_json, take_output, write_inside
from manimgen.render.protocol import EXIT_NO_SCENE, EXIT_USAGE, GEOMETRY_FILE, OUTPUTS, RESULT_MARKER
from manimgen.render.result import DEFAULT_QUALITY, RenderResult, RenderStatus, get_quality
from manimgen.render.sandbox import Completed, Limits, Sandbox, scene_user
from manimgen.render.volume import remove_tree
from manimgen.syntax import compile_error, defined_classes

ERROR_TAIL_LINES = 10
SCENE_FILE = "scene.py"
CHILD_MODULE = "manimgen.render.child"
LATEX_SIGNS = ("latex error converting", "LaTeX Error", "dvisvgm", "! Undefined control sequence", "! Missing")
MISSING_TEX_PROGRAM = re.compile(r"No such file or directory: '(latex|xelatex|lualatex|pdflatex|dvisvgm)'")
LIMIT_SIGNALS = {signal.SIGXCPU: "the CPU time limit", signal.SIGXFSZ: "the file size limit"}
MAX_REPORT_CHARS = 200


class ChildRunner(Protocol):
    """Where render/child.py runs, under `limits`."""

    limits: Limits

    def scratch(self) -> AbstractContextManager[Scratch]:
        """A fresh, empty folder, opened by the host, that is one render's only writable place; removed afterwards."""
        ...

    def run_child(self, child_args: list[str], scratch: Scratch) -> Completed:
        """Run the child with `child_args` and `scratch` as cwd, HOME and TMPDIR; never raises for what it does."""
        ...

    def close(self) -> None:
        """Give back what the runner holds (a warm worker and its folders)."""
        ...


class FreshSandbox:
    """The cold path: a new sandboxed interpreter per render, which pays Manim's import every time."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._sandbox = Sandbox(limits)

    @contextmanager
    def scratch(self) -> Iterator[Scratch]:
        user = scene_user()
        folder = Path(tempfile.mkdtemp(prefix=f"manimgen-render-{os.getpid()}-"))
        try:
            volume = self._sandbox.volume(folder / "scratch", user)
            try:
                with opened(volume.path, user) as scratch:
                    yield scratch
            finally:
                volume.close()
        finally:
            remove_tree(folder)

    def run_child(self, child_args: list[str], scratch: Scratch) -> Completed:
        return self._sandbox.run([sys.executable, "-m", CHILD_MODULE, *child_args], scratch.path, scratch.user)

    def close(self) -> None:
        """Nothing outlives a fresh sandbox's render."""


def signal_reason(number: int) -> str:
    """`SIGSEGV: segmentation fault`, with the limit behind it for the signals a limit sends."""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    description = (signal.strsignal(number) or name).lower()
    limit = LIMIT_SIGNALS.get(signal.Signals(number))
    return f"{name}: {description}" + (f" ({limit})" if limit else "")


def _native_crash(stderr: str) -> str | None:
    """The Python stack the child printed when native code crashed, cut to its scene lines.

    Python prints the innermost frame first, then Manim's, ours and a long list of extension
    modules, so the last lines of the output would hold everything but the scene's own line.
    """
    start = stderr.rfind("Fatal Python error:")
    if start < 0:
        return None
    lines = stderr[start:].splitlines()
    return "\n".join([lines[0], *(line for line in lines if line.strip().startswith(f'File "{SCENE_FILE}"'))])


def _last_lines(text: str, count: int = ERROR_TAIL_LINES) -> str:
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def _without_scratch(tail: str, scratch: Path) -> str:
    """The tail with the scratch folder's random path cut out (`File "scene.py", line 7`): the same
    failure then reads the same in every render, so a repair prompt, and a seeded answer to it,
    does not depend on which temporary folder the render happened to get."""
    return tail.replace(f"{scratch}{os.sep}", "")


def _classify(done: Completed, limits: Limits) -> tuple[RenderStatus, str]:
    """Map how the child ended to a status and the error lines a model should see."""
    if done.killed_by == "timeout":
        return RenderStatus.TIMEOUT, f"TimeoutError: the render did not finish within {limits.timeout_s:g} s"
    if done.killed_by == "sandbox":
        return RenderStatus.SANDBOX_ERROR, _last_lines(done.stderr_tail)
    if done.killed_by == "disk quota":
        return RenderStatus.CODE_ERROR, f"OSError: the scene wrote more than {limits.disk_bytes >> 20} MiB to disk"
    if done.killed_by in ("stdout log", "stderr log"):
        stream = done.killed_by.split()[0]
        return RenderStatus.CODE_ERROR, f"OSError: the scene printed more than {limits.file_size_bytes >> 20} MiB to {stream}, the log limit"
    tail = _last_lines(done.stderr_tail)
    if done.killed_by == "memory":
        cap = f"MemoryError: the render's processes together went over the {limits.memory_bytes >> 20} MiB memory limit"
        return RenderStatus.CODE_ERROR, _last_lines(f"{tail}\n{cap}")
    if done.returncode == EXIT_NO_SCENE:
        return RenderStatus.NO_SCENE, tail
    if done.returncode == EXIT_USAGE:
        return RenderStatus.SANDBOX_ERROR, tail
    if done.returncode is not None and done.returncode < 0:
        crash = _native_crash(done.stderr_tail) or tail
        return RenderStatus.CODE_ERROR, _last_lines(f"{crash}\nKilled by {signal_reason(-done.returncode)}")
    if "bwrap:" in done.stderr_tail and "Traceback" not in done.stderr_tail:
        return RenderStatus.SANDBOX_ERROR, tail
    missing_program = MISSING_TEX_PROGRAM.search(done.stderr_tail)
    if missing_program:
        program = missing_program.group(1)
        hint = "texlive-xetex" if program == "xelatex" else "texlive-luatex" if program == "lualatex" else "the LaTeX packages"
        return RenderStatus.LATEX_ERROR, _last_lines(f"{tail}\n{program} is not installed: install {hint} (`manimgen doctor` lists the base set)")
    if any(sign in done.stderr_tail for sign in LATEX_SIGNS):
        if shutil.which("latex") is None:
            tail = _last_lines(f"{tail}\nLaTeX is not installed: run `manimgen doctor` for the install command")
        return RenderStatus.LATEX_ERROR, tail
    return RenderStatus.CODE_ERROR, tail


class Refused(Exception):
    """The render exited cleanly, but what it left is not taken: `status` and `message` say why."""

    def __init__(self, status: RenderStatus, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _reported_scene(stdout: str, code: str, requested: str | None) -> str:
    """The scene the child says it rendered, accepted only as a class the code defines (or the one asked for).

    The scene's code can print the report line itself, so nothing in it is trusted: a malformed
    line, or a name that is not one of the code's own classes, is refused.
    """
    line = next((line for line in reversed(stdout.splitlines()) if line.startswith(RESULT_MARKER)), None)
    if line is None:
        raise Refused(RenderStatus.NO_OUTPUT, "the render ended without reporting a scene (did the code exit early?)")
    payload = parse_json(line[len(RESULT_MARKER) :])
    name = payload.get("scene") if isinstance(payload, dict) else None
    if not isinstance(name, str):
        raise Refused(RenderStatus.CODE_ERROR, "RenderReportError: the render's report could not be read")
    if name not in ({requested} if requested else defined_classes(code)) or not name.isidentifier():
        message = f"RenderReportError: the render reported scene {name[:MAX_REPORT_CHARS]!r}, which the code does not define"
        raise Refused(RenderStatus.CODE_ERROR, message)
    return name


def _hand_over(scratch: Scratch, keep_in: Path, name: str, max_bytes: int) -> Path:
    """The output copied into `keep_in` as `name` + its suffix, under a name the host chose."""
    keep_in.mkdir(parents=True, exist_ok=True)
    try:
        kept = take_output(scratch, OUTPUTS, keep_in / name, max_bytes)
    except HandoverError as error:
        raise Refused(RenderStatus.CODE_ERROR, str(error)) from None
    except OSError as error:
        raise Refused(RenderStatus.CODE_ERROR, f"RenderOutputError: the output could not be read ({error.strerror})") from None
    if kept is None:
        raise Refused(RenderStatus.NO_OUTPUT, "the scene rendered but wrote no video or image")
    return kept


def render_uncached(
    code: str,
    scene: str | None = None,
    quality: str = DEFAULT_QUALITY,
    *,
    runner: ChildRunner,
    keep_in: Path,
    geometry: bool = False,
) -> RenderResult:
    """Render through `runner`; a produced file is moved into `keep_in`. `geometry` records the layout."""
    settings = get_quality(quality)
    started = time.monotonic()
    if not code.strip():
        return RenderResult(RenderStatus.CODE_ERROR, None, scene, "ValueError: no code to render", quality, 0.0)
    syntax = compile_error(code, SCENE_FILE)
    if syntax:
        return RenderResult(RenderStatus.CODE_ERROR, None, scene, _last_lines(syntax), quality, time.monotonic() - started)
    argv = ["--file", SCENE_FILE, "--width", str(settings.width), "--height", str(settings.height), "--fps", str(settings.fps)]
    argv += ["--frame-width", repr(settings.frame_width)]
    argv += ["--scene", scene] if scene else []
    argv += ["--geometry", GEOMETRY_FILE] if geometry else []
    try:
        with runner.scratch() as scratch:
            write_inside(scratch, SCENE_FILE, code)
            done = runner.run_child(argv, scratch)
            seconds = time.monotonic() - started
            if done.returncode != 0 or done.killed_by is not None:
                status, tail = _classify(replace(done, stderr_tail=_without_scratch(done.stderr_tail, scratch.path)), runner.limits)
                return RenderResult(status, None, scene, tail, quality, seconds)
            try:
                chosen = _reported_scene(done.stdout_tail, code, scene)
                kept = _hand_over(scratch, keep_in, chosen, runner.limits.file_size_bytes)
            except Refused as refusal:
                return RenderResult(refusal.status, None, scene, refusal.message, quality, seconds)
            layout = read_geometry(scratch) if geometry else None
            return RenderResult(RenderStatus.OK, kept, chosen, "", quality, seconds, geometry=layout)
    except Exception as error:  # noqa: BLE001 - the host's own side failed (a folder, a worker): a status, never a raise
        message = f"RenderSandboxError: the host could not run or clean up the render ({type(error).__name__}: {error})"
        return RenderResult(RenderStatus.SANDBOX_ERROR, None, scene, message, quality, time.monotonic() - started)


def render(
    code: str,
    scene: str | None = None,
    quality: str = DEFAULT_QUALITY,
    *,
    timeout_s: float | None = None,
    use_cache: bool = True,
    limits: Limits | None = None,
    cache: RenderCache | None = None,
    geometry: bool = False,
) -> RenderResult:
    """Render `code` (one Manim scene file) in a fresh sandbox, reusing a cached identical render.

    `geometry=True` also records the scene's layout into `RenderResult.geometry` (cached separately).
    """
    limits = limits or Limits()
    if timeout_s is not None:
        limits = replace(limits, timeout_s=timeout_s)
    return render_on(FreshSandbox(limits), code, scene, quality, use_cache=use_cache, cache=cache, geometry=geometry)


def render_on(
    runner: ChildRunner,
    code: str,
    scene: str | None = None,
    quality: str = DEFAULT_QUALITY,
    *,
    use_cache: bool = True,
    cache: RenderCache | None = None,
    geometry: bool = False,
) -> RenderResult:
    """`render` through a given runner: the pool passes its warm workers here."""
    key = render_key(code, scene, quality, geometry=geometry)
    store = (cache or default_cache()) if use_cache else uncached_store()
    if use_cache:
        hit = store.get(key)
        if hit is not None:
            return hit
    with tempfile.TemporaryDirectory(prefix="manimgen-out-") as tmp:
        result = render_uncached(code, scene, quality, runner=runner, keep_in=Path(tmp), geometry=geometry)
        return store.put(key, result, fresh=not use_cache)
