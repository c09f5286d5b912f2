"""Every render as sealed as a fresh sandbox, on every render path (fresh, warm pool, Ray).

What one render leaves (files anywhere, IPC objects, keys, memory charges, inotify instances) never
reaches the next render or the host; the host reaches a render's output only through the folder it
opened itself; and whatever a scene builds, prints or nests, the host answers with a status and one
line, never an exception. Each case runs a sequence of renders on one runner of the path, so the
second render follows the first on the same warm worker or Ray actor.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from manimgen.render import Limits, RenderJob, RenderPool, RenderResult, RenderStatus, render
from manimgen.render.handover import opened, take_output
from manimgen.render.protocol import OUTPUTS, RESULT_MARKER
from manimgen.render.sandbox import SCENE_UIDS, warm_sealed

FAST = Limits(timeout_s=30, disk_bytes=200 << 20)
InTurn = Callable[..., list[RenderResult]]
KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
SEALED = pytest.mark.skipif(not warm_sealed(), reason="renders are sealed this way only when manimgen runs as root")


def scene(body: str) -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return f"from manim import *\nimport ctypes, os, sys\n\n\nclass Hostile(Scene):\n    def construct(self):\n{lines}\n"


def forged(before: str, payload: str = '{"scene": "Hostile"}') -> str:
    """A scene that does `before`, then prints the child's report line itself and exits at once."""
    return scene(f"{before}\nprint({RESULT_MARKER!r} + {payload!r}, flush=True)\nos._exit(0)")


CIRCLE = scene("self.add(Circle())")


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "resources": {"manim": 2}, "include_dashboard": False, "object_store_memory": 100 << 20})
    nodes.wait_for_nodes()
    yield nodes.address
    ray.shutdown()
    nodes.shutdown()


@pytest.fixture(params=["fresh", "warm", "ray"])
def path(request: pytest.FixtureRequest) -> str:
    if request.param != "fresh" and not warm_sealed():
        pytest.skip("warm renders are off where a worker cannot seal them (not root): the pool renders fresh")
    return request.param


def renders_in_turn(path: str, codes: list[str], limits: Limits, *, geometry: bool = False, ray_address: str | None = None) -> list[RenderResult]:
    """Render `codes` one after another on one runner of `path`."""
    jobs = [RenderJob(code, geometry=geometry) for code in codes]
    if path == "fresh":
        return [render(job.code, limits=limits, use_cache=False, geometry=geometry) for job in jobs]
    if path == "warm":
        with RenderPool(1, warm=True, limits=limits, use_cache=False) as pool:
            assert pool.warm
            return [pool.render(job) for job in jobs]
    from manimgen.render.ray_backend import RayRenderer

    assert ray_address is not None
    renderer = RayRenderer(ray_address, actors=1, limits=limits, use_cache=False)
    try:
        return [renderer.render(job) for job in jobs]
    finally:
        renderer.close()


@pytest.fixture
def in_turn(path: str, request: pytest.FixtureRequest) -> InTurn:
    address = request.getfixturevalue("ray_address") if path == "ray" else None
    return lambda codes, limits=FAST, **options: renders_in_turn(path, codes, limits, ray_address=address, **options)


def last_line(result: RenderResult) -> str:
    return result.error_tail.splitlines()[-1] if result.error_tail else ""


# --- the scratch folder ---------------------------------------------------------------------------


def test_a_render_cannot_swap_its_folder_for_a_link_to_the_host(in_turn, tmp_path: Path) -> None:
    decoy = tmp_path / "decoy"
    (decoy / "media" / "videos").mkdir(parents=True)
    (decoy / "media" / "videos" / "render.mp4").write_bytes(b"host video")
    (decoy / "geometry.json").write_text('{"snapshots": []}')
    swap = (
        "here = os.getcwd()\n"
        "try:\n"
        "    os.rename(here, here + '-moved')\n"
        f"    os.symlink({str(decoy)!r}, here)\n"
        "    swapped = 'swapped'\n"
        "except OSError as error:\n"
        "    swapped = repr(error)\n"
    )
    refused, quiet = in_turn([scene(swap + "raise RuntimeError(swapped)"), forged(swap)], geometry=True)
    assert last_line(refused) == "RuntimeError: PermissionError(13, 'Permission denied')"
    assert (quiet.status, quiet.error_tail, quiet.output, quiet.geometry) == (
        RenderStatus.NO_OUTPUT,
        "the scene rendered but wrote no video or image",
        None,
        None,
    )
    assert (decoy / "media" / "videos" / "render.mp4").read_bytes() == b"host video"


