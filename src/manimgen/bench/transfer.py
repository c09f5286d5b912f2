"""A run's samples as a portable file: `bench export` writes it, `bench import` merges it into a run.

Why: a study outlives the machine it started on. Shards run on several machines, or a grid that
takes longer than one machine is lent, meet again in one run directory, and a published table can
ship the samples it was computed from. The file is gzip-compressed JSON Lines: a header line (the
source run's last configuration and versions), then one line per sample with its scores and trace.

Left out on purpose: the prompts (trace messages) and task descriptions, which quote the dataset
(ManimBench's licence does not allow passing it on), unless the run is over a task file and the caller
says its licence allows it (`with_prompts`: this project's own sentences, whose repair turns a harvest
on another machine needs); and the media (videos are re-rendered from the
stored code when needed). Everything a report computes is kept, and so is each round's generation
key (a digest, which passes on nothing of the dataset): importing enters those calls into the run's
generation cache, so another strategy resumed there replays the same first draft instead of asking
the model again. Importing never replaces a stored sample: a key already present is counted and
skipped, so merging is idempotent.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from manimgen.bench.generations import enter_calls, round_calls, round_keys
from manimgen.bench.store import Sample, Store, StoreError, exclusive, stored_trace
from manimgen.jsonl import JsonLinesError, read_jsonl
from manimgen.paths import staged
from manimgen.scoring.schema import Scores

FORMAT = "manimgen-samples"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 files carry no generation keys
LEFT_OUT = ("media_path", "session_id")
DIGEST = re.compile(r"[0-9a-f]{64}")  # a generation key: sha256, hex


@dataclass(frozen=True)
class ImportSummary:
    imported: int
    already_stored: int


def _portable_trace(trace_json: str | None) -> str | None:
    """The trace without the words of the dataset: no description, no prompt messages."""
    if not trace_json:
        return trace_json
    trace = stored_trace(trace_json)
    return replace(trace, description="", rounds=[replace(round_, messages=[]) for round_ in trace.rounds]).to_json(indent=None)


def export_run(run_dir: Path, out: Path, *, with_prompts: bool = False) -> int:
    """Write every non-error sample of a run to OUT (gzip JSON Lines); returns how many.

    `with_prompts` keeps the traces' prompts and descriptions; it is refused for a run that is not over a
    task file, since ManimBench's words must not travel."""
    with Store.open_existing(run_dir) as store:
        samples = [sample for sample in store.samples(with_trace=True) if sample.status != "error"]
        sessions = store.sessions()
    config = sessions[-1].config if sessions else {}
    if with_prompts and not config.get("tasks_file"):
        raise StoreError(f"{run_dir} is not a run over a task file: its prompts quote ManimBench, whose licence does not allow passing them on; export it without --with-prompts")
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": config,
        "versions": sessions[-1].versions if sessions else {},
        "prompts": with_prompts,
    }
    with staged(out) as partial, gzip.open(partial, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(header, sort_keys=True) + "\n")
        for sample in samples:
            handle.write(json.dumps(_sample_dict(sample, with_prompts), ensure_ascii=False, sort_keys=True) + "\n")
    return len(samples)


def _sample_dict(sample: Sample, with_prompts: bool) -> dict[str, Any]:
    data = {item.name: getattr(sample, item.name) for item in fields(Sample) if item.name not in LEFT_OUT}
    data["scores"] = sample.scores.to_dict() if sample.scores is not None else None
    data["trace_json"] = sample.trace_json if with_prompts else _portable_trace(sample.trace_json)
    data["generation_keys"] = round_keys(sample)
    return data


@dataclass(frozen=True)
class Exported:
    """One sample of an export and the generation key of each of its rounds (None where unknown)."""

    sample: Sample
    generation_keys: list[str | None]


def read_export(path: Path) -> tuple[dict[str, Any], list[Exported]]:
    """The header and samples of an export; any defect is a StoreError naming the file and line."""
    try:
        rows = list(read_jsonl(path))
    except JsonLinesError as error:
        raise StoreError(f"{error}; write the export with `manimgen bench export RUN --out {path}`") from None
    if not rows:
        raise StoreError(f"{path} is empty; export a run with `manimgen bench export RUN --out {path}`")
    header = rows[0][1]
    if header.get("format") != FORMAT or header.get("version") not in READABLE_VERSIONS:
        raise StoreError(f"{path} is not a manimgen samples file (version {FORMAT_VERSION}); write one with `manimgen bench export`")
    return header, [_sample(path, number, row) for number, row in rows[1:]]


def _sample(path: Path, number: int, data: dict[str, Any]) -> Exported:
    known = {item.name for item in fields(Sample)} - set(LEFT_OUT)
    try:
        scores = data.pop("scores")
        keys = data.pop("generation_keys", [])
        if not (isinstance(keys, list) and all(key is None or (isinstance(key, str) and DIGEST.fullmatch(key)) for key in keys)):
            raise ValueError("generation_keys is not a list of digests")
        if set(data) - known:
            raise ValueError(f"unknown fields {sorted(set(data) - known)}")
        sample = Sample(**data, scores=Scores.from_dict(scores) if scores is not None else None)
        if not (isinstance(sample.task_id, str) and isinstance(sample.seed, int) and sample.status in ("ok", "render_failed", "no_code", "timeout")):
            raise ValueError("a key field or the status is not what a stored sample holds")
    except (KeyError, TypeError, ValueError) as error:
        raise StoreError(f"{path}:{number} is not a sample ({error}); export the run again") from None
    return Exported(sample, keys)


def import_runs(files: list[Path], run_dir: Path) -> ImportSummary:
    """Merge exports into RUN_DIR; every file is read and checked before anything is written."""
    read = [(path, *read_export(path)) for path in files]
    imported = already = 0
    with exclusive(run_dir), Store.open(run_dir) as store:
        store.interrupt_orphans()
        done = store.done_keys()
        for path, _, exported in read:
            _check_meanings(store, path, [item.sample for item in exported])
        for path, header, exported in read:
            config = {**header["config"], "imported_from": path.name}
            session = store.start_session(config, header["versions"], len(exported))
            for item in exported:
                if item.sample.key in done:
                    already += 1
                    continue
                store.put_sample(replace(item.sample, session_id=session))
                done.add(item.sample.key)
                imported += 1
            store.finish_session(session, "finished", f"imported from {path.name}")
        enter_calls(run_dir, (call for _, _, exported in read for item in exported for call in round_calls(item.sample, item.generation_keys)))
    return ImportSummary(imported, already)


def _check_meanings(store: Store, path: Path, samples: list[Sample]) -> None:
    """A label keeps one meaning per run directory: the same model spec, strategy parameters and quality."""
    checks = (("model", "model_spec"), ("strategy", "strategy_params"))
    for column, detail in checks:
        stored = store.labels(column, detail)
        for sample in samples:
            label, meaning = getattr(sample, column), getattr(sample, detail)
            if stored.setdefault(label, meaning) != meaning:
                raise StoreError(
                    f"{path} holds {column} {label!r} as {meaning}, but {store.path} holds it as {stored[label]}; "
                    "import into another run directory"
                )
    qualities = {sample.quality for sample in store.samples()} | {sample.quality for sample in samples}
    if len(qualities) > 1:
        raise StoreError(f"{path} and {store.path} mix render qualities {', '.join(sorted(qualities))}; import into another run directory")
