"""Hostile scenes: each must end as a clean failure, the host intact, no process left behind."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from manimgen.render import Limits, RenderStatus, render
from manimgen.render.sandbox import PIDS_CGROUP_ROOT, scrubbed_env

FAST = Limits(timeout_s=20, disk_bytes=200 << 20)


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


def test_fork_bomb_is_contained() -> None:
    marker = f"forkbomb-{uuid.uuid4().hex}"
    code = scene(f"import os, sys\nsys.argv.append({marker!r})\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass")
    started = time.monotonic()
    result = render(code, limits=Limits(timeout_s=8), use_cache=False)
    assert result.status in (RenderStatus.TIMEOUT, RenderStatus.CODE_ERROR)
    assert time.monotonic() - started < 8 + 10
    assert processes_with(marker) == []


def test_memory_bomb_is_code_error() -> None:
    result = render(scene("hog = bytearray(8 * 1024 ** 3)\nhog[::4096] = b'x' * len(hog[::4096])"), limits=FAST, use_cache=False)
    assert result.status is RenderStatus.CODE_ERROR
    assert "MemoryError" in result.error_tail


def test_no_network_to_loopback_listener() -> None:
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
        result = render(scene(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3)"), limits=FAST, use_cache=False)
    finally:
        stop.set()
        thread.join()
        server.close()
    assert result.status is RenderStatus.CODE_ERROR
    assert accepted == []


def test_parent_secret_never_reaches_the_scene(monkeypatch) -> None:
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
    result = render(scene(body), limits=FAST, use_cache=False)
    assert result.status is RenderStatus.CODE_ERROR
    assert secret not in result.error_tail
    assert secret not in str(scrubbed_env(Path("/nonexistent")))


def test_writes_outside_scratch_do_not_reach_the_host(tmp_path) -> None:
    target = tmp_path / "escaped.txt"
    home_target = Path.home() / f"escaped-{uuid.uuid4().hex}.txt"
    repo_target = Path(__file__).parent / f"escaped-{uuid.uuid4().hex}.txt"
    body = "\n".join(
        f"try:\n    open({str(p)!r}, 'w').write('pwned')\nexcept OSError:\n    pass" for p in (target, home_target, repo_target)
    )
    render(scene(body + "\nself.add(Circle())"), limits=FAST, use_cache=False)
    assert not target.exists() and not home_target.exists() and not repo_target.exists()


def test_setsid_daemon_is_killed() -> None:
    marker = f"daemon-{uuid.uuid4().hex}"
    body = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {marker!r}], start_new_session=True,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "self.add(Circle())"
    )
    result = render(scene(body), limits=FAST, use_cache=False)
    assert result.ok, result.error_tail
    time.sleep(0.5)
    assert processes_with(marker) == []


def test_stdout_flood_is_cut_off() -> None:
    body = "import sys\nchunk = 'x' * (1 << 20) + '\\n'\nfor _ in range(100):\n    sys.stdout.write(chunk)\nsys.stdout.flush()\nself.add(Circle())"
    result = render(scene(body), limits=Limits(timeout_s=30, file_size_bytes=32 << 20), use_cache=False)
    assert result.status is RenderStatus.CODE_ERROR
    assert "SIGXFSZ" in result.error_tail or "File too large" in result.error_tail


def test_disk_fill_is_stopped() -> None:
    body = "block = b'0' * (8 << 20)\nfor i in range(10_000):\n    with open(f'fill-{i}.bin', 'wb') as f:\n        f.write(block)"
    started = time.monotonic()
    result = render(scene(body), limits=FAST, use_cache=False)
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
