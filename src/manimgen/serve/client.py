"""A client of a running `manimgen serve`: `generate --server URL` hands its sentence to a server whose
model is already loaded, so a second sentence does not load the model again.

It posts the job, follows its events (checklist, stages, rounds) as they come, and fetches the video,
the code and the trace. The server is the user's own, yet its answers are read as data: the files are
named here (the video's suffix only from the known formats), downloads are capped, and an answer of
the wrong shape is a `ServerError`, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from manimgen.render.formats import FORMATS

CONNECT_TIMEOUT_S = 10.0
MAX_DOWNLOAD = 1 << 30
SUFFIXES = {format_.suffix for format_ in FORMATS.values()}


class ServerError(Exception):
    """The server cannot be reached, refused the job, or answered something this client cannot read."""


@contextmanager
def connect(url: str, token: str | None) -> Iterator[httpx.Client]:
    """A client for the server at `url`, carrying `token` when given."""
    if not url.startswith(("http://", "https://")):
        raise ServerError(f"the server address must start with http:// or https://, e.g. http://127.0.0.1:8000 (got {url[:80]!r})")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx.Timeout(60.0, connect=CONNECT_TIMEOUT_S)
    with httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout) as client:
        yield client


def _answer(client: httpx.Client, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    """The JSON object a request answers, or a ServerError that says what went wrong and the fix."""
    try:
        response = client.request(method, path, **kwargs)
    except httpx.TransportError as error:
        raise ServerError(f"cannot reach the server at {client.base_url} ({type(error).__name__}); start one with `manimgen serve`") from None
    if response.status_code == 401:
        raise ServerError("the server needs its token: give --token or set $MANIMGEN_TOKEN")
    try:
        body = response.json()
    except ValueError:
        body = None
    if not response.is_success:
        raise ServerError(f"the server refused: {_detail(body) or f'HTTP {response.status_code}'}")
    if not isinstance(body, dict):
        raise ServerError(f"{path} answered something that is not a job; is {client.base_url} a manimgen server?")
    return body


def _detail(body: object) -> str:
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):
        return "; ".join(str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in detail)[:300]
    return str(detail)[:300] if detail else ""


def submit(client: httpx.Client, request: dict[str, Any]) -> dict[str, Any]:
    """Queue a job (the body of POST /api/jobs) and return it."""
    job = _answer(client, "POST", "/api/jobs", json=request)
    if not isinstance(job.get("id"), str) or not job["id"].isalnum():
        raise ServerError("the server answered a job without a usable id")
    return job


def follow(client: httpx.Client, job_id: str, on_event: Callable[[str, dict[str, Any]], None]) -> dict[str, Any]:
    """Call `on_event(kind, payload)` for each of the job's events until it ends; then return the job."""
    try:
        with client.stream("GET", f"/api/jobs/{job_id}/events", timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT_S)) as response:
            if not response.is_success:
                raise ServerError(f"the server refused the job's events (HTTP {response.status_code})")
            kind = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: ") and kind is not None:
                    if kind == "end":
                        break
                    payload = _payload(line.removeprefix("data: "))
                    if payload is not None:
                        on_event(kind, payload)
    except httpx.TransportError as error:
        raise ServerError(f"lost the server while the job ran ({type(error).__name__}); the job goes on there: GET /api/jobs/{job_id}") from None
    return _answer(client, "GET", f"/api/jobs/{job_id}")


def _payload(data: str) -> dict[str, Any] | None:
    try:
        payload = json.loads(data)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def cancel(client: httpx.Client, job_id: str) -> None:
    """Ask the server to stop the job (it stops when its current round ends)."""
    _answer(client, "POST", f"/api/jobs/{job_id}/cancel")


def trace(client: httpx.Client, job_id: str) -> dict[str, Any] | None:
    """The job's trace, or None when it has none."""
    try:
        return _answer(client, "GET", f"/api/jobs/{job_id}/trace")
    except ServerError:
        return None


def video_path(job: dict[str, Any], target: Path) -> Path:
    """Where the finished `job`'s video goes: `target` with the suffix of its format (a still scene is a PNG);
    only the server's suffix is read, and one this client does not know is refused."""
    suffix = Path(str(job.get("video") or "")).suffix.lower()
    if suffix not in SUFFIXES:
        raise ServerError(f"the server's video is not one of the known formats ({suffix or 'none'})")
    return target.with_suffix(suffix)


def fetch(client: httpx.Client, job_id: str, what: str, target: Path) -> Path:
    """Download the job's `video` or `code` to `target`, at most MAX_DOWNLOAD bytes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    try:
        with client.stream("GET", f"/api/jobs/{job_id}/{what}") as response:
            if not response.is_success:
                raise ServerError(f"the server has no {what} for job {job_id} (HTTP {response.status_code})")
            with target.open("wb") as handle:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_DOWNLOAD:
                        raise ServerError(f"the server's {what} is over {MAX_DOWNLOAD >> 20} MiB; not kept")
                    handle.write(chunk)
    except httpx.TransportError as error:
        target.unlink(missing_ok=True)
        raise ServerError(f"lost the server while fetching the {what} ({type(error).__name__})") from None
    except ServerError:
        target.unlink(missing_ok=True)
        raise
    return target
