"""Training data from a model's own work: the scenes it wrote that render cleanly, hold every verifiable
requirement of their sentence and look like the reference (expert iteration's SFT rows), the repair turns
that produced such a scene (the failed code and its feedback → the fix), and, for the same prompt, a kept
answer against a draft that failed to render or rendered without what was asked (preference pairs for DPO).

Sampling is a `bench run` on the train split or a licence-clean task file: it is resumable, renders in
the sandbox, scores against the reference and stores every candidate's trace. This module only reads
those stores. Kept rows are the model's answers after the mechanical repair (agent/autofix.py), so the
model learns the fixed code it could not write alone. The test and validation splits never become
training data: test is for the final table, validation for choosing checkpoints; a task-file
sentence that matches a ManimBench test description or a held-out sentence (the frozen evaluation set)
is refused too.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from manimgen.agent.judge import sentence_problems
from manimgen.agent.lint import lint
from manimgen.agent.prompts import format_target, generation_messages
from manimgen.agent.trace import Round, Trace
from manimgen.bench.store import Sample, Store, TaskRow
from manimgen.data import DatasetError, load_tasks
from manimgen.jsonl import JsonLinesError, read_jsonl
from manimgen.scoring.shown import requirement_scores

KEPT_FILE = "kept.jsonl"
PAIRS_FILE = "pairs.jsonl"
SUMMARY_FILE = "harvest.json"
TRAINABLE_SPLITS = ("train", "builtin", "file")
FRESH_KINDS = ("generate", "resample")
"""Rounds answering a generation prompt: the only ones a pair's rejected side may come from."""
REPAIR_KIND = "repair"
HELD_OUT = Path("sentences/evaluation.jsonl")
"""The frozen evaluation set: read by `manimgen train harvest` and `train iterate` when it exists, never trained on."""


@dataclass(frozen=True)
class KeepRule:
    """Which samples become training rows.

    A sample is kept when its final code rendered, the lint finds nothing in it, its layout has no
    finding, with `all_held` every verifiable requirement of its sentence's checklist held (checks/),
    and either its visual similarity to the task's reference is at least `min_visual` or, for a task
    without a reference, the reference-free judge finds no problem with the sentence. At most
    `per_task` distinct answers of one task are kept (the best by VS first), so easy tasks do not crowd
    out hard ones; with `repairs`, a kept answer that a repair round wrote also gives a row of that
    round's own prompt (the failed code and its feedback), since a model trained on first answers alone
    loops on repair prompts; `references_max_chars` also adds the train references no longer than that
    (the long ones teach a small model to write past its token budget).
    """

    min_visual: float = 0.6
    per_task: int = 2
    pairs_per_task: int = 2
    references_max_chars: int | None = None
    all_held: bool = True
    repairs: bool = True


@dataclass
class Harvest:
    """The rows to train on, the pairs to prefer, and the account of what was left out and why."""

    kept: list[dict[str, Any]] = field(default_factory=list)
    repairs: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    considered: int = 0
    left_out: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        return {
            "considered": self.considered,
            "kept": len(self.kept),
            "repair_rows": len(self.repairs),
            "pairs": len(self.pairs),
            "kept_by_source": dict(self.sources),
            "left_out": dict(self.left_out),
            "tasks_with_kept": len({row["task_id"] for row in self.kept}),
        }


@dataclass
class _Candidate:
    task: TaskRow
    code: str
    visual: float | None
    provenance: dict[str, Any]
    repair_prompt: list[dict[str, str]] | None = None


