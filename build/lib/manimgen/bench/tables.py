"""The numbers a report shows, recomputed from stored samples: per-config means, correlations, deltas.

A sample with status "error" (the agent or the scorer raised) was never measured: it is counted
apart and left out of every mean. Every other sample counts, failures included, as in the paper:
RSR is the share of samples whose final code rendered, and VS is 0 for a sample that did not.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from manimgen.agent.lint import lint
from manimgen.agent.trace import Round
from manimgen.bench.store import Sample
from manimgen.metrics.correlation import Correlation, pearson, spearman
from manimgen.metrics.registry import get_metric
from manimgen.scoring.schema import METRIC_FIELDS, SHOWN_FIELDS

COMPLEXITIES = ("Basic", "Intermediate", "Advanced")
FIRST_SHOWN = ("patterns_ok", "requirements_held", "all_held", "sentence_held", "vs", "content_vs", "cbb", "codebleu", "code_cosine", "ast_distance")
"""The order the report's score columns take, as the paper discusses them; a score not named here follows them."""
SHOWN = tuple(sorted(SHOWN_FIELDS, key=lambda name: FIRST_SHOWN.index(name) if name in FIRST_SHOWN else len(FIRST_SHOWN)))
CODE_METRICS = tuple(name for name in SHOWN if name in METRIC_FIELDS and get_metric(METRIC_FIELDS[name]).inputs == "code")
"""The code metrics whose correlation with VS the report shows: every shown score computed from code alone."""
PAPER_IMAGE_EMBEDDER = "clip-vit-l-14"
PAPER_CODE_EMBEDDER = "codebert"
BASELINE_STRATEGY = "vanilla"


@dataclass(frozen=True)
class Aggregate:
    """Means over one configuration's measured samples (optionally of one complexity): `scores` holds
    the mean of every field the Scores schema shows (SHOWN_FIELDS), so a new score needs no edit here."""

    model: str
    strategy: str
    complexity: str | None
    n: int
    errors: int
    rsr: float | None
    clean_rsr: float | None
    scores: dict[str, float | None]
    rounds: float | None
    llm_calls: float | None
    repeated_repairs: float | None
    cut_off: float | None
    tokens: float | None
    seconds: float | None

    def value(self, name: str) -> float | None:
        """A column's number: a shown score's mean, or one of the fields above."""
        return self.scores[name] if name in self.scores else getattr(self, name)

    @property
    def vs(self) -> float | None:
        return self.scores["vs"]

    def to_dict(self) -> dict[str, Any]:
        """Flat, as report.json has it: the shown scores beside the other fields."""
        data = asdict(self)
        return {**{key: value for key, value in data.items() if key != "scores"}, **data["scores"]}


@dataclass(frozen=True)
class CorrelationRow:
    """How one code metric tracks VS over one configuration's samples."""

    model: str
    strategy: str
    code_metric: str
    pearson: Correlation
    spearman: Correlation


@dataclass(frozen=True)
class PublishedRow:
    """A number from the paper's own results table (ManimBench test, 100 samples)."""

    configuration: str
    vs: float
    rsr: float


PUBLISHED: tuple[PublishedRow, ...] = (
    PublishedRow("Qwen3-Coder-30B-A3B + SFT + GRPO, RITL-DOC (K=3)", 0.857, 0.94),
    PublishedRow("GPT-4.1, RITL-DOC", 0.819, 0.92),
    PublishedRow("Seed-Coder-8B + SFT + GRPO, Vanilla", 0.648, 0.72),
)


def mean(values: Iterable[float | int | bool | None]) -> float | None:
    present = [float(value) for value in values if value is not None]
    return sum(present) / len(present) if present else None


def aggregate(model: str, strategy: str, samples: Sequence[Sample], complexity: str | None = None) -> Aggregate:
    measured = [sample for sample in samples if sample.status != "error"]

    def average(read: Callable[[Sample], float | int | bool | None]) -> float | None:
        return mean(read(sample) for sample in measured)

    return Aggregate(
        model=model,
        strategy=strategy,
        complexity=complexity,
        n=len(measured),
        errors=len(samples) - len(measured),
        rsr=average(lambda s: bool(s.score("rendered"))),
        clean_rsr=average(clean_render),
        scores={name: average(lambda s, name=name: s.score(name)) for name in SHOWN},
        rounds=average(lambda s: s.rounds),
        llm_calls=average(lambda s: s.llm_calls),
        repeated_repairs=repeated_repairs(measured),
        cut_off=cut_off_answers(measured),
        tokens=average(lambda s: s.tokens),
        seconds=average(lambda s: s.seconds),
    )


def clean_render(sample: Sample) -> bool | None:
    """Rendered with no layout finding; None when it rendered but its layout was not recorded."""
    if not sample.score("rendered"):
        return False
    findings = sample.score("layout_findings")
    return None if findings is None else findings == 0


