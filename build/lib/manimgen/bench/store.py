"""The study's results: one SQLite file per run directory, one row per sample.

A sample is keyed by (model, strategy, task_id, seed). Every write is one transaction in WAL mode,
so a run killed at any instant leaves a consistent file that the next run resumes from: a key is
either fully recorded (scores, trace and copied media) or absent. Everything a report shows is
recomputed from here.

One `bench run` writes a run directory at a time, holding an advisory lock on its `.lock` file that
the OS drops when the process dies. A session still marked 'running' while nobody holds that lock
was killed: it reads as 'interrupted', and the next run records it so.
"""

from __future__ import annotations

import fcntl
import functools
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from manimgen.agent.trace import Trace
from manimgen.scoring.schema import SCORE_COLUMNS, Scores

STORE_NAME = "results.sqlite"
LOCK_NAME = ".lock"
SCHEMA_VERSION = 1

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS samples (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    strategy TEXT NOT NULL,
    task_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    model_spec TEXT NOT NULL,
    strategy_name TEXT NOT NULL,
    strategy_params TEXT NOT NULL,
    quality TEXT NOT NULL,
    complexity TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    final_code TEXT,
    {", ".join(f"{name} {kind}" for name, kind in SCORE_COLUMNS.items())},
    scores_json TEXT,
    llm_calls INTEGER,
    rounds INTEGER,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    tokens INTEGER,
    seconds REAL,
    score_seconds REAL,
    trace_json TEXT,
    media_path TEXT,
    session_id INTEGER,
    recorded_at TEXT NOT NULL,
    UNIQUE (model, strategy, task_id, seed)
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    split TEXT NOT NULL,
    complexity TEXT NOT NULL,
    description TEXT NOT NULL,
    reference_code TEXT NOT NULL,
    reference_status TEXT,
    reference_media TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    message TEXT,
    config_json TEXT NOT NULL,
    versions_json TEXT NOT NULL,
    planned INTEGER NOT NULL
);
"""

ORPHAN_MESSAGE = "its process ended before the session did (killed or crashed)"


class StoreError(RuntimeError):
    """The results file cannot be used as asked; the message names the fix."""


@contextmanager
def exclusive(run_dir: Path) -> Iterator[None]:
    """One `bench run` per run directory at a time; the OS drops the lock if the process dies."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / LOCK_NAME).open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"another `bench run` is writing {run_dir}; wait for it or choose another --out") from None
        yield


def run_in_progress(run_dir: Path) -> bool:
    """Whether a live process holds the run directory's lock (its own run counts too)."""
    try:
        handle = (run_dir / LOCK_NAME).open("rb")
    except FileNotFoundError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Sample:
    """One (model, strategy, task, seed) outcome as stored.

    `status` is "ok" (the final code renders), "render_failed", "no_code", "timeout" (the per-sample
    time limit ran out before a render succeeded) or "error" (the agent or scorer raised; `error`
    says what, the metrics are empty and the next run retries the key).
    """

    model: str
    strategy: str
    task_id: str
    seed: int
    model_spec: str
    strategy_name: str
    strategy_params: str
    quality: str
    complexity: str
    status: str
    error: str | None = None
    final_code: str | None = None
    scores: Scores | None = None
    llm_calls: int | None = None
    rounds: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    tokens: int | None = None
    seconds: float | None = None
    score_seconds: float | None = None
    trace_json: str | None = None
    media_path: str | None = None
    session_id: int | None = None
    recorded_at: str = ""

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.model, self.strategy, self.task_id, self.seed)

    def score(self, name: str) -> Any:
        """One Scores field, or None for a sample that was never scored (status "error")."""
        return None if self.scores is None else getattr(self.scores, name)

    @property
    def trace(self) -> Trace | None:
        """The stored trace, read once per text; None for a sample stored, or read, without it."""
        return stored_trace(self.trace_json) if self.trace_json else None


