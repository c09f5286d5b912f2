"""The renderer interface on a Ray cluster: warm sandboxed workers as Ray actors on the render nodes.

Why Ray: placement by resources, node-failure detection and transport are Ray's; this module only
maps the `Renderer` protocol onto it. Each actor holds one runner as a local pool does (a warm
worker, render/warm.py, where the node can seal its renders), under the same sandbox and limits,
and needs one unit of the custom `manim` resource, which a node offers only when it has the render
stack (`ray start --resources '{"manim": N}'`).

The caller keeps the content-addressed cache: a hit never leaves the machine; a miss goes to an idle
actor, whose answer (status, scene, error tail, the output's bytes) is checked as if it came from the
sandbox itself and entered in the caller's cache under a name the caller chooses. An actor or node
that dies mid-render costs a retry on another actor (at most `retries`), never a lost or doubled
result; the dead actor is replaced when the cluster has room for one.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import queue
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from manimgen.render.cache import RenderCache, default_cache, render_key, uncached_store
from manimgen.render.pool import RenderJob, map_in_turn, map_submitted, runner_for
from manimgen.render.renderer import ChildRunner, render_on, render_uncached
from manimgen.render.result import RenderResult, RenderStatus
from manimgen.render.sandbox import Limits
from manimgen.syntax import defined_classes

RESOURCE = "manim"
OUTPUT_SUFFIXES = (".mp4", ".png")
MAX_TAIL_CHARS = 4000
# Beyond the render's own wall limit: time for the actor's reply to cross the network.
REPLY_GRACE_S = 60.0
# The TCP probe and the head's first gRPC answer: a head that is up gives both within a second, loaded or not.
CONNECT_TIMEOUT_S = 10.0
# ray.init once the head has answered: joining takes seconds even on a loaded machine, while Ray retries
# a head it cannot use (an address it rewrote, a token it lacks) for minutes.
JOIN_TIMEOUT_S = 30.0
# A render actor starts in seconds; a cluster that cannot place one would leave every render of a study
# waiting out its whole timeout, retry after retry.
PLACE_TIMEOUT_S = 60.0
# Ray rewrites a loopback address to this machine's routable one unless this is 0 when `ray` is imported;
# a cluster started on loopback listens there only.
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# What every driver asks the head first (it takes no arguments): only a Ray head answers it.
GCS_CLUSTER_ID = "/ray.rpc.NodeInfoGcsService/GetClusterId"


class RayBackendError(RuntimeError):
    """The cluster cannot render as asked; the message names the fix."""


class RenderActor:
    """One warm sandboxed worker on a render node (wrapped by `ray.remote` at connection time)."""

    def __init__(self, limits: Limits) -> None:
        self._runner = runner_for(limits, warm=True)
        self._own = _OwnWorker(self._runner)

    def render(self, code: str, scene: str | None, quality: str, geometry: bool) -> tuple[dict[str, Any], bytes | None]:
        """The render's result as plain data and its output's bytes (the caller names the file)."""
        with tempfile.TemporaryDirectory(prefix="manimgen-ray-") as tmp:
            result = render_uncached(code, scene, quality, runner=self._runner, keep_in=Path(tmp), geometry=geometry)
            payload = result.output.read_bytes() if result.output is not None else None
            return result.to_dict(), payload

    def apply(self, function: Callable[..., Any], *args: Any) -> Any:
        """`function(renderer, *args)` on this node, `renderer` being this actor's worker: how a part above
        the renderer (scoring) runs its own work next to the renders it needs."""
        return function(self._own, *args)

    def close(self) -> None:
        self._runner.close()


class _OwnWorker:
    """An actor's warm worker as a Renderer for work run on its node (`apply`), through the node's render cache."""

    def __init__(self, runner: ChildRunner) -> None:
        self._runner = runner

    def render(self, job: RenderJob) -> RenderResult:
        return render_on(self._runner, job.code, job.scene, job.quality, geometry=job.geometry)

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        return map_in_turn(self.render, jobs, on_done)


def connect(address: str) -> Any:
    """The `ray` module, connected to the cluster at ADDRESS (`auto`, `HOST:PORT` or `ray://HOST:PORT`)."""
    _keep_loopback(_host_port(address)[0])
    try:
        import ray
    except ImportError:
        raise RayBackendError("Ray is not installed; install it with: pip install 'manimgen[ray]'") from None
    if ray.is_initialized():
        connected = ray.get_runtime_context().gcs_address
        asked = address.removeprefix("ray://")
        if address != "auto" and asked.rpartition(":")[2] != connected.rpartition(":")[2]:
            raise RayBackendError(
                f"this process is already connected to the Ray cluster at {connected}, not {address}; use that address"
            )
    else:
        _check_reachable(address)
        _join(ray, address)
    return ray


def _host_port(address: str) -> tuple[str, str]:
    """HOST and PORT of `HOST:PORT` or `ray://HOST:PORT` (an IPv6 host without its brackets); empty where absent."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    return host.strip("[]"), port