def harvest(
    run_dirs: Sequence[Path],
    rule: KeepRule = KeepRule(),
    *,
    test_descriptions: Callable[[], set[str]] | None = None,
    held_out: Iterable[str] = (),
) -> Harvest:
    """Read the samples of `run_dirs` (bench run directories) into SFT rows and DPO pairs; sentences of
    `held_out` (an evaluation set's descriptions) are refused wherever they appear."""
    result = Harvest()
    test_descriptions = functools.cache(test_descriptions or _manimbench_test_descriptions)
    held_out_keys = {_normal(description) for description in held_out}
    kept: dict[str, list[_Candidate]] = {}
    failed: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    tasks: dict[str, TaskRow] = {}
    for run_dir in run_dirs:
        with Store.open_existing(run_dir) as store:
            run_tasks = store.tasks()
            samples = store.samples(with_trace=True)
        for sample in samples:
            result.considered += 1
            task = run_tasks[sample.task_id]
            refusal = _refusal(task, test_descriptions, held_out_keys)
            if refusal:
                result.left_out[refusal] += 1
                continue
            key = _task_key(task)
            tasks[key] = task
            trace = sample.trace
            failed.setdefault(key, []).extend(_failed_answers(trace, sample, run_dir, task.description))
            reason = _why_not_kept(sample, task, trace, run_dir, rule)
            if reason:
                result.left_out[reason] += 1
                continue
            assert sample.final_code is not None
            provenance = _provenance(sample, task, run_dir)
            kept.setdefault(key, []).append(_Candidate(task, sample.final_code, sample.score("vs"), provenance, _repair_prompt(trace, sample.final_code)))
    for key, candidates in kept.items():
        chosen = _distinct(sorted(candidates, key=lambda c: -(c.visual or 0.0)), lambda c: c.code)[: rule.per_task]
        if len(candidates) > len(chosen):
            result.left_out["a task's answer already kept"] += len(candidates) - len(chosen)
        for candidate in chosen:
            result.kept.append(_sft_row(candidate.task, candidate.code, candidate.provenance))
            result.sources[candidate.provenance["source"]] += 1
            repaired = next((other for other in candidates if other.code.strip() == candidate.code.strip() and other.repair_prompt), None)
            if rule.repairs and repaired is not None:
                result.repairs.append(_sft_row(repaired.task, repaired.code, {**repaired.provenance, "turn": REPAIR_KIND}, repaired.repair_prompt))
        rejected = _distinct(failed.get(key, []), lambda item: item[0])[: rule.pairs_per_task]
        result.pairs.extend(_pair(chosen[0], answer, provenance) for answer, provenance in rejected)
    if rule.references_max_chars is not None:
        for task in tasks.values():
            if task.reference_code and len(task.reference_code) <= rule.references_max_chars:
                result.kept.append(_sft_row(task, task.reference_code, {"source": "reference", "task_id": task.task_id}))
                result.sources["reference"] += 1
    return result


def write_harvest(result: Harvest, out_dir: Path, *, run_dirs: Sequence[Path], rule: KeepRule) -> dict[str, Path]:
    """`kept.jsonl` (TRL prompt/completion rows: first answers, then repair turns), `pairs.jsonl`
    (prompt/chosen/rejected) and `harvest.json`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"kept": out_dir / KEPT_FILE, "pairs": out_dir / PAIRS_FILE, "summary": out_dir / SUMMARY_FILE}
    _write_jsonl(files["kept"], result.kept + result.repairs)
    _write_jsonl(files["pairs"], result.pairs)
    summary = {**result.summary(), "runs": [str(path) for path in run_dirs], "rule": rule.__dict__}
    files["summary"].write_text(json.dumps(summary, indent=2) + "\n")
    return files


def read_rows(path: Path, columns: Iterable[str]) -> list[dict[str, Any]]:
    """Rows of a harvested JSON Lines file, each cut to `columns` (the ones a trainer reads)."""
    wanted = tuple(columns)
    rows = []
    try:
        for number, row in read_jsonl(path):
            missing = [name for name in wanted if name not in row]
            if missing:
                raise DatasetError(f"{path}:{number} lacks {', '.join(missing)}; give the file `manimgen train harvest` wrote")
            rows.append({name: row[name] for name in wanted})
    except JsonLinesError as error:
        raise DatasetError(f"{error}; give the file `manimgen train harvest` wrote") from None
    if not rows:
        raise DatasetError(f"{path} holds no rows: sample more (bench run) or loosen the keep rule")
    return rows


def held_out_sentences(path: Path | None = HELD_OUT) -> list[str]:
    """The descriptions of a held-out sentence file (none when `path` is None or, for the default, absent)."""
    from manimgen.data.task_file import load_task_file

    if path is None or (path == HELD_OUT and not path.is_file()):
        return []
    return [task.description for task in load_task_file(path)]


def _refusal(task: TaskRow, test_descriptions: Callable[[], set[str]], held_out: set[str]) -> str | None:
    if task.split not in TRAINABLE_SPLITS:
        return f"{task.split} split (never trained on)"
    if _normal(task.description) in held_out:
        return "a held-out evaluation sentence"
    if task.split == "file" and _normal(task.description) in test_descriptions():
        return "same sentence as a test task"
    return None


def _why_not_kept(sample: Sample, task: TaskRow, trace: Trace | None, run_dir: Path, rule: KeepRule) -> str | None:
    if sample.status != "ok" or not sample.final_code:
        return "did not render"
    if lint(sample.final_code):
        return "lint findings"
    if sample.score("layout_findings"):
        return "layout findings"
    if rule.all_held and sample.score("all_held") is False:
        return "requirements not held"
    if task.reference_code:
        visual = sample.score("vs")
        if visual is None:
            return "no visual score (the reference did not render)"
        return None if visual >= rule.min_visual else f"VS below {rule.min_visual}"
    render = trace.final_render if trace else None
    if render is None:
        return "no render in the trace"
    stored = replace(render, output=run_dir / sample.media_path) if sample.media_path else replace(render, output=None)
    return "problems with the sentence" if sentence_problems(task.description, sample.final_code, stored) else None


def _failed_answers(trace: Trace | None, sample: Sample, run_dir: Path, description: str) -> list[tuple[str, dict[str, Any]]]:
    """Drafts that gave no code, whose code failed to render, or whose render missed a verifiable requirement
    of the sentence: a search's drafts are preference pairs at no extra sampling cost."""
    if trace is None:
        return []
    answers = []
    for round_ in trace.rounds:
        why = _why_failed(round_, description) if round_.kind in FRESH_KINDS else None
        if why is not None:
            answer = format_target(round_.code) if round_.code else round_.completion
            provenance = {"source_run": str(run_dir), "model_spec": sample.model_spec, "seed": sample.seed, "round": round_.index, "failed": why}
            answers.append((answer, provenance))
    return answers


