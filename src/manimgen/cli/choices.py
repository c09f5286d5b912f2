"""The CLI's help texts and the documentation's tables of choices, built from the registries.

Strategies, models, providers, render qualities, aspects and formats, splits, embedders, DTW methods and metrics each have one
registry; the help of every option that picks one, and the tables in the README and docs/ (cog blocks,
`[[[cog cog.outl(choices.table("NAME"))]]]`), are made from it here, so adding a strategy, a model or a
metric touches one file (`scripts/write_choices.py` runs cog over the pages; a test checks them).
"""

from __future__ import annotations

import typing
from collections.abc import Callable

from manimgen.agent import STRATEGIES
from manimgen.data.task import Split
from manimgen.extras import EXTRAS, PURPOSES
from manimgen.lesson.voice import DEFAULT_VOICE, ENDPOINT_HELP, VOICES
from manimgen.llm import MODELS, PROVIDERS, spec_help
from manimgen.metrics import get_metric
from manimgen.metrics.dtw import DTW_METHODS
from manimgen.metrics.embedders import CODE_EMBEDDERS, IMAGE_EMBEDDERS
from manimgen.render.formats import DEFAULT_FORMAT, FORMATS
from manimgen.render.result import ASPECTS, DEFAULT_ASPECT, DEFAULT_QUALITY, QUALITIES, get_quality
from manimgen.scoring import METRIC_FIELDS, arrow
from manimgen.scoring.presets import DEFAULT_PRESET, PRESETS


def one_of(names: typing.Iterable[str], default: str | None = None) -> str:
    """`a, b or c`, with the default marked."""
    shown = [f"{name} (default)" if name == default else name for name in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def strategy_help() -> str:
    return f"{one_of(STRATEGIES.summaries())}; see `manimgen strategies`"


def model_help() -> str:
    return spec_help()


def quality_help() -> str:
    return one_of(f"{name} ({q.width}x{q.height} {q.fps} fps)" for name, q in QUALITIES.items()) + (
        f"; {DEFAULT_QUALITY} is the benchmark's"
    )


def aspect_help() -> str:
    return "the frame's shape: " + one_of(f"{name} ({what})" for name, what in ASPECTS.items()) + f"; {DEFAULT_ASPECT} by default"


def format_help() -> str:
    return "the file delivered: " + one_of((f"{name} ({f.help})" for name, f in FORMATS.items()), DEFAULT_FORMAT)


def voice_help() -> str:
    return f"who speaks the narration: {one_of(VOICES, DEFAULT_VOICE)}, {ENDPOINT_HELP}"


def split_help() -> str:
    return one_of(typing.get_args(Split))


def image_embedder_help() -> str:
    return f"frame embedder behind SEM_DTW and VS: {one_of(IMAGE_EMBEDDERS)} (default: the preset's)"


def code_embedder_help() -> str:
    return f"code embedder behind COS and CBB: {one_of(CODE_EMBEDDERS)} (default: the preset's)"


def dtw_help() -> str:
    return f"{one_of(DTW_METHODS)} (default: the preset's); fastdtw is the paper's approximation"


def preset_help() -> str:
    return "how every score is computed: " + "; ".join(f"{name}{' (default)' if name == DEFAULT_PRESET else ''}: {preset.summary}" for name, preset in PRESETS.items())


def _markdown(headers: list[str], rows: typing.Iterable[list[str]]) -> str:
    lines = [headers, ["---"] * len(headers), *rows]
    return "\n".join(f"| {' | '.join(cells)} |" for cells in lines)


def strategies_table() -> str:
    return _markdown(["strategy", "what happens"], ([f"`{name}`", summary] for name, summary in STRATEGIES.summaries().items()))


def models_table() -> str:
    rows = ([f"`{name}`", model.description, model.weights] for name, model in MODELS.items())
    return _markdown(["name", "model", "weights"], rows)


def specs_table() -> str:
    return _markdown(["spec", "what it loads"], ([f"`{p.syntax}`", p.summary] for p in PROVIDERS.values()))


def metrics_table() -> str:
    rows = []
    for field, name in METRIC_FIELDS.items():
        metric = get_metric(name)
        embedder = f"{metric.embedder_kind} ({metric.embedder})" if metric.embedder_kind else "–"
        rows.append([f"`{field}`", metric.title, arrow(field), metric.inputs, embedder])
    return _markdown(["score", "label", "better", "compares", "embedder (default)"], rows)


def qualities_table() -> str:
    rows = ([f"`{name}`", f"{q.width}×{q.height}", str(q.fps)] for name, q in QUALITIES.items())
    return _markdown(["quality", "size", "fps"], rows)


def aspects_table() -> str:
    rows = []
    for name, what in ASPECTS.items():
        low = get_quality(f"{DEFAULT_QUALITY}@{name}")
        rows.append([f"`{name}`", what, f"{low.width}×{low.height}", f"{low.frame_width:.4g} × 8"])
    return _markdown(["aspect", "for", f"size at {DEFAULT_QUALITY}", "frame (units)"], rows)


def formats_table() -> str:
    rows = ([f"`{name}`", f"`{f.suffix}`", f.help] for name, f in FORMATS.items())
    return _markdown(["format", "file", "what it is"], rows)


def voices_table() -> str:
    rows = [*([f"`{name}`", summary] for name, summary in VOICES.summaries().items()), ["`http://…/v1#VOICE`", "an OpenAI-compatible speech endpoint (`/audio/speech`), the voice after #"]]
    return _markdown(["--voice", "who speaks"], rows)


def parts_table() -> str:
    rows = ([f"`{part}`", PURPOSES[part], ", ".join(f"`{module}`" for module in EXTRAS[part])] for part in PURPOSES)
    return _markdown(["part", "for", "modules it brings"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "strategies": strategies_table,
    "models": models_table,
    "specs": specs_table,
    "metrics": metrics_table,
    "qualities": qualities_table,
    "aspects": aspects_table,
    "formats": formats_table,
    "voices": voices_table,
    "parts": parts_table,
}


def table(name: str) -> str:
    """The Markdown table of one registry, as a page's `[[[cog cog.outl(choices.table("NAME"))]]]` block writes it."""
    return TABLES[name]()