def _keep_loopback(host: str) -> None:
    """Let a loopback address stay one: Ray rewrites it to this machine's routable address, where a cluster
    started on loopback does not listen, and retries there for minutes. The setting acts only if `ray` is
    not imported yet, and only changes which address Ray takes for this machine."""
    if _is_loopback(host):
        os.environ.setdefault(LOOPBACK_ENV, "0")


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_reachable(address: str) -> None:
    """Fail in seconds, with the fix, where Ray itself would retry a head it cannot use for minutes."""
    host, port = _host_port(address)
    if address == "auto" or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        raise RayBackendError(
            f"no Ray cluster answers at {address} ({error.strerror or error}); start one with `ray start --head --port {port}` "
            "or check the address"
        ) from None
    if not address.startswith("ray://") and os.environ.get("RAY_USE_TLS", "0").lower() not in ("1", "true"):
        _check_head(address)


def _check_head(address: str) -> None:
    """Ask for the cluster's id as Ray's first call does: something that is not a Ray head, or a head that
    wants a token this process does not send, fails here at once rather than in Ray's retries."""
    import grpc

    with grpc.insecure_channel(address) as channel:
        try:
            channel.unary_unary(GCS_CLUSTER_ID)(b"", timeout=CONNECT_TIMEOUT_S)
        except grpc.RpcError as error:
            code = error.code()
            if code != grpc.StatusCode.UNAUTHENTICATED:
                raise RayBackendError(
                    f"something answers at {address} but not as a Ray cluster's head ({code.name}); give the port the head "
                    "was started with (`ray start --head --port PORT`)"
                ) from None
            if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
                raise RayBackendError(
                    f"the Ray cluster at {address} requires token authentication; set RAY_AUTH_MODE=token and its token "
                    "(RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token)"
                ) from None


def _join(ray: Any, address: str) -> None:
    """`ray.init`, given JOIN_TIMEOUT_S. Ray's retries cannot be interrupted, so the call runs in a daemon
    thread that a process giving up leaves behind (a command then exits; a library caller gets the error)."""
    from ray.exceptions import RayError

    logging.getLogger("ray._private.worker").addFilter(_OFF_MAIN_THREAD_NOTE)
    outcome: queue.SimpleQueue[BaseException | None] = queue.SimpleQueue()

    def init() -> None:
        try:
            ray.init(address=address, logging_level="warning", log_to_driver=False, configure_logging=False)
        except BaseException as error:  # handed to the waiting caller, which raises it
            outcome.put(error)
        else:
            outcome.put(None)

    threading.Thread(target=init, name="ray-join", daemon=True).start()
    try:
        error = outcome.get(timeout=JOIN_TIMEOUT_S)
    except queue.Empty:
        raise _unjoinable(address, f"no answer within {JOIN_TIMEOUT_S:.0f} s") from None
    if isinstance(error, ValueError):
        raise RayBackendError(f"{address} is not a Ray cluster address ({_first_line(error)}); give HOST:PORT, ray://HOST:PORT or auto") from None
    if isinstance(error, ConnectionError) and address == "auto":
        raise RayBackendError(f"no Ray cluster found here ({_first_line(error)}); start one with `ray start --head` or give its address") from None
    if isinstance(error, (ConnectionError, RuntimeError, RayError)):  # a head was found; joining it failed
        raise _unjoinable(address, _first_line(error)) from None
    if error is not None:
        raise error


