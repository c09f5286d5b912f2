"""Entry point that runs inside the sandbox: import the scene file, pick the scene, render it.

It replaces the `manim` command line so that scene choice never prompts, caching of partial movies
is off (it only costs time for one-shot renders), errors come out as plain tracebacks (what a model
can read), Manim writes its output to the fixed places protocol.py names, and the parent learns
which scene was rendered from one marked line on stdout (which it checks against the code, since the
scene's own code can print that line too). A crash in native code still prints the Python stack.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import faulthandler
import importlib.util
import json
import os
import platform
import re
import sys
import traceback
from pathlib import Path

from manimgen.manim_import import manim
from manimgen.render.protocol import EXIT_NO_SCENE, EXIT_USAGE, IMAGE_DIR, MEDIA_DIR, OUTPUT_STEM, RESULT_MARKER, VIDEO_DIR

MODULE_NAME = "scene"
# keyctl(2)'s number by architecture: the C library has no wrapper for it.
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1


def leave_inherited_keyring() -> None:
    """Join a new, empty session keyring before the scene's code runs: the one inherited from the host
    is possessed, so readable and writable whatever uid the render has."""
    number = KEYCTL_SYSCALL.get(platform.machine())
    if number is None:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0 and ctypes.get_errno() != errno.ENOSYS:
        raise OSError(ctypes.get_errno(), f"RenderSandboxError: could not leave the inherited keyring: {os.strerror(ctypes.get_errno())}")


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="manimgen-render-child")
    parser.add_argument("--file", required=True)
    parser.add_argument("--scene", default=None)
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--height", type=int, required=True)
    parser.add_argument("--fps", type=int, required=True)
    parser.add_argument("--frame-width", type=float, default=None, help="the frame's width in scene units (its height is 8); a host started before this option leaves Manim's")
    parser.add_argument("--geometry", default=None, help="write the scene's geometry snapshots (JSON) to this file")
    return parser.parse_args(argv)


def choose_scene(candidates: list[type], requested: str | None) -> type | None:
    """The named scene; else the only one; else the last-defined scene no other scene inherits from."""
    if requested is not None:
        return next((cls for cls in candidates if cls.__name__ == requested), None)
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    leaves = [cls for cls in candidates if not any(other is not cls and issubclass(other, cls) for other in candidates)]
    return leaves[-1]


def print_latex_errors(error: BaseException) -> None:
    """Append the `!` lines of a failed LaTeX run: manim's message only points at a log file the model cannot read."""
    match = re.search(r"the log file: (\S+\.log)", str(error))
    if match is None or not Path(match.group(1)).is_file():
        return
    lines = Path(match.group(1)).read_text(encoding="utf-8", errors="replace").splitlines()
    for index, line in enumerate(lines):
        if line.startswith("!"):
            print("\n".join(lines[index : index + 2]), file=sys.stderr)


def main(argv: list[str]) -> int:
    try:
        args = _parse_args(argv)
    except SystemExit as stop:
        if not stop.code:  # --help
            return 0
        print("RenderSandboxError: the render child does not understand the host's arguments (restart the process that renders after an upgrade)", file=sys.stderr)
        return EXIT_USAGE
    leave_inherited_keyring()
    faulthandler.enable()
    manim()
    from manim import Scene, config

    scratch = Path.cwd()
    config.media_dir = str(scratch / MEDIA_DIR)
    config.video_dir, config.images_dir = str(scratch / VIDEO_DIR), str(scratch / IMAGE_DIR)
    config.output_file = OUTPUT_STEM
    config.pixel_width, config.pixel_height, config.frame_rate = args.width, args.height, args.fps
    if args.frame_width is not None:
        config.frame_width = args.frame_width
    config.disable_caching = True
    config.progress_bar = "none"
    config.verbosity = "WARNING"

    spec = importlib.util.spec_from_file_location(MODULE_NAME, args.file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
        candidates = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Scene) and value.__module__ == MODULE_NAME
        ]
        scene_class = choose_scene(candidates, args.scene)
        if scene_class is None:
            names = ", ".join(cls.__name__ for cls in candidates) or "none"
            wanted = f"scene {args.scene!r} not found" if args.scene else "no Scene subclass defined"
            print(f"NoSceneError: {wanted} (scenes in file: {names})", file=sys.stderr)
            return EXIT_NO_SCENE
        scene = scene_class()
        recorder = None
        if args.geometry:
            from manimgen.render.geometry import GeometryRecorder

            recorder = GeometryRecorder(scene, Path(args.geometry), MODULE_NAME)
        scene.render()
        if recorder is not None:
            recorder.finish()
    except BaseException as error:  # noqa: BLE001 - any failure of generated code, SystemExit included, is a code error
        traceback.print_exc()
        print_latex_errors(error)
        return 1
    print(RESULT_MARKER + json.dumps({"scene": scene_class.__name__}), flush=True)
    return 0


def run(argv: list[str]) -> None:
    """Exit without waiting for threads: a scene that failed mid-play leaves Manim's writer thread blocked."""
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run(sys.argv[1:])
