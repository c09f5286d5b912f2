"""Jupyter and IPython magics: `%load_ext manimgen.notebook`, then

    %%manimgen [--model M] [--strategy S] [--quality Q] [--aspect 9:16 | --resolution WxH] [--format gif]
    A blue circle turns into a red square

makes the video with the engine `manimgen generate` uses (serve/produce.py), shows it under the cell,
and puts the scene's code into the next cell under `%%manimgen_render`, so an edit is one run away.
`%%manimgen_render [options]` renders a cell's scene code as it is; `%manimgen_render FILE` a file.
Videos and code go to `runs/notebook/` (`--out` moves them). The model stays loaded between cells.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import Image, Video, display

from manimgen.agent.checked_search import DEFAULT_STRATEGY
from manimgen.llm import DEFAULT_MODEL, LLMError, load_model
from manimgen.llm.base import LLM
from manimgen.render import Renderer, RenderJob, open_renderer
from manimgen.render.formats import DEFAULT_FORMAT, DeliveryError, deliver, media_type, output_spec
from manimgen.render.result import DEFAULT_QUALITY, printable
from manimgen.serve.produce import Request, produce, slug

OUT_DIR = Path("runs") / "notebook"
T = TypeVar("T")
EMPTY_CELL = "write the sentence in the cell under %%manimgen, e.g. A blue circle turns into a red square"
NO_CODE = "give scene code in the cell under %%manimgen_render, or a file: %manimgen_render scene.py"


def _output_options(function: Any) -> Any:
    """The options both magics share: the delivered file's quality, frame, format and folder."""
    for option in (
        argument("--out", default=str(OUT_DIR), help="the folder for the video and its code"),
        argument("--format", dest="video_format", default=DEFAULT_FORMAT, help="mp4, webm, gif or png"),
        argument("--resolution", default=None, help="exact pixels WIDTHxHEIGHT, e.g. 1080x1920"),
        argument("--aspect", default=None, help="16:9, 9:16 or 1:1"),
        argument("--quality", default=DEFAULT_QUALITY, help="low, preview, medium or high"),
    ):
        function = option(function)
    return function


@magics_class
class ManimgenMagics(Magics):
    """The two magics, holding each model they loaded and one warm render pool, so the next cell starts neither again."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self._models: dict[str, LLM] = {}
        self._renderer: Renderer | None = None

    @magic_arguments()
    @argument("--model", default=DEFAULT_MODEL, help="a model name or spec (manimgen models)")
    @argument("--strategy", default=DEFAULT_STRATEGY, help="an agent strategy (manimgen strategies)")
    @_output_options
    @line_cell_magic
    def manimgen(self, line: str, cell: str | None = None) -> None:
        """Make a video from the sentence in the cell; show it; put its scene code in the next cell."""
        args = parse_argstring(self.manimgen, line)
        sentence = " ".join((cell or "").split())
        if not sentence:
            raise UsageError(EMPTY_CELL)
        request = _refusing(lambda: Request(sentence, args.strategy, _spec(args), args.video_format))
        product = produce(self._model(args.model), request, Path(args.out) / slug(sentence), renderer=self.renderer)
        if product.code is not None:
            flags = _flags(quality=args.quality, aspect=args.aspect, resolution=args.resolution, format=args.video_format, out=args.out)
            self.shell.set_next_input(f"%%manimgen_render {flags}\n{product.code.read_text(encoding='utf-8')}", replace=False)
        if product.video is None:
            print(f"no video: {printable(product.error or 'the scene did not render')}")
            return
        _show(product.video)

    @magic_arguments()
    @argument("file", nargs="?", default=None, help="a scene file (else the cell's code)")
    @_output_options
    @line_cell_magic
    def manimgen_render(self, line: str, cell: str | None = None) -> None:
        """Render scene code (the cell's, or a file's) in the sandbox, as it is, and show the video."""
        args = parse_argstring(self.manimgen_render, line)
        code = cell if cell is not None and cell.strip() else _read(args.file)
        spec = _spec(args)
        result = self.renderer.render(RenderJob(code, quality=spec))
        if not result.ok or result.output is None:
            print(f"{result.status.value}: {result.error_tail.strip() or 'no output'}")
            return
        name = Path(args.file).stem if args.file else slug(result.scene or "scene")
        try:
            _show(deliver(result.output, Path(args.out) / name, args.video_format))
        except DeliveryError as error:
            print(f"no video: {error}")

    @property
    def renderer(self) -> Renderer:
        if self._renderer is None:
            self._renderer = open_renderer()
        return self._renderer

    def _model(self, spec: str) -> LLM:
        if spec not in self._models:
            try:
                self._models[spec] = load_model(spec)
            except LLMError as error:
                raise UsageError(str(error)) from None
        return self._models[spec]

    def close(self) -> None:
        for llm in self._models.values():
            llm.close()
        self._models.clear()
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def _spec(args: Any) -> str:
    return _refusing(lambda: output_spec(args.quality, args.aspect, args.resolution, args.video_format))


def _refusing(make: Callable[[], T]) -> T:
    """What `make` returns; a bad option as a one-line UsageError naming the fix."""
    try:
        return make()
    except ValueError as error:
        raise UsageError(str(error)) from None


def _flags(**values: str | None) -> str:
    """The options given, as the next cell's magic line repeats them."""
    return " ".join(f"--{name} {shlex.quote(value)}" for name, value in values.items() if value is not None)


def _read(file: str | None) -> str:
    if not file:
        raise UsageError(NO_CODE)
    try:
        return Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {file} ({error}); give a Python file holding a Manim scene") from None


def _show(path: Path) -> None:
    """The video under the cell (embedded, so the notebook keeps it), or the picture for a GIF or PNG."""
    kind = media_type(path)
    if kind.startswith("image/"):
        display(Image(filename=str(path)))
    else:
        display(Video(str(path), embed=True, mimetype=kind, html_attributes="controls loop"))
    print(path)


_magics: ManimgenMagics | None = None


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext manimgen.notebook`."""
    global _magics
    _magics = ManimgenMagics(ipython)
    ipython.register_magics(_magics)


def unload_ipython_extension(ipython: Any) -> None:
    """`%unload_ext manimgen.notebook`: the loaded models are closed."""
    if _magics is not None:
        _magics.close()