def test_the_host_reads_through_the_folder_it_opened_not_its_path(tmp_path: Path) -> None:
    decoy = tmp_path / "decoy"
    (decoy / "media" / "videos").mkdir(parents=True)
    (decoy / "media" / "videos" / "render.mp4").write_bytes(b"host video")
    folder = tmp_path / "scratch"
    folder.mkdir()
    with opened(folder, None) as scratch:
        (folder / "media" / "videos").mkdir(parents=True)
        (folder / "media" / "videos" / "render.mp4").write_bytes(b"the render's video")
        folder.rename(tmp_path / "moved")
        folder.symlink_to(decoy)
        kept = take_output(scratch, OUTPUTS, tmp_path / "kept", 1 << 20)
    assert kept is not None and kept.read_bytes() == b"the render's video"


def test_nothing_a_render_writes_reaches_the_next_and_it_writes_only_its_own_places(in_turn) -> None:
    name = f"left-{uuid.uuid4().hex}"
    own = ("'/tmp'", "'/dev/shm'", "os.path.expanduser('~')", "os.getcwd()", "os.environ['TMPDIR']")
    other = ("'..'", "'../..'", "'../../tmp'", "'../../logs'", "'/var/tmp'", "'/'", "'/usr'", "sys.prefix")
    write = (
        f"def wrote(place):\n    try:\n        open(os.path.join(place, {name!r}), 'w').write('x')\n        return True\n"
        "    except OSError:\n        return False\n"
    )
    first = scene(
        f"{write}mine = [os.path.realpath(place) for place in ({', '.join(own)})]\n"
        "own = [place for place in mine if not wrote(place)]\n"
        f"others = [os.path.realpath(place) for place in ({', '.join(other)})]\n"
        "def own_place(place):\n    return os.path.isdir(place) and any(os.path.samefile(place, own) for own in mine)\n"
        "other = [place for place in others if not own_place(place) and wrote(place)]\n"
        "raise RuntimeError(f'own refused: {own}; other written: {other}')"
    )
    second = scene(
        f"found = [place for place in ({', '.join(own + other)}) if os.path.exists(os.path.join(place, {name!r}))]\n"
        "raise RuntimeError(f'left over: {found}')"
    )
    wrote, checked = in_turn([first, second])
    assert last_line(wrote) == "RuntimeError: own refused: []; other written: []"
    assert last_line(checked) == "RuntimeError: left over: []"


def test_a_render_that_fills_tmp_stops_at_its_quota_and_leaves_the_space(in_turn) -> None:
    fill = (
        "written = 0\n"
        "try:\n"
        "    for index in range(1000):\n"
        "        with open(f'/tmp/fill-{index}.bin', 'wb') as out:\n"
        "            written += out.write(b'0' * (8 << 20))\n"
        "except OSError as error:\n"
        "    raise RuntimeError(f'stopped after {written} bytes: {error.strerror}')"
    )
    after = "for index in range(19):\n    with open(f'/tmp/after-{index}.bin', 'wb') as out:\n        out.write(b'0' * (8 << 20))\nself.add(Circle())"
    filled, next_render = in_turn([scene(fill), scene(after)])
    message = last_line(filled)
    assert message.startswith("RuntimeError: stopped after ") and message.endswith(" bytes: No space left on device")
    assert int(message.split()[3]) <= FAST.disk_bytes
    assert next_render.ok, next_render.error_tail


def test_a_deep_tree_anywhere_is_cleaned_up_and_every_later_render_works(in_turn) -> None:
    build = (
        "home = os.getcwd()\n"
        "for base in ('/tmp', home):\n"
        "    os.chdir(base)\n"
        "    for _ in range(3000):\n"
        "        os.mkdir('d')\n"
        "        os.chdir('d')\n"
        "os.chdir(home)\n"
        "self.add(Circle())"
    )
    look = "left = [name for name in os.listdir('/tmp') if not os.getcwd().startswith('/tmp/' + name)]\nraise RuntimeError(f'tmp holds: {left}')"
    built, looked, plain = in_turn([scene(build), scene(look), CIRCLE])
    assert built.ok, built.error_tail
    assert last_line(looked) == "RuntimeError: tmp holds: []"
    assert plain.ok, plain.error_tail