class _OffMainThreadNote(logging.Filter):
    """Drops Ray's warning that `ray.init` ran off the main thread, as `_join` means it to: the driver then keeps
    Python's own SIGTERM handling, which skips only Ray's tidy disconnect (the head notices the driver leave)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("SIGTERM handler is not set")


_OFF_MAIN_THREAD_NOTE = _OffMainThreadNote()


def _unjoinable(address: str, why: str) -> RayBackendError:
    """The head answered, yet this process could not join: a driver must run on a node of the cluster (Ray looks
    for one on this machine), keep a loopback address loopback, and send the token if the cluster wants one."""
    if _is_loopback(_host_port(address)[0]):
        fix = f"for a cluster on this machine, set {LOOPBACK_ENV}=0 before `ray` is imported (docs/scale-out.md)"
    else:
        fix = f"run this on one of its nodes (`ray start --address {address}` here first)"
    return RayBackendError(f"could not join the Ray cluster at {address} ({why}); {fix}, with RAY_AUTH_MODE=token and its token if it uses tokens")


def _first_line(error: BaseException) -> str:
    """Ray's errors can carry whole log excerpts; a one-line message keeps their first line."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class RayRenderer:
    """Renders on the cluster's render actors: one per unit of the `manim` resource (its `share` of them, or `actors`)."""

    def __init__(
        self,
        address: str,
        *,
        actors: int | None = None,
        timeout_s: float | None = None,
        limits: Limits | None = None,
        use_cache: bool = True,
        cache: RenderCache | None = None,
        retries: int = 2,
        share: int = 1,
    ) -> None:
        """`share`: how many processes (training ranks) split the cluster's render units between them."""
        self._ray = connect(address)
        self.limits = limits or Limits()
        if timeout_s is not None:
            self.limits = replace(self.limits, timeout_s=timeout_s)
        self.use_cache = use_cache
        self._cache = cache
        self.retries = retries
        offered = int(self._ray.cluster_resources().get(RESOURCE, 0))
        if offered < 1:
            raise RayBackendError(
                f"no node of the Ray cluster at {address} offers the `{RESOURCE}` resource; start render nodes with "
                f"`ray start --address ADDRESS --resources '{{\"{RESOURCE}\": N}}'` (N renders at a time)"
            )
        self.workers = min(actors or max(1, offered // share), offered)
        self._actor_class = self._ray.remote(num_cpus=1, resources={RESOURCE: 1}, max_restarts=0)(RenderActor)
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._live = 0
        self._await_placement([self._add_actor() for _ in range(self.workers)], address)
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ray-render")

    def _add_actor(self) -> Any:
        with self._lock:
            self._live += 1
        actor = self._actor_class.remote(self.limits)
        self._idle.put(actor)
        return actor

    def _await_placement(self, actors: list[Any], address: str) -> None:
        """Fail, with the fix, where the cluster does not start these actors within PLACE_TIMEOUT_S (it offers
        `manim` units but no CPU beside them, or another run holds them). An actor whose node leaves while it
        starts counts as placed: the first render sent to it finds it dead, loses it and goes elsewhere."""
        refs = [actor.__ray_ready__.remote() for actor in actors]
        _, waiting = self._ray.wait(refs, num_returns=len(refs), timeout=PLACE_TIMEOUT_S)
        if waiting:
            for actor in actors:
                self._ray.kill(actor, no_restart=True)
            raise RayBackendError(
                f"the Ray cluster at {address} did not start {len(actors)} render actors (one CPU and one `{RESOURCE}` unit "
                f"each) within {PLACE_TIMEOUT_S:.0f} s; free the units another run holds, or give render nodes CPUs "
                "(`ray start --num-cpus N`)"
            )

    def _lose(self, actor: Any) -> None:
        """Forget an actor that died (or hung); start a replacement when a `manim` unit is free for it."""
        self._ray.kill(actor, no_restart=True)
        with self._lock:
            self._live -= 1
        if self._ray.available_resources().get(RESOURCE, 0) >= 1:
            self._add_actor()

    def _take(self) -> Any | None:
        """The next idle actor, waiting while all are busy; None once none is left alive."""
        while True:
            with self._lock:
                if self._live == 0:
                    return None
            try:
                return self._idle.get(timeout=1.0)
            except queue.Empty:
                continue

    def submit(self, job: RenderJob) -> Future[RenderResult]:
        return self._executor.submit(self.render, job)

    def render(self, job: RenderJob) -> RenderResult:
        """Render `job` on an idle actor (retried elsewhere if that actor dies), through the caller's cache."""
        key, store = self._keyed(job)
        if self.use_cache:
            hit = store.get(key)
            if hit is not None:
                return hit
        answer = self._remote(lambda actor: actor.render.remote(job.code, job.scene, job.quality, job.geometry))
        if isinstance(answer, str):
            return RenderResult(RenderStatus.SANDBOX_ERROR, None, job.scene, answer, job.quality, 0.0)
        data, payload = answer[0]
        return self._enter(key, store, checked(data, payload, job, self.limits), job)

    def apply(self, function: Callable[..., Any], *args: Any) -> Any:
        """`function(renderer, *args)` on an idle actor's node (retried elsewhere if the actor dies); its answer
        comes back as the function returned it, for the caller to check."""
        answer = self._remote(lambda actor: actor.apply.remote(function, *args))
        if isinstance(answer, str):
            raise RayBackendError(answer)
        return answer[0]

    def enter(self, job: RenderJob, data: Any, payload: Any) -> RenderResult:
        """A render an `apply`d function made on a node, checked and entered in the caller's cache."""
        key, store = self._keyed(job)
        return self._enter(key, store, checked(data, payload, job, self.limits), job)

    def _keyed(self, job: RenderJob) -> tuple[str, RenderCache]:
        """`job`'s cache key and the store its result goes to (the caller's cache, or none)."""
        key = render_key(job.code, job.scene, job.quality, geometry=job.geometry)
        return key, (self._cache or default_cache()) if self.use_cache else uncached_store()

    def _enter(self, key: str, store: RenderCache, answer: tuple[RenderResult, bytes | None] | str, job: RenderJob) -> RenderResult:
        """A checked answer entered in the caller's cache (its output written under the caller's name)."""
        if isinstance(answer, str):
            return RenderResult(RenderStatus.SANDBOX_ERROR, None, job.scene, answer, job.quality, 0.0)
        result, payload = answer
        if payload is None:
            return store.put(key, result, fresh=not self.use_cache)
        with tempfile.TemporaryDirectory(prefix="manimgen-ray-out-") as tmp:
            assert result.output is not None
            output = Path(tmp) / result.output.name
            output.write_bytes(payload)
            return store.put(key, replace(result, output=output), fresh=not self.use_cache)

    def _remote(self, call: Callable[[Any], Any]) -> tuple[Any] | str:
        """The answer of the first actor that answers `call(actor)` (in a 1-tuple), or why none did."""
        from ray.exceptions import GetTimeoutError, RayActorError, WorkerCrashedError

        lost: list[str] = []
        for _ in range(self.retries + 1):
            actor = self._take()
            if actor is None:
                break
            try:
                answer = self._ray.get(call(actor), timeout=self.limits.timeout_s * 2 + REPLY_GRACE_S)
            except (RayActorError, WorkerCrashedError, GetTimeoutError) as error:
                lost.append(type(error).__name__)
                self._lose(actor)
                continue
            except BaseException:  # the work itself raised (RayTaskError): the actor is fine and goes back
                self._idle.put(actor)
                raise
            self._idle.put(actor)
            return (answer,)
        tried = f" after {len(lost)} lost actors ({', '.join(lost)})" if lost else ""
        return f"RenderBackendError: no render actor could take the render{tried}; check the cluster with `manimgen doctor --ray`"

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        return map_submitted(self.submit, jobs, on_done)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        while not self._idle.empty():
            actor = self._idle.get()
            try:
                self._ray.get(actor.close.remote(), timeout=30)
            except Exception:  # an actor already gone has nothing left to close
                pass
            self._ray.kill(actor, no_restart=True)

    def __enter__(self) -> RayRenderer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def checked(data: Any, payload: Any, job: RenderJob, limits: Limits) -> tuple[RenderResult, bytes | None] | str:
    """An actor's answer, taken only if it is what the sandbox's host side can produce; else why not.

    The actor is our own code, but it ran next to generated code on another machine: its answer is
    read as defensively as the sandbox's report is.
    """
    try:
        result = RenderResult.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return "RenderBackendError: the render actor's answer could not be read"
    tail = str(result.error_tail)[-MAX_TAIL_CHARS:]
    if not result.ok:
        return replace(result, output=None, error_tail=tail, geometry=None), None
    suffix = result.output.suffix.lower() if result.output is not None else ""
    if not isinstance(payload, bytes) or not payload or suffix not in OUTPUT_SUFFIXES or len(payload) > limits.file_size_bytes:
        return "RenderBackendError: the render actor's output is missing, of an unknown kind, or over the size limit"
    scene = result.scene
    if not isinstance(scene, str) or not scene.isidentifier() or scene not in ({job.scene} if job.scene else defined_classes(job.code)):
        return "RenderBackendError: the render actor reported a scene the code does not define"
    if result.geometry is not None and not isinstance(result.geometry, list):
        return "RenderBackendError: the render actor's layout record could not be read"
    return replace(result, output=Path(f"{scene}{suffix}"), error_tail=tail), payload