@functools.lru_cache(maxsize=1024)
def stored_trace(text: str) -> Trace:
    """A stored trace's text as the agent's Trace: the one reader of stored traces (a report reads each several times)."""
    return Trace.from_json(text)


@dataclass(frozen=True)
class TaskRow:
    task_id: str
    split: str
    complexity: str
    description: str
    reference_code: str
    reference_status: str | None = None
    reference_media: str | None = None


@dataclass(frozen=True)
class Session:
    id: int
    started_at: str
    finished_at: str | None
    status: str
    message: str | None
    config: dict[str, Any]
    versions: dict[str, str]
    planned: int


SAMPLE_COLUMNS = tuple(
    name for item in fields(Sample) for name in ((*SCORE_COLUMNS, "scores_json") if item.name == "scores" else (item.name,))
)


class Store:
    """The SQLite file of one run; safe to share between the runner's threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a results store ({error}); choose another run directory") from None
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(
                f"{self.path} has schema version {version}, this manimgen writes {SCHEMA_VERSION}; "
                "use a new run directory or the manimgen version that wrote it"
            )
        if version == 0:
            with self._lock:
                self._conn.executescript(f"BEGIN IMMEDIATE; {SCHEMA} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
        self._add_new_score_columns()

    def _add_new_score_columns(self) -> None:
        """A store written before a Scores field existed gets its column (empty for the old rows)."""
        with self._lock:
            present = {row[1] for row in self._conn.execute("PRAGMA table_info(samples)")}
            for name, kind in SCORE_COLUMNS.items():
                if name not in present:
                    self._conn.execute(f"ALTER TABLE samples ADD COLUMN {name} {kind}")

    @classmethod
    def open(cls, run_dir: Path) -> Store:
        return cls(Path(run_dir) / STORE_NAME)

    @classmethod
    def open_existing(cls, run_dir: Path) -> Store:
        """For reading: a missing store is an error naming the command that makes one."""
        path = Path(run_dir) / STORE_NAME
        if not path.is_file():
            raise StoreError(f"{path} does not exist; create it with `manimgen bench run --out {run_dir}`")
        return cls(path)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT under the thread lock; any error rolls the whole write back."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, parameters: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cursor = self._conn.execute(sql, parameters)
            cursor.row_factory = sqlite3.Row
            return cursor.fetchall()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # sessions -----------------------------------------------------------------------------------

    def start_session(self, config: dict[str, Any], versions: dict[str, str], planned: int) -> int:
        with self._transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO sessions (started_at, status, config_json, versions_json, planned) VALUES (?, 'running', ?, ?, ?)",
                (now(), json.dumps(config, sort_keys=True), json.dumps(versions, sort_keys=True), planned),
            )
            return int(cursor.lastrowid)

    def interrupt_orphans(self) -> None:
        """Record sessions left 'running' as interrupted; only the holder of the run's lock may call this."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE sessions SET status = 'interrupted', message = ? WHERE status = 'running'", (ORPHAN_MESSAGE,)
            )

    def finish_session(self, session_id: int, status: str, message: str | None = None) -> None:
        with self._transaction() as conn:
            conn.execute(
                "UPDATE sessions SET finished_at = ?, status = ?, message = ? WHERE id = ?",
                (now(), status, message, session_id),
            )

    def sessions(self) -> list[Session]:
        """Every session; one still marked 'running' reads as interrupted once no process holds the run's lock."""
        sessions = [
            Session(
                id=row["id"],
                started_at=row["started_at"],
                finished_at=row["finished_at"],
                status=row["status"],
                message=row["message"],
                config=json.loads(row["config_json"]),
                versions=json.loads(row["versions_json"]),
                planned=row["planned"],
            )
            for row in self._query("SELECT * FROM sessions ORDER BY id")
        ]
        if any(session.status == "running" for session in sessions) and not run_in_progress(self.path.parent):
            return [
                replace(session, status="interrupted", message=ORPHAN_MESSAGE) if session.status == "running" else session
                for session in sessions
            ]
        return sessions

    # tasks --------------------------------------------------------------------------------------

    def put_task(self, task: TaskRow) -> None:
        """Insert or refresh a task; a known reference render is never forgotten."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO UPDATE SET "
                "split = excluded.split, complexity = excluded.complexity, description = excluded.description, "
                "reference_code = excluded.reference_code, "
                "reference_status = COALESCE(excluded.reference_status, tasks.reference_status), "
                "reference_media = COALESCE(excluded.reference_media, tasks.reference_media)",
                (task.task_id, task.split, task.complexity, task.description, task.reference_code,
                 task.reference_status, task.reference_media),
            )

    def tasks(self) -> dict[str, TaskRow]:
        return {row["task_id"]: TaskRow(**dict(row)) for row in self._query("SELECT * FROM tasks ORDER BY task_id")}

    # samples ------------------------------------------------------------------------------------

    def put_sample(self, sample: Sample) -> None:
        """Record a sample in one transaction, replacing an earlier row with the same key."""
        values = {item.name: getattr(sample, item.name) for item in fields(Sample) if item.name != "scores"}
        values["recorded_at"] = values["recorded_at"] or now()
        scores = sample.scores.to_dict() if sample.scores is not None else {}
        values.update({name: scores.get(name) for name in SCORE_COLUMNS})  # sqlite3 binds a bool as 0/1
        values["scores_json"] = json.dumps(scores, sort_keys=True) if sample.scores is not None else None
        columns = ", ".join(SAMPLE_COLUMNS)
        placeholders = ", ".join(f":{name}" for name in SAMPLE_COLUMNS)
        updates = ", ".join(f"{name} = excluded.{name}" for name in SAMPLE_COLUMNS)
        with self._transaction() as conn:
            conn.execute(
                f"INSERT INTO samples ({columns}) VALUES ({placeholders}) "
                f"ON CONFLICT (model, strategy, task_id, seed) DO UPDATE SET {updates}",
                values,
            )

    def done_keys(self) -> set[tuple[str, str, str, int]]:
        """Keys a resumed run skips: every recorded sample except errors, which are retried."""
        rows = self._query("SELECT model, strategy, task_id, seed FROM samples WHERE status != 'error'")
        return {(row[0], row[1], row[2], int(row[3])) for row in rows}

    def samples(
        self, model: str | None = None, strategy: str | None = None, *, with_trace: bool = False
    ) -> list[Sample]:
        """Samples in the order they were first recorded, optionally of one model and/or strategy."""
        clauses, parameters = [], []
        for column, value in (("model", model), ("strategy", strategy)):
            if value is not None:
                clauses.append(f"{column} = ?")
                parameters.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        selected = ", ".join(name if with_trace or name != "trace_json" else "NULL AS trace_json" for name in SAMPLE_COLUMNS)
        rows = self._query(f"SELECT {selected} FROM samples {where} ORDER BY id", parameters)
        return [_sample_from_row(row) for row in rows]

    def labels(self, column: str, detail: str) -> dict[str, str]:
        """A label column mapped to what it stood for (model → spec, strategy → params) in this store."""
        if (column, detail) not in {("model", "model_spec"), ("strategy", "strategy_params")}:
            raise ValueError(f"no label mapping {column} -> {detail}")
        return {row[0]: row[1] for row in self._query(f"SELECT DISTINCT {column}, {detail} FROM samples")}

    def count(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM samples")[0][0])


def _sample_from_row(row: sqlite3.Row) -> Sample:
    """The sample a row holds; its scores come whole from scores_json (the columns are for SQL readers)."""
    values = {key: row[key] for key in row.keys() if key not in SCORE_COLUMNS}
    scores_json = values.pop("scores_json")
    return Sample(**values, scores=Scores.from_dict(json.loads(scores_json)) if scores_json else None)
