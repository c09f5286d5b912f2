"""render(code) -> RenderResult: the one place that turns scene code into a video, through the sandbox.

Where the render child runs is a `ChildRunner`: a fresh sandbox per render (`FreshSandbox`, what
`render` uses) or a warm worker's fork (`render.warm`, what the pool uses). Everything around the
run (checks, argv, classification, output hand-over, caching) is this module's, so both give the
same RenderResult for the same outcome.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Protocol

from manimgen.render.cache import RenderCache, cache_root, render_key
from manimgen.render.geometry import read_geometry
from manimgen.render.protocol import EXIT_NO_SCENE, RESULT_MARKER
from manimgen.render.result import DEFAULT_QUALITY, RenderResult, RenderStatus, get_quality
from manimgen.render.sandbox import Completed, Limits, Sandbox

ERROR_TAIL_LINES = 10
SCENE_FILE = "scene.py"
GEOMETRY_FILE = "geometry.json"
CHILD_MODULE = "manimgen.render.child"
LATEX_SIGNS = ("latex error converting", "LaTeX Error", "dvisvgm", "! Undefined control sequence", "! Missing")
MISSING_TEX_PROGRAM = re.compile(r"No such file or directory: '(latex|xelatex|lualatex|pdflatex|dvisvgm)'")
SIGNAL_NAMES = {9: "SIGKILL (memory or process limit)", 24: "SIGXCPU (CPU time limit)", 25: "SIGXFSZ (file size limit)"}


class ChildRunner(Protocol):
    """Where render/child.py runs, under `limits`."""

    limits: Limits

    def scratch(self) -> AbstractContextManager[Path]:
        """A fresh, empty directory that is the render's only writable place; removed afterwards."""
        ...

    def run_child(self, child_args: list[str], scratch: Path) -> Completed:
        """Run the child with `child_args` and `scratch` as cwd, HOME and TMPDIR; never raises for what it does."""
        ...


class FreshSandbox:
    """The cold path: a new sandboxed interpreter per render, which pays Manim's import every time."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._sandbox = Sandbox(limits)

    @contextmanager
    def scratch(self) -> Iterator[Path]:
        with tempfile.TemporaryDirectory(prefix="manimgen-render-") as tmp:
            scratch = Path(tmp) / "scratch"
            scratch.mkdir()
            yield scratch

    def run_child(self, child_args: list[str], scratch: Path) -> Completed:
        return self._sandbox.run([sys.executable, "-m", CHILD_MODULE, *child_args], scratch)


@cache
def default_cache() -> RenderCache:
    return RenderCache()


def _last_lines(text: str, count: int = ERROR_TAIL_LINES) -> str:
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def _without_scratch(tail: str, scratch: Path) -> str:
    """The tail with the scratch folder's random path cut out (`File "scene.py", line 7`): the same
    failure then reads the same in every render, so a repair prompt, and a seeded answer to it,
    does not depend on which temporary folder the render happened to get."""
    return tail.replace(f"{scratch}{os.sep}", "")


def _syntax_error(code: str) -> str | None:
    """Python's own message for code that cannot compile: no need to start a render for it."""
    try:
        compile(code, SCENE_FILE, "exec")
    except SyntaxError as error:
        import traceback

        return "".join(traceback.format_exception_only(error)).rstrip()
    except ValueError as error:
        return f"ValueError: {error}"
    return None


def _classify(done: Completed, limits: Limits) -> tuple[RenderStatus, str]:
    """Map how the child ended to a status and the error lines a model should see."""
    if done.killed_by == "timeout":
        return RenderStatus.TIMEOUT, f"TimeoutError: the render did not finish within {limits.timeout_s:g} s"
    if done.killed_by == "sandbox":
        return RenderStatus.SANDBOX_ERROR, _last_lines(done.stderr_tail)
    if done.killed_by == "disk quota":
        return RenderStatus.CODE_ERROR, f"OSError: the scene wrote more than {limits.disk_bytes >> 20} MiB to disk"
    tail = _last_lines(done.stderr_tail)
    if done.returncode == EXIT_NO_SCENE:
        return RenderStatus.NO_SCENE, tail
    if done.returncode is not None and done.returncode < 0:
        reason = SIGNAL_NAMES.get(-done.returncode, f"signal {-done.returncode}")
        return RenderStatus.CODE_ERROR, _last_lines(f"{tail}\nKilled by {reason}")
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


def _reported_output(stdout: str) -> tuple[str | None, str | None]:
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            payload = json.loads(line[len(RESULT_MARKER) :])
            return payload.get("scene"), payload.get("output")
    return None, None


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
    syntax = _syntax_error(code)
    if syntax:
        return RenderResult(RenderStatus.CODE_ERROR, None, scene, _last_lines(syntax), quality, time.monotonic() - started)
    with runner.scratch() as scratch:
        (scratch / SCENE_FILE).write_text(code, encoding="utf-8")
        argv = ["--file", SCENE_FILE]
        argv += ["--width", str(settings.width), "--height", str(settings.height), "--fps", str(settings.fps)]
        argv += ["--media-dir", str(scratch / "media")]
        if scene:
            argv += ["--scene", scene]
        if geometry:
            argv += ["--geometry", GEOMETRY_FILE]
        done = runner.run_child(argv, scratch)
        chosen, output = _reported_output(done.stdout_tail) if done.returncode == 0 else (None, None)
        seconds = time.monotonic() - started
        if done.returncode == 0 and done.killed_by is None:
            produced = Path(output) if output else None
            if produced is None or not produced.is_file() or not produced.resolve().is_relative_to(scratch.resolve()):
                return RenderResult(RenderStatus.NO_OUTPUT, None, chosen or scene, "the scene rendered but wrote no video or image", quality, seconds)
            keep_in.mkdir(parents=True, exist_ok=True)
            kept = keep_in / f"{chosen}{produced.suffix}"
            shutil.move(produced, kept)
            layout = read_geometry(scratch / GEOMETRY_FILE) if geometry else None
            return RenderResult(RenderStatus.OK, kept, chosen, "", quality, seconds, geometry=layout)
        status, tail = _classify(done, runner.limits)
        return RenderResult(status, None, scene, _without_scratch(tail, scratch), quality, seconds)


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
    store = (cache or default_cache()) if use_cache else None
    if store is not None:
        hit = store.get(key)
        if hit is not None:
            return hit
    with tempfile.TemporaryDirectory(prefix="manimgen-out-") as tmp:
        keep_in = Path(tmp) if store is not None else cache_root() / "renders-uncached" / key
        result = render_uncached(code, scene, quality, runner=runner, keep_in=keep_in, geometry=geometry)
        return store.put(key, result) if store is not None else result