# --- IPC, keys, memory, inotify -------------------------------------------------------------------

IPC_SETUP = """libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
KEY, CREATE = 0x6D67, 0o1000 | 0o666
"""


def test_ipc_objects_do_not_outlive_their_render(in_turn) -> None:
    create = IPC_SETUP + (
        "made = []\n"
        "shm = libc.shmget(KEY, 4096, CREATE)\n"
        "if shm >= 0 and libc.shmat(shm, None, 0) not in (None, -1):\n"
        "    made.append('shm')\n"
        "queue = libc.msgget(KEY, CREATE)\n"
        "message = (ctypes.c_long * 2)(1, 42)\n"
        "if queue >= 0 and libc.msgsnd(queue, message, 8, 0) == 0:\n"
        "    made.append('msg')\n"
        "if libc.semget(KEY, 1, CREATE) >= 0:\n"
        "    made.append('sem')\n"
        "mq = libc.mq_open(b'/manimgen-left', 0o100 | 2, 0o666, None)\n"
        "if mq >= 0 and libc.mq_send(mq, b'left', 4, 0) == 0:\n"
        "    made.append('mq')\n"
        "raise RuntimeError(f'made: {made}')"
    )
    look = IPC_SETUP + (
        "found = [name for name, handle in (('shm', libc.shmget(KEY, 0, 0)), ('msg', libc.msgget(KEY, 0)),\n"
        "    ('sem', libc.semget(KEY, 0, 0)), ('mq', libc.mq_open(b'/manimgen-left', 0, 0, None))) if handle >= 0]\n"
        "raise RuntimeError(f'found: {found}')"
    )
    made, looked = in_turn([scene(create), scene(look)])
    assert last_line(made) == "RuntimeError: made: ['shm', 'msg', 'sem', 'mq']"
    assert last_line(looked) == "RuntimeError: found: []"


def test_shared_memory_a_render_leaves_is_not_charged_to_the_next(in_turn) -> None:
    leave = IPC_SETUP + (
        "size = 1200 << 20\n"
        "segment = libc.shmget(KEY, size, CREATE)\n"
        "address = libc.shmat(segment, None, 0)\n"
        "ctypes.memset(address, 1, size)\n"
        "libc.shmdt(ctypes.c_void_p(address))\n"
        "self.add(Circle())"
    )
    innocent = "hog = bytearray(1000 << 20)\nhog[::4096] = b'x' * len(hog[::4096])\nself.add(Circle())"
    left, next_render = in_turn([scene(leave), scene(innocent)], Limits(timeout_s=60))
    assert left.ok, left.error_tail
    assert next_render.ok, next_render.error_tail


@pytest.mark.skipif(KEYCTL is None, reason="keyctl's syscall number is known here for x86_64 and aarch64 only")
def test_keys_stay_with_their_render_and_the_host_keeps_its_own(in_turn) -> None:
    assert KEYCTL is not None
    add_key, keyctl = KEYCTL
    host_key, nobody_key, render_key = (f"manimgen-{kind}-{uuid.uuid4().hex[:8]}" for kind in ("host", "nobody", "render"))
    libc = __import__("ctypes").CDLL(None, use_errno=True)
    assert libc.syscall(add_key, b"user", host_key.encode(), b"host secret", 11, -3) > 0
    as_nobody = f"import ctypes\nctypes.CDLL(None).syscall({add_key}, b'user', {nobody_key.encode()!r}, b'x', 1, -4)"
    subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", as_nobody], check=True)
    setup = (
        f"libc = ctypes.CDLL(None, use_errno=True)\nHOST, NOBODY, MINE = {host_key.encode()!r}, {nobody_key.encode()!r}, {render_key.encode()!r}\n"
        f"def search(name):\n    return [ring for ring in (-3, -4, -5) if libc.syscall({keyctl}, 10, ring, b'user', name, 0) > 0]\n"
    )
    first = scene(
        setup + f"added = [ring for ring in (-3, -4) if libc.syscall({add_key}, b'user', MINE, b'r', 1, ring) > 0]\n"
        "raise RuntimeError(f'uid {os.getuid()} added {added}; host keys in {search(HOST) + search(NOBODY)}')"
    )
    second = scene(setup + "raise RuntimeError(f'uid {os.getuid()} found {search(MINE)}')")
    added, looked = in_turn([first, second])
    first_uid, rest = last_line(added).removeprefix("RuntimeError: uid ").split(" ", 1)
    assert rest == "added [-3, -4]; host keys in []"
    second_uid, rest = last_line(looked).removeprefix("RuntimeError: uid ").split(" ", 1)
    assert rest == "found []"
    assert first_uid != second_uid and all(int(uid) in SCENE_UIDS for uid in (first_uid, second_uid))