def group(samples: Iterable[Sample]) -> dict[tuple[str, str], list[Sample]]:
    """Samples by (model, strategy), in the order each configuration first appears."""
    groups: dict[tuple[str, str], list[Sample]] = {}
    for sample in samples:
        groups.setdefault((sample.model, sample.strategy), []).append(sample)
    return groups


def main_table(samples: Sequence[Sample]) -> list[Aggregate]:
    return [aggregate(model, strategy, rows) for (model, strategy), rows in group(samples).items()]


def complexity_table(samples: Sequence[Sample]) -> list[Aggregate]:
    rows = []
    for (model, strategy), config_samples in group(samples).items():
        for complexity in COMPLEXITIES:
            chosen = [sample for sample in config_samples if sample.complexity == complexity]
            if chosen:
                rows.append(aggregate(model, strategy, chosen, complexity))
    return rows


def correlation_table(samples: Sequence[Sample]) -> list[CorrelationRow]:
    """Pearson and Spearman of each code metric against VS, per configuration, over measured samples."""
    rows = []
    for (model, strategy), config_samples in group(samples).items():
        measured = [sample for sample in config_samples if sample.status != "error"]
        visual = [sample.score("vs") for sample in measured]
        for metric in CODE_METRICS:
            code = [sample.score(metric) for sample in measured]
            rows.append(CorrelationRow(model, strategy, metric, pearson(code, visual), spearman(code, visual)))
    return rows


@dataclass(frozen=True)
class PairedGain:
    """A strategy against its model's vanilla samples, over the (task, seed) pairs both measured.

    Pairing matters because a grid's strategies start from the same cached first draft: `fixed`
    and `broken` count the tasks whose outcome the strategy's repair changed, and the per-call
    figures say what each extra LLM call bought.
    """

    model: str
    strategy: str
    n: int
    fixed: int
    broken: int
    baseline: Aggregate
    ours: Aggregate

    @property
    def extra_calls(self) -> float | None:
        if self.ours.llm_calls is None or self.baseline.llm_calls is None:
            return None
        return self.ours.llm_calls - self.baseline.llm_calls

    @property
    def vs_per_call(self) -> float | None:
        return self.ours.vs / self.ours.llm_calls if self.ours.vs is not None and self.ours.llm_calls else None

    @property
    def vs_gain_per_extra_call(self) -> float | None:
        extra = self.extra_calls
        if not extra or self.ours.vs is None or self.baseline.vs is None:
            return None
        return (self.ours.vs - self.baseline.vs) / extra


def paired_gains(samples: Sequence[Sample]) -> list[PairedGain]:
    """Every non-vanilla configuration of a model that also ran vanilla, paired task by task."""
    groups = group(sample for sample in samples if sample.status != "error")
    gains = []
    for (model, strategy), rows in groups.items():
        baseline_rows = groups.get((model, BASELINE_STRATEGY))
        if strategy == BASELINE_STRATEGY or baseline_rows is None:
            continue
        baseline_by_key = {(s.task_id, s.seed): s for s in baseline_rows}
        pairs = [(baseline_by_key[(s.task_id, s.seed)], s) for s in rows if (s.task_id, s.seed) in baseline_by_key]
        if not pairs:
            continue
        gains.append(
            PairedGain(
                model=model,
                strategy=strategy,
                n=len(pairs),
                fixed=sum(not before.score("rendered") and bool(after.score("rendered")) for before, after in pairs),
                broken=sum(bool(before.score("rendered")) and not after.score("rendered") for before, after in pairs),
                baseline=aggregate(model, BASELINE_STRATEGY, [before for before, _ in pairs]),
                ours=aggregate(model, strategy, [after for _, after in pairs]),
            )
        )
    return gains


@dataclass(frozen=True)
class BudgetRow:
    """The share of a configuration's samples that had rendered code within each number of generations:
    pass@k for a strategy that samples, the budget curve of one that repairs; so mixes compare at equal calls."""

    model: str
    strategy: str
    n: int
    within: tuple[float, ...]  # index k - 1: rendered within k generations


def _rounds(sample: Sample) -> list[Round]:
    """A stored trace's rounds; none for a sample stored without its trace."""
    trace = sample.trace
    return trace.rounds if trace is not None else []


def spent_seconds(sample: Sample) -> float:
    """What a sample cost this run's clock: its seconds less the model calls it replayed from the generation
    cache (a sample's seconds count a replayed call at its original cost, so samples compare at equal cost)."""
    replayed = sum(round_.llm_seconds for round_ in _rounds(sample) if round_.cached)
    return max(0.0, (sample.seconds or 0.0) - replayed)


def first_render(sample: Sample) -> int | None:
    """The number of generations up to the first round whose code rendered, from its stored trace."""
    return next((index + 1 for index, round_ in enumerate(_rounds(sample)) if round_.render is not None and round_.render.ok), None)


