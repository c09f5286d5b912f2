"""Hostile scenes: each must end as a clean failure, the host intact, no process left behind.

Every attack runs both through a fresh sandbox (`render`) and through a warm pool worker (the pool's
path); the warm-only tests check that one render cannot reach the next or the worker serving it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from manimgen.render import Limits, RenderJob, RenderPool, RenderResult, RenderStatus, SandboxMode, detect_mode, render
from manimgen.render.sandbox import PIDS_CGROUP_ROOT, scrubbed_env

FAST = Limits(timeout_s=20, disk_bytes=200 << 20)
Renderer = Callable[[str, Limits], RenderResult]


def scene(body: str, imports: str = "") -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return f"from manim import *\n{imports}\n\nclass Hostile(Scene):\n    def construct(self):\n{lines}\n"


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


def leftover_cgroups() -> list[str]:
    if not PIDS_CGROUP_ROOT.is_dir():
        return []
    return [p.name for p in PIDS_CGROUP_ROOT.glob(f"manimgen-{os.getpid()}-*")]


@pytest.fixture(autouse=True)
def host_stays_clean():
    before = set(leftover_cgroups())
    yield
    time.sleep(0.2)
    assert set(leftover_cgroups()) <= before


def warm_renders(codes: list[str], limits: Limits = FAST) -> list[RenderResult]:
    """Render one after another on a single warm worker, so each render follows the one before."""
    with RenderPool(1, warm=True, limits=limits, use_cache=False) as pool:
        return pool.map([RenderJob(code) for code in codes])


@pytest.fixture(params=["fresh", "warm"])
def run_scene(request) -> Renderer:
    if request.param == "fresh":
        return lambda code, limits: render(code, limits=limits, use_cache=False)
    return lambda code, limits: warm_renders([code], limits)[0]


def test_fork_bomb_is_contained(run_scene: Renderer) -> None:
    marker = f"forkbomb-{uuid.uuid4().hex}"
    code = scene(f"import os, sys\nsys.argv.append({marker!r})\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass")
    started = time.monotonic()
    result = run_scene(code, Limits(timeout_s=8))
    assert result.status in (RenderStatus.TIMEOUT, RenderStatus.CODE_ERROR)
    assert time.monotonic() - started < 8 + 10
    assert processes_with(marker) == []


def test_memory_bomb_is_code_error(run_scene: Renderer) -> None:
    result = run_scene(scene("hog = bytearray(8 * 1024 ** 3)\nhog[::4096] = b'x' * len(hog[::4096])"), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert "MemoryError" in result.error_tail


def test_no_network_to_loopback_listener(run_scene: Renderer) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        result = run_scene(scene(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3)"), FAST)
    finally:
        stop.set()
        thread.join()
        server.close()
    assert result.status is RenderStatus.CODE_ERROR
    assert accepted == []


def test_parent_secret_never_reaches_the_scene(run_scene: Renderer, monkeypatch) -> None:
    secret = f"sk-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("MANIMGEN_TEST_TOKEN", secret)
    body = (
        "import os, glob\n"
        "found = [str(dict(os.environ))]\n"
        "for path in glob.glob('/proc/*/environ'):\n"
        "    try:\n"
        "        found.append(open(path, 'rb').read().decode(errors='replace'))\n"
        "    except OSError:\n"
        "        pass\n"
        "self.add(Text(' '.join(found)[:40]))\n"
        "raise RuntimeError(' '.join(found)[-3000:])"
    )
    result = run_scene(scene(body), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert secret not in result.error_tail
    assert secret not in str(scrubbed_env(Path("/nonexistent")))


def test_writes_outside_scratch_do_not_reach_the_host(run_scene: Renderer, tmp_path) -> None:
    target = tmp_path / "escaped.txt"
    home_target = Path.home() / f"escaped-{uuid.uuid4().hex}.txt"
    repo_target = Path(__file__).parent / f"escaped-{uuid.uuid4().hex}.txt"
    body = "\n".join(
        f"try:\n    open({str(p)!r}, 'w').write('pwned')\nexcept OSError:\n    pass" for p in (target, home_target, repo_target)
    )
    run_scene(scene(body + "\nself.add(Circle())"), FAST)
    assert not target.exists() and not home_target.exists() and not repo_target.exists()


def test_setsid_daemon_is_killed(run_scene: Renderer) -> None:
    marker = f"daemon-{uuid.uuid4().hex}"
    body = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {marker!r}], start_new_session=True,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "self.add(Circle())"
    )
    result = run_scene(scene(body), FAST)
    assert result.ok, result.error_tail
    time.sleep(0.5)
    assert processes_with(marker) == []


def test_stdout_flood_is_cut_off(run_scene: Renderer) -> None:
    body = "import sys\nchunk = 'x' * (1 << 20) + '\\n'\nfor _ in range(100):\n    sys.stdout.write(chunk)\nsys.stdout.flush()\nself.add(Circle())"
    result = run_scene(scene(body), Limits(timeout_s=30, file_size_bytes=32 << 20))
    assert result.status is RenderStatus.CODE_ERROR
    assert "SIGXFSZ" in result.error_tail or "File too large" in result.error_tail


def test_disk_fill_is_stopped(run_scene: Renderer) -> None:
    body = "block = b'0' * (8 << 20)\nfor i in range(10_000):\n    with open(f'fill-{i}.bin', 'wb') as f:\n        f.write(block)"
    started = time.monotonic()
    result = run_scene(scene(body), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert time.monotonic() - started < FAST.timeout_s
    assert "disk" in result.error_tail or "No space" in result.error_tail


def test_environment_is_an_allow_list() -> None:
    env = scrubbed_env(Path("/scratch"))
    assert env["HOME"] == "/scratch"
    assert set(env) <= {
        "PATH", "HOME", "TMPDIR", "XDG_CACHE_HOME", "MPLCONFIGDIR", "LANG", "LC_ALL", "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE", "TZ",
    }
    assert not any("KEY" in name or "TOKEN" in name for name in os.environ if name in env)


def test_warm_render_leaves_no_process_to_the_next() -> None:
    marker = f"linger-{uuid.uuid4().hex}"
    first = scene(
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {marker!r}], start_new_session=True,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "self.add(Circle())"
    )
    second = scene(
        "import glob\n"
        "found = []\n"
        "for path in glob.glob('/proc/[0-9]*/cmdline'):\n"
        "    try:\n"
        f"        found += [path] if {marker!r}.encode() in open(path, 'rb').read() else []\n"
        "    except OSError:\n"
        "        pass\n"
        "raise RuntimeError(f'lingering: {found}')"
    )
    spawned, checked = warm_renders([first, second])
    assert spawned.ok, spawned.error_tail
    assert "lingering: []" in checked.error_tail
    assert processes_with(marker) == []


@pytest.mark.skipif(detect_mode() is not SandboxMode.BWRAP, reason="only bubblewrap gives renders private writable folders")
def test_warm_render_leaves_no_file_to_the_next() -> None:
    name = f"left-{uuid.uuid4().hex}"
    places = ("'/tmp'", "'/dev/shm'", "os.path.expanduser('~')", "os.getcwd()", "os.path.dirname(os.getcwd())")
    first = scene("import os\n" + "\n".join(f"open(os.path.join({place}, {name!r}), 'w').write('x')" for place in places) + "\nself.add(Circle())")
    second = scene(
        "import os\n"
        f"found = [place for place in ({', '.join(places)}) if os.path.exists(os.path.join(place, {name!r}))]\n"
        "raise RuntimeError(f'left over: {found}')"
    )
    wrote, checked = warm_renders([first, second])
    assert wrote.ok, wrote.error_tail
    assert "left over: []" in checked.error_tail


@pytest.mark.skipif(detect_mode() is not SandboxMode.BWRAP, reason="outside bubblewrap a render keeps root's capabilities")
def test_warm_render_cannot_reach_its_worker() -> None:
    body = (
        "import ctypes, os\n"
        "worker, reached = os.getppid(), []\n"
        "for path in [f'/proc/{worker}/mem', f'/proc/{worker}/environ'] + [f'/proc/{worker}/fd/{fd}' for fd in range(3, 8)]:\n"
        "    try:\n"
        "        open(path, 'rb', buffering=0)\n"
        "        reached.append(path)\n"
        "    except OSError:\n"
        "        pass\n"
        "if ctypes.CDLL(None).ptrace(16, worker, 0, 0) == 0:\n"
        "    reached.append('ptrace')\n"
        "raise RuntimeError(f'reached: {reached}')"
    )
    (result,) = warm_renders([scene(body)])
    assert "reached: []" in result.error_tail


def test_render_that_kills_its_worker_fails_and_the_next_one_renders() -> None:
    killer = scene("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(30)")
    killed, after = warm_renders([killer, scene("self.add(Circle())")])
    assert killed.status is RenderStatus.SANDBOX_ERROR
    assert "worker exited" in killed.error_tail
    assert after.ok, after.error_tail
