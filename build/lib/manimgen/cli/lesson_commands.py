"""`manimgen lesson`: a topic (or a paragraph) to a narrated, subtitled lesson of several scenes, the
storyboard shown first and editable, every scene resumable."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from manimgen.agent.checked_search import DEFAULT_STRATEGY
from manimgen.cli.app import app, console, fail, literal
from manimgen.cli.choices import model_help, quality_help, strategy_help, voice_help
from manimgen.lesson.voice import DEFAULT_VOICE
from manimgen.render.result import DEFAULT_QUALITY

if TYPE_CHECKING:
    from manimgen.lesson import Lesson, LessonOptions, SceneOutcome, Storyboard, Voice
    from manimgen.llm.base import LLM

DEFAULT_LESSON_DIR = Path("runs") / "lesson"


@app.command()
def lesson(
    topic: Annotated[Optional[str], typer.Argument(help="what the lesson explains: a topic or a paragraph")] = None,
    scenes: Annotated[int, typer.Option(min=2, max=8, help="how many scenes the storyboard has")] = 3,
    voice: Annotated[str, typer.Option(help=voice_help())] = DEFAULT_VOICE,
    language: Annotated[str, typer.Option(help="the narration's language (an espeak-ng language code: en, fr, de, es, …)")] = "en",
    out: Annotated[Optional[Path], typer.Option(help="the lesson's folder (default runs/lesson/<slug>); a rerun into it keeps every finished scene")] = None,
    storyboard: Annotated[Optional[Path], typer.Option(help="an edited storyboard.json to make instead of asking the model for one")] = None,
    plan: Annotated[bool, typer.Option("--plan", help="write and show the storyboard, then stop, so it can be edited")] = False,
    redo: Annotated[Optional[list[int]], typer.Option(help="make scene N again even if it is finished (repeatable)")] = None,
    burn_subtitles: Annotated[bool, typer.Option("--burn-subtitles", help="also draw the subtitles onto the video")] = False,
    model: Annotated[Optional[str], typer.Option(help=model_help())] = None,
    strategy: Annotated[str, typer.Option(help=strategy_help())] = DEFAULT_STRATEGY,
    quality: Annotated[str, typer.Option(help=quality_help())] = DEFAULT_QUALITY,
    seed: Annotated[int, typer.Option(help="sampling seed of the storyboard and of every scene")] = 0,
) -> None:
    """Make a narrated lesson: a storyboard of scenes, each scene generated and checked, spoken, paced to its
    narration, subtitled (SRT and WebVTT) and joined into one MP4 with chapters."""
    from manimgen.cli.generate_commands import load_llm
    from manimgen.lesson import LessonError, LessonOptions, StoryboardError, VoiceError, load_storyboard, write_storyboard
    from manimgen.lesson.assemble import AssemblyError
    from manimgen.lesson.storyboard import STORYBOARD_FILE
    from manimgen.llm import LLMError
    from manimgen.render.result import get_quality
    from manimgen.serve.produce import RequestError, slug

    if (topic is None or not topic.strip()) and storyboard is None:
        fail('give a topic, e.g. manimgen lesson "Explain why the area of a circle is pi r squared", or --storyboard FILE')
    try:
        get_quality(quality)
        board = load_storyboard(storyboard) if storyboard is not None else None
    except (StoryboardError, ValueError) as error:
        fail(str(error))
    folder = out or DEFAULT_LESSON_DIR / slug(board.topic if board is not None else topic or "", 50)
    kept = folder / STORYBOARD_FILE
    if board is None and kept.is_file():
        try:
            earlier = load_storyboard(kept)
        except StoryboardError:
            earlier = None
        if earlier is not None and earlier.topic == (topic or "").strip() and len(earlier.scenes) == scenes:
            board = earlier
            console.print(Text(f"the storyboard of {kept} is kept (delete it for a new one)"), soft_wrap=True)
    speaker = _voice(voice, language)
    llm = None
    try:
        if board is None:
            llm, _ = load_llm(model)
            with console.status(f"writing a storyboard of {scenes} scenes …"):
                board = write_storyboard(llm, topic or "", scenes, language=language, seed=seed)
            folder.mkdir(parents=True, exist_ok=True)
            kept.write_text(board.to_json(), encoding="utf-8")
        _show(board)
        outside = [number for number in redo or () if not 1 <= number <= len(board.scenes)]
        if outside:
            fail(f"--redo {outside[0]}: the storyboard has scenes 1 to {len(board.scenes)}")
        if plan:
            source = storyboard or kept
            console.print(Text(f"storyboard: {source}\nedit it, then: manimgen lesson --storyboard {source} --out {folder}"), soft_wrap=True)
            return
        if llm is None:
            llm, _ = load_llm(model)
        options = LessonOptions(strategy=strategy, quality=quality, seed=seed, burn=burn_subtitles)
        result = _make(llm, board, folder, speaker, options, frozenset(redo or ()))
    except (StoryboardError, LessonError, VoiceError, AssemblyError, RequestError, LLMError) as error:
        fail(str(error))
    finally:
        if llm is not None:
            llm.close()
    cards = [outcome.number for outcome in result.scenes if outcome.fallback]
    console.print(Text.assemble(("ok", "green"), f" {len(result.scenes)} scenes, {result.seconds:.1f} s, {len(result.cues)} narration lines, voice {speaker.name}"))
    if cards:
        console.print(Text(f"scenes {', '.join(map(str, cards))} did not render and show their title only; edit their `shows` and rerun with --redo"), style="yellow")
    console.print(literal(f"{result.video}\n{folder / 'lesson.srt'}\n{folder / 'lesson.vtt'}\n{kept}"), soft_wrap=True)


def _make(llm: LLM, board: Storyboard, folder: Path, speaker: Voice, options: LessonOptions, redo: frozenset[int]) -> Lesson:
    """Make the lesson on a warm renderer, one progress step per scene."""
    from manimgen.lesson import make_lesson
    from manimgen.render import open_renderer

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with closing(open_renderer()) as renderer, Progress(*columns, console=console) as progress:
        bar = progress.add_task(f"scene 1: {board.scenes[0].title}"[:50], total=len(board.scenes))

        def on_scene(outcome: SceneOutcome) -> None:
            how = "kept" if not outcome.made else ("title card only" if outcome.fallback else "made")
            progress.console.print(Text.assemble(f"scene {outcome.number} ", (outcome.title, "bold"), f": {how}", (f" ({outcome.error})" if outcome.error else "", "dim")))
            label = f"scene {outcome.number + 1}: {board.scenes[outcome.number].title}" if outcome.number < len(board.scenes) else "assembling"
            progress.update(bar, advance=1, description=label[:50])

        return make_lesson(llm, board, folder, renderer=renderer, voice=speaker, options=options, redo=redo, on_scene=on_scene)


def _voice(spec: str, language: str) -> Voice:
    """The voice asked for; a missing local voice falls back to a silent, subtitled lesson with a warning."""
    from manimgen.lesson import VoiceError, open_voice
    from manimgen.lesson.voice import Silent
    from manimgen.registry import UnknownChoice

    try:
        return open_voice(spec, language)
    except UnknownChoice as error:
        fail(str(error))
    except VoiceError as error:
        console.print(Text(f"{error}; the lesson will be silent, with subtitles"), style="yellow", soft_wrap=True)
        return Silent()


def _show(board: Storyboard) -> None:
    table = Table(title=board.title, show_lines=True)
    for column in ("#", "scene", "narration", "shows (checked)"):
        table.add_column(column)
    for number, scene in enumerate(board.scenes, 1):
        checked = [item.phrase for item in (scene.checklist.requirements if scene.checklist else []) if item.kind != "look"]
        shows = scene.shows + (f"\n✓ {'; '.join(checked)}" if checked else "")
        table.add_row(str(number), scene.title, "\n".join(scene.narration), shows)
    console.print(table)