INOTIFY_HOLDER = """import ctypes, time
libc = ctypes.CDLL(None)
held = []
while (fd := libc.inotify_init()) >= 0:
    held.append(fd)
time.sleep(30)
"""


def inotify_count(pid: int) -> int:
    try:
        return sum(os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify" for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def test_a_render_that_takes_every_inotify_instance_of_its_uid_takes_nobody_elses(in_turn) -> None:
    marker = f"inotify-{uuid.uuid4().hex}"
    holder = scene(
        f"import subprocess\nsubprocess.Popen([sys.executable, '-c', {INOTIFY_HOLDER!r}, {marker!r}]).wait()\nself.add(Circle())"
    )
    limit = int(Path("/proc/sys/user/max_inotify_instances").read_text())
    results: list[RenderResult] = []
    thread = threading.Thread(target=lambda: results.extend(in_turn([holder], Limits(timeout_s=60))))
    thread.start()
    deadline, held = time.monotonic() + 45, 0
    while time.monotonic() < deadline and held < limit:
        held = max((inotify_count(pid) for pid in processes_with(marker)), default=0)
        time.sleep(0.2)
    nobody = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", "import ctypes; print(ctypes.CDLL(None).inotify_init())"],
        capture_output=True,
        text=True,
    )
    beside = render(scene("libc = ctypes.CDLL(None)\nraise RuntimeError(f'inotify: {libc.inotify_init() >= 0}')"), limits=FAST, use_cache=False)
    for pid in processes_with(marker):
        os.kill(pid, 9)
    thread.join()
    assert held == limit
    assert int(nobody.stdout) >= 0
    assert last_line(beside) == "RuntimeError: inotify: True"
    assert results[0].ok, results[0].error_tail


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# --- the worker -----------------------------------------------------------------------------------


@SEALED
def test_a_render_cannot_signal_its_worker() -> None:
    killer = scene("import signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError as error:\n    raise RuntimeError(f'refused: {error!r}')")
    refused, after = renders_in_turn("warm", [killer, CIRCLE], FAST)
    assert last_line(refused) == "RuntimeError: refused: PermissionError(1, 'Operation not permitted')"
    assert after.ok, after.error_tail


@SEALED
def test_a_worker_that_dies_mid_render_is_replaced_and_the_render_named() -> None:
    marker = f"slow-{uuid.uuid4().hex}"
    slow = scene(f"import subprocess\nsubprocess.run([sys.executable, '-c', 'import time; time.sleep(20)', {marker!r}])\nself.add(Circle())")
    with RenderPool(1, warm=True, limits=FAST, use_cache=False) as pool:
        future = pool.submit(RenderJob(slow))
        deadline = time.monotonic() + 30
        while not processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in processes_with("manimgen.render.worker"):
            with contextlib.suppress(OSError):
                if "Uid:\t0\t" in Path(f"/proc/{pid}/status").read_text():
                    os.kill(pid, 9)
        died = future.result()
        after = pool.render(RenderJob(CIRCLE))
    assert died.status is RenderStatus.SANDBOX_ERROR
    assert last_line(died) == "RenderWorkerError: the warm render worker exited during the render"
    assert after.ok, after.error_tail