def budget_table(samples: Sequence[Sample]) -> list[BudgetRow]:
    """Rendered within k = 1 … K generations per configuration (K: the most any sample used); needs traces."""
    measured = [sample for sample in samples if sample.status != "error" and sample.trace_json]
    most = max((sample.llm_calls or 0 for sample in measured), default=0)
    rows = []
    for (model, strategy), config_samples in group(measured).items():
        firsts = [first_render(sample) for sample in config_samples]
        within = tuple(sum(first is not None and first <= k for first in firsts) / len(firsts) for k in range(1, most + 1))
        rows.append(BudgetRow(model, strategy, len(firsts), within))
    return rows


EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)):", re.M)


def failure_kind(sample: Sample) -> str:
    """Why a measured sample's final code did not render, in one word: no code, the time limit, the
    first static finding (`lint:bad-kwarg`), else the render's status and exception (`code_error:NameError`)."""
    if sample.status == "no_code" or not (sample.final_code or "").strip():
        return "no code"
    if sample.status == "timeout":
        return "time limit"
    findings = lint(sample.final_code or "")
    if findings:
        return f"lint:{findings[0].code}"
    trace = sample.trace
    render = trace.final_render if trace is not None else None
    raised = EXCEPTION.findall(render.error_tail if render is not None else "")
    status = (render.status.value if render is not None else None) or sample.score("render_status") or "not rendered"
    return f"{status}:{raised[-1].rsplit('.', 1)[-1]}" if raised else str(status)


def failure_table(samples: Sequence[Sample]) -> list[tuple[str, str, dict[str, int]]]:
    """Per configuration, its failed samples counted by kind, most common first (needs traces)."""
    rows = []
    for (model, strategy), config_samples in group(s for s in samples if s.status not in ("error", "ok")).items():
        kinds: dict[str, int] = {}
        for sample in config_samples:
            kind = failure_kind(sample)
            kinds[kind] = kinds.get(kind, 0) + 1
        rows.append((model, strategy, dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0])))))
    return rows


def repeated_repairs(samples: Iterable[Sample]) -> float | None:
    """The share of repair answers whose code is the code of the round before (the model echoing
    what it was shown); None when no sample has a repair round."""
    repeats = repairs = 0
    for sample in samples:
        rounds = _rounds(sample)
        for previous, current in zip(rounds, rounds[1:]):
            if current.kind == "repair":
                repairs += 1
                repeats += current.code is not None and current.code == previous.code
    return repeats / repairs if repairs else None


def cut_off_answers(samples: Iterable[Sample]) -> float | None:
    """The share of model answers that stopped at the sampling's token limit, their scene cut off
    mid-way (a model tuned on long references learns to write past its budget); None without traces."""
    answers = cut = 0
    for sample in samples:
        limit = json.loads(sample.strategy_params or "{}").get("sampling", {}).get("max_tokens")
        for round_ in _rounds(sample):
            answers += 1
            cut += limit is not None and round_.completion_tokens >= limit
    return cut / answers if answers else None


def embedders(samples: Iterable[Sample]) -> tuple[list[str], list[str]]:
    """The distinct image and code embedder names behind the stored scores."""
    measured = [sample for sample in samples if sample.status != "error"]
    images = sorted({sample.score("image_embedder") for sample in measured if sample.score("image_embedder")})
    codes = sorted({sample.score("code_embedder") for sample in measured if sample.score("code_embedder")})
    return images, codes


def differs_from_paper(samples: Iterable[Sample]) -> bool:
    images, codes = embedders(samples)
    return images != [PAPER_IMAGE_EMBEDDER] or codes != [PAPER_CODE_EMBEDDER]


@dataclass(frozen=True)
class ConfigDelta:
    """One configuration in two runs, over the (task, seed) pairs both hold."""

    model: str
    strategy: str
    before: Aggregate
    after: Aggregate


def compare(samples_a: Sequence[Sample], samples_b: Sequence[Sample]) -> tuple[list[ConfigDelta], list[str], list[str]]:
    """Deltas for the configurations both runs hold, and the configurations only one of them holds."""
    groups_a, groups_b = group(samples_a), group(samples_b)
    deltas = []
    for config, rows_a in groups_a.items():
        rows_b = groups_b.get(config)
        if rows_b is None:
            continue
        common = {(s.task_id, s.seed) for s in rows_a} & {(s.task_id, s.seed) for s in rows_b}
        deltas.append(
            ConfigDelta(
                *config,
                aggregate(*config, [s for s in rows_a if (s.task_id, s.seed) in common]),
                aggregate(*config, [s for s in rows_b if (s.task_id, s.seed) in common]),
            )
        )
    only_a = [f"{model} · {strategy}" for model, strategy in groups_a if (model, strategy) not in groups_b]
    only_b = [f"{model} · {strategy}" for model, strategy in groups_b if (model, strategy) not in groups_a]
    return deltas, only_a, only_b


def is_number(value: float | None) -> bool:
    return value is not None and not math.isnan(value)