def _why_failed(round_: Round, description: str) -> str | None:
    if round_.code is None:
        return "no code"
    if round_.render is None:
        return None
    if not round_.render.ok:
        return "render failed"
    return "requirements not held" if requirement_scores(description, round_.render)["all_held"] is False else None


def _repair_prompt(trace: Trace | None, code: str) -> list[dict[str, str]] | None:
    """The prompt of the repair round that wrote `code`, when one did and its messages were stored."""
    for round_ in reversed(trace.rounds if trace else []):
        if round_.kind == REPAIR_KIND and round_.code == code and round_.messages:
            return [dict(message) for message in round_.messages]
    return None


def _provenance(sample: Sample, task: TaskRow, run_dir: Path) -> dict[str, Any]:
    return {
        "source": "manimbench-train" if task.split == "train" else task.split,
        "task_id": task.task_id,
        "run": str(run_dir),
        "model_spec": sample.model_spec,
        "strategy": sample.strategy_name,
        "seed": sample.seed,
        "vs": sample.score("vs"),
        "code_sha256": hashlib.sha256(sample.final_code.encode()).hexdigest() if sample.final_code else None,
    }


def _sft_row(task: TaskRow, code: str, provenance: dict[str, Any], prompt: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "prompt": prompt or [dict(message) for message in generation_messages(task.description)],
        "completion": [{"role": "assistant", "content": format_target(code)}],
        "task_id": task.task_id,
        "provenance": provenance,
    }


def _pair(chosen: _Candidate, rejected: str, provenance: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompt": [dict(message) for message in generation_messages(chosen.task.description)],
        "chosen": [{"role": "assistant", "content": format_target(chosen.code)}],
        "rejected": [{"role": "assistant", "content": rejected}],
        "task_id": chosen.task.task_id,
        "provenance": {"chosen": chosen.provenance, "rejected": provenance},
    }


def _distinct(items: list[Any], text: Callable[[Any], str]) -> list[Any]:
    """Items whose text (ignoring surrounding whitespace) was not seen before, in order."""
    seen: set[str] = set()
    unique = []
    for item in items:
        key = text(item).strip()
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


def _task_key(task: TaskRow) -> str:
    """Samples of one sentence share a key across runs (a task file and a split may hold the same one)."""
    return _normal(task.description)


def _normal(description: str) -> str:
    return " ".join(description.lower().split())


def _manimbench_test_descriptions() -> set[str]:
    try:
        return {_normal(task.description) for task in load_tasks("test")}
    except DatasetError as error:
        raise DatasetError(f"sentences from a task file are checked against ManimBench's test split, which is unavailable ({error})") from None


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