@SEALED
def test_a_cleanup_that_fails_replaces_the_worker_and_raises_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from manimgen.render import warm

    left: list[Path] = []

    def failing(path: Path) -> None:
        left.append(path)
        raise OSError("cannot remove")

    with RenderPool(1, warm=True, limits=FAST, use_cache=False) as pool:
        monkeypatch.setattr(warm, "remove_tree", failing)
        first = pool.render(RenderJob(CIRCLE))
        monkeypatch.undo()
        second = pool.render(RenderJob(scene("self.add(Square())")))
    for path in left:
        if path.exists():
            warm.remove_tree(path)
    assert first.ok and second.ok, (first.error_tail, second.error_tail)
    assert [path.name for path in left] == ["job-0", left[1].name] and left[1].name.startswith("manimgen-warm-")


def test_a_host_side_failure_is_a_status_not_a_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    from manimgen.render import renderer

    def broken(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(renderer, "write_inside", broken)
    result = render(CIRCLE, limits=FAST, use_cache=False)
    assert result.status is RenderStatus.SANDBOX_ERROR
    assert result.error_tail == "RenderSandboxError: the host could not run or clean up the render (OSError: [Errno 28] No space left on device)"


# --- what a render prints, writes and nests ---------------------------------------------------------


def test_a_report_nested_past_the_parser_is_a_code_error(in_turn) -> None:
    (result,) = in_turn([forged("pass", '{"scene": ' + "[" * 60_000)])
    assert (result.status, result.error_tail) == (RenderStatus.CODE_ERROR, "RenderReportError: the render's report could not be read")


def test_geometry_nested_past_the_parser_is_dropped(in_turn) -> None:
    write = "os.makedirs('media/videos', exist_ok=True)\nopen('media/videos/render.mp4', 'wb').write(b'video')\nopen('geometry.json', 'w').write('[' * 100_000)"
    (result,) = in_turn([forged(write)], geometry=True)
    assert (result.status, result.geometry) == (RenderStatus.OK, None)


@pytest.mark.parametrize(
    ("code", "cause"),
    [("x = " + "-" * 100_000 + "1", "MemoryError"), ("x = " + "+".join(["1"] * 1_000_000), "RecursionError")],
    ids=["minus-signs", "million-term-sum"],
)
def test_code_too_deep_to_compile_is_a_code_error(in_turn, code: str, cause: str) -> None:
    (result,) = in_turn([f"from manim import *\n{code}\n"])
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail == f"SyntaxError: the code nests too deeply for Python to compile ({cause}); write it with fewer nested operators or brackets"


def test_code_too_deep_is_one_line_from_the_cli_and_lint(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from manimgen.agent.lint import lint
    from manimgen.cli import app

    code = "from manim import *\nx = " + "+".join(["1"] * 1_000_000) + "\n"
    scene_file = tmp_path / "deep.py"
    scene_file.write_text(code)
    outcome = CliRunner().invoke(app, ["render", str(scene_file), "--no-cache"])
    assert outcome.exit_code == 1
    assert "Traceback" not in outcome.output
    assert "SyntaxError: the code nests too deeply for Python to compile (RecursionError)" in outcome.output
    assert [finding.code for finding in lint(code)] == ["syntax"]
    assert [finding.code for finding in lint("x = " + "+".join(["1"] * 600))] == ["syntax"]


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_flooded_log_names_its_limit(in_turn, stream: str) -> None:
    flood = f"chunk = 'E' * (1 << 20)\nfor _ in range(100):\n    sys.{stream}.write(chunk)\nsys.{stream}.flush()\nself.add(Circle())"
    (result,) = in_turn([scene(flood)], Limits(timeout_s=60))
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail == f"OSError: the scene printed more than 64 MiB to {stream}, the log limit"


def test_terminal_controls_in_error_text_are_shown_as_escapes(in_turn, tmp_path: Path) -> None:
    body = "raise RuntimeError('red \\x9b31m text \\u202e reversed \\x1b[2J cleared')"
    (result,) = in_turn([scene(body)])
    assert last_line(result) == "RuntimeError: red \\u009b31m text \\u202e reversed \\u001b[2J cleared"
    assert not any(character in result.error_tail for character in "\x9b\u202e\x1b")
    from typer.testing import CliRunner

    from manimgen.cli import app

    scene_file = tmp_path / "controls.py"
    scene_file.write_text(scene(body))
    outcome = CliRunner().invoke(app, ["render", str(scene_file), "--no-cache"])
    assert outcome.exit_code == 1
    assert not any(character in outcome.output for character in "\x9b\u202e\x1b")
