"""The job store: one SQLite file of jobs and the events each job emits, so a restarted server keeps
what finished and knows what was cut short.

A job is a sentence (or, for a re-render, scene code) with its model, strategy, quality and format. Its
status moves queued → running → done | failed | cancelled; a job still `running` when a server
starts was interrupted by the last one's end and is marked so (it can be retried). A finished job's
row is final: every write says so in its SQL. Events are numbered per job, so a client streaming
them resumes from the last number it saw.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from manimgen.render.formats import DEFAULT_FORMAT

STORE_NAME = "jobs.sqlite"
QUEUED, RUNNING, DONE, FAILED, CANCELLED, INTERRUPTED = "queued", "running", "done", "failed", "cancelled", "interrupted"
FINISHED = (DONE, FAILED, CANCELLED, INTERRUPTED)
INTERRUPTED_MESSAGE = "the server stopped while this job ran; retry it"
UNFINISHED = f"status NOT IN ({', '.join(repr(status) for status in FINISHED)})"
"""The SQL condition every write to a job's row carries: a finished job is never changed again."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    sentence TEXT NOT NULL,
    code TEXT,
    model TEXT NOT NULL,
    strategy TEXT NOT NULL,
    quality TEXT NOT NULL,
    video_format TEXT NOT NULL DEFAULT 'mp4',
    status TEXT NOT NULL,
    error TEXT,
    video TEXT,
    scene TEXT,
    rounds INTEGER NOT NULL DEFAULT 0,
    retry_of TEXT,
    checklist TEXT,
    params TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS events (
    job_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (job_id, seq)
);
"""

ADDED_COLUMNS = {"checklist": "TEXT", "video_format": f"TEXT NOT NULL DEFAULT '{DEFAULT_FORMAT}'", "params": "TEXT"}
"""Columns added since the first release, added to an older jobs file when a server opens it."""


@dataclass
class Job:
    """A job's row. `kind` names its runner (serve/engine.py `RUNNERS`): "generate" (a sentence), "render" (scene
    code given by the user), or one a part above adds ("lesson"), whose own options are `params`."""

    id: str
    kind: str
    sentence: str
    model: str
    strategy: str
    quality: str
    video_format: str = DEFAULT_FORMAT
    status: str = QUEUED
    code: str | None = None
    error: str | None = None
    video: str | None = None
    scene: str | None = None
    rounds: int = 0
    retry_of: str | None = None
    checklist: str | None = None  # a person's edit of the sentence's checklist, as JSON (checks/requirements.py)
    params: str | None = None  # a kind's own options as JSON (a lesson's scenes, voice and storyboard)
    created_at: str = field(default_factory=lambda: now())
    started_at: str | None = None
    finished_at: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Event:
    seq: int
    at: str
    kind: str
    payload: dict[str, Any]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class JobStore:
    """Thread-safe access to the jobs file (one connection, a lock, WAL).

    Once closed, a job's writes (`update`, `emit`, `finish`) are dropped: a worker still inside a
    model call when its engine closed ends later, after the engine marked its job interrupted.
    """

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._closed = False
        self._conn = sqlite3.connect(root / STORE_NAME, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(SCHEMA)
        columns = {row["name"] for row in self._conn.execute("PRAGMA table_info(jobs)")}
        for name, declaration in ADDED_COLUMNS.items():
            if name not in columns:
                self._conn.execute(f"ALTER TABLE jobs ADD COLUMN {name} {declaration}")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._conn.close()

    def add(self, job: Job) -> Job:
        values = job.to_dict()
        columns = ", ".join(values)
        with self._lock:
            self._conn.execute(f"INSERT INTO jobs ({columns}) VALUES ({', '.join('?' * len(values))})", list(values.values()))
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return Job(**dict(row)) if row else None

    def recent(self, limit: int = 50) -> list[Job]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?", (limit,)).fetchall()
        return [Job(**dict(row)) for row in rows]

    def update(self, job_id: str, **values: Any) -> None:
        """Change a job that has not finished; a finished job's row is final."""
        assignments = ", ".join(f"{name} = ?" for name in values)
        with self._lock:
            if not self._closed:
                self._conn.execute(f"UPDATE jobs SET {assignments} WHERE id = ? AND {UNFINISHED}", [*values.values(), job_id])

    def claim(self) -> Job | None:
        """The oldest queued job, marked running in the same transaction (no two workers take one job)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            row = self._conn.execute("SELECT * FROM jobs WHERE status = ? ORDER BY created_at, rowid LIMIT 1", (QUEUED,)).fetchone()
            if row is not None:
                self._conn.execute("UPDATE jobs SET status = ?, started_at = ? WHERE id = ?", (RUNNING, now(), row["id"]))
            self._conn.execute("COMMIT")
        if row is None:
            return None
        return Job(**{**dict(row), "status": RUNNING})

    def ahead(self, job: Job) -> int:
        """How many jobs run or wait before a queued one (0 for a job that is not queued)."""
        if job.status != QUEUED:
            return 0
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM jobs WHERE status = ? OR (status = ? AND (created_at < ? OR (created_at = ? AND rowid < (SELECT rowid FROM jobs WHERE id = ?))))",
                (RUNNING, QUEUED, job.created_at, job.created_at, job.id),
            ).fetchone()
        return int(row[0])

    def typical_seconds(self, kind: str, recent: int = 20) -> float | None:
        """The median run time of the last `recent` finished jobs of `kind` that made a video; None before there are any."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT started_at, finished_at FROM jobs WHERE kind = ? AND status = ? AND started_at IS NOT NULL AND finished_at IS NOT NULL "
                "ORDER BY finished_at DESC LIMIT ?",
                (kind, DONE, recent),
            ).fetchall()
        seconds = sorted((datetime.fromisoformat(row[1]) - datetime.fromisoformat(row[0])).total_seconds() for row in rows)
        return seconds[len(seconds) // 2] if seconds else None

    def cancel_if_queued(self, job_id: str) -> bool:
        """Cancel a job that no worker has taken (with its last event); False when one has."""
        error = "cancelled before it started"
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            cursor = self._conn.execute(
                "UPDATE jobs SET status = ?, finished_at = ?, error = ? WHERE id = ? AND status = ?", (CANCELLED, now(), error, job_id, QUEUED)
            )
            if cursor.rowcount == 1:
                self._emit(job_id, "status", {"status": CANCELLED, "error": error})
            self._conn.execute("COMMIT")
        return cursor.rowcount == 1

    def mark_interrupted(self) -> list[str]:
        """Jobs a previous server left running: they are interrupted now."""
        with self._lock:
            ids = [row[0] for row in self._conn.execute("SELECT id FROM jobs WHERE status = ?", (RUNNING,)).fetchall()]
            self._conn.execute(
                "UPDATE jobs SET status = ?, finished_at = ?, error = ? WHERE status = ?", (INTERRUPTED, now(), INTERRUPTED_MESSAGE, RUNNING)
            )
        return ids

    def emit(self, job_id: str, kind: str, payload: dict[str, Any]) -> None:
        with self._lock:
            if not self._closed:
                self._emit(job_id, kind, payload)

    def finish(self, job_id: str, status: str, values: dict[str, Any], payload: dict[str, Any]) -> bool:
        """The job's final row and its last event in one transaction: a reader that sees the job
        finished also sees that event. A job that has already finished keeps its row and gets no
        event (False): its first end is its end."""
        assignments = ", ".join(f"{name} = ?" for name in ("status", "finished_at", *values))
        with self._lock:
            if self._closed:
                return False
            self._conn.execute("BEGIN IMMEDIATE")
            cursor = self._conn.execute(
                f"UPDATE jobs SET {assignments} WHERE id = ? AND {UNFINISHED}", [status, now(), *values.values(), job_id]
            )
            if cursor.rowcount == 1:
                self._emit(job_id, "status", payload)
            self._conn.execute("COMMIT")
        return cursor.rowcount == 1

    def _emit(self, job_id: str, kind: str, payload: dict[str, Any]) -> Event:
        seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE job_id = ?", (job_id,)).fetchone()[0]
        event = Event(seq, now(), kind, payload)
        self._conn.execute(
            "INSERT INTO events (job_id, seq, at, kind, payload) VALUES (?, ?, ?, ?, ?)",
            (job_id, seq, event.at, kind, json.dumps(payload, ensure_ascii=False)),
        )
        return event

    def events(self, job_id: str, after: int = 0) -> list[Event]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, at, kind, payload FROM events WHERE job_id = ? AND seq > ? ORDER BY seq", (job_id, after)
            ).fetchall()
        return [Event(row[0], row[1], row[2], json.loads(row[3])) for row in rows]
