"""Hostile scenes: each must end as a clean failure, the host intact, no process left behind.

Every attack runs both through a fresh sandbox (`render`) and through a warm pool worker (the pool's
path); the warm-only tests check that one render cannot reach the next or the worker serving it.
tests/test_sandbox_sealed.py holds the cases of what one render leaves for the next (files, IPC,
keys, memory, inotify), of the host's own reading and cleanup, and runs them on Ray too.
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

from manimgen.render import Limits, RenderJob, RenderPool, RenderResult, RenderStatus, SandboxMode, cgroups, detect_mode, render
from manimgen.render.formats import DeliveryError, deliver
from manimgen.render.protocol import RESULT_MARKER
from manimgen.render.sandbox import SCENE_UIDS, changes_user, scrubbed_env, warm_sealed
from manimgen.render.volume import hard_quota_available

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
    return [str(p) for hierarchy in cgroups.hierarchies() for p in hierarchy.parent.glob(f"manimgen-{os.getpid()}-*")]


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


def serve(server: socket.socket) -> tuple[list[object], threading.Event, threading.Thread]:
    """Accept connections on a listening socket in the background; the list fills with whatever connected."""
    server.settimeout(0.2)
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
    return accepted, stop, thread


def test_no_network_to_loopback_listener(run_scene: Renderer) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted, stop, thread = serve(server)
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
        "OPENBLAS_L2_SIZE", "TZ", "TEXMFOUTPUT", "openin_any", "openout_any", "shell_escape",
    }
    assert (env["openin_any"], env["openout_any"], env["shell_escape"], env["TEXMFOUTPUT"]) == ("p", "p", "f", "/scratch")
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


@pytest.mark.skipif(not warm_sealed(), reason="warm workers run only where they can seal their renders (root)")
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


BWRAP_ONLY = pytest.mark.skipif(detect_mode() is not SandboxMode.BWRAP, reason="only bubblewrap narrows the filesystem a scene sees")


def forged_report(payload: str, before: str = "") -> str:
    """A scene that prints the child's report line itself and exits before Manim renders anything."""
    return scene(f"{before}\nimport os, sys\nprint({RESULT_MARKER!r} + {payload!r}, flush=True)\nos._exit(0)")


def test_forged_report_cannot_write_a_host_file(run_scene: Renderer, tmp_path) -> None:
    victim = tmp_path / "victim.mp4"
    victim.write_text("original")
    payload = f'{{"scene": "{victim.with_suffix("")}", "output": "/proc/self/cwd/media/videos/render.mp4"}}'
    make_output = "import os\nos.makedirs('media/videos', exist_ok=True)\nopen('media/videos/render.mp4', 'w').write('pwned')"
    result = run_scene(forged_report(payload, make_output), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail == f"RenderReportError: the render reported scene {str(victim.with_suffix(''))!r}, which the code does not define"
    assert victim.read_text() == "original"


def test_forged_report_cannot_point_at_a_host_file(run_scene: Renderer) -> None:
    result = run_scene(forged_report('{"scene": "Hostile", "output": "/etc/passwd"}'), FAST)
    assert result.status is RenderStatus.NO_OUTPUT
    assert result.error_tail == "the scene rendered but wrote no video or image"
    assert result.output is None


@pytest.mark.parametrize("payload", ['{"scene": ', '["Hostile"]', '{"scene": 7}', '{"scene": "a/../Hostile"}'])
def test_malformed_report_is_a_code_error(run_scene: Renderer, payload: str) -> None:
    result = run_scene(forged_report(payload), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail.startswith("RenderReportError: the render")


def test_malformed_report_through_the_cli_is_one_line(tmp_path) -> None:
    from typer.testing import CliRunner

    from manimgen.cli import app

    scene_file = tmp_path / "forged.py"
    scene_file.write_text(forged_report("{not json"))
    outcome = CliRunner().invoke(app, ["render", str(scene_file), "--no-cache", "--timeout", "30"])
    assert outcome.exit_code == 1
    assert "RenderReportError: the render's report could not be read" in outcome.output
    assert "Traceback" not in outcome.output


JUNK_VIDEO = forged_report(
    '{"scene": "Hostile"}', "import os\nos.makedirs('media/videos', exist_ok=True)\nopen('media/videos/render.mp4', 'wb').write(b'not a video' * 999)"
)


@pytest.mark.parametrize("name", ["webm", "gif", "png"])
def test_a_video_that_does_not_decode_is_refused_when_another_format_is_made(run_scene: Renderer, tmp_path, name: str) -> None:
    result = run_scene(JUNK_VIDEO, FAST)
    assert result.ok and result.output is not None, "the host takes the file; it is decoded only to make another format"
    with pytest.raises(DeliveryError, match=f"^the render's mp4 could not be made into {name} \\(InvalidDataError: "):
        deliver(result.output, tmp_path / "made", name)
    assert list(tmp_path.iterdir()) == [], "no partial file is left"


def test_a_video_that_does_not_decode_through_the_cli_is_one_line(tmp_path) -> None:
    from typer.testing import CliRunner

    from manimgen.cli import app

    scene_file = tmp_path / "junk.py"
    scene_file.write_text(JUNK_VIDEO)
    outcome = CliRunner().invoke(app, ["render", str(scene_file), "--no-cache", "--format", "gif"], env={"COLUMNS": "300"})
    assert outcome.exit_code == 1 and "no video: the render's mp4 could not be made into gif (InvalidDataError: " in outcome.output
    assert "Traceback" not in outcome.output and not (tmp_path / "junk.gif").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("os.symlink(SECRET, 'media/videos/render.mp4')", "media/videos/render.mp4 is reached through a link"),
        ("shutil.rmtree('media')\nos.symlink(os.path.dirname(SECRET), 'media')", "media/videos/render.mp4 is reached through a link"),
        ("os.mkfifo('media/videos/render.mp4')", "media/videos/render.mp4 is not a regular file"),
        ("os.makedirs('media/videos/render.mp4')", "media/videos/render.mp4 is not a regular file"),
    ],
    ids=["file-link", "folder-link", "fifo", "folder"],
)
def test_output_is_taken_only_as_a_plain_file_inside_scratch(run_scene: Renderer, tmp_path, setup: str, message: str) -> None:
    secret = tmp_path / "render.mp4"
    secret.write_text(f"host secret {uuid.uuid4().hex}")
    setup = setup.replace("SECRET", repr(str(secret)))
    result = run_scene(forged_report('{"scene": "Hostile"}', f"import os, shutil\nos.makedirs('media/videos', exist_ok=True)\n{setup}"), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail.startswith("RenderOutputError: ")
    assert message in result.error_tail
    assert result.output is None


def unix_listener(path: Path) -> tuple[socket.socket, list[object], threading.Event, threading.Thread]:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    os.chmod(path, 0o777)
    server.listen(1)
    return (server, *serve(server))


@BWRAP_ONLY
def test_host_unix_sockets_are_out_of_reach(run_scene: Renderer) -> None:
    places = [Path(folder) / f"manimgen-test-{uuid.uuid4().hex[:8]}.sock" for folder in ("/var/tmp", "/run") if os.access(folder, os.W_OK)]
    listeners = [unix_listener(path) for path in places]
    body = (
        "import socket\n"
        "connected = []\n"
        f"for path in {[str(p) for p in places]!r}:\n"
        "    try:\n"
        "        socket.socket(socket.AF_UNIX).connect(path)\n"
        "        connected.append(path)\n"
        "    except OSError:\n"
        "        pass\n"
        "raise RuntimeError(f'connected: {connected}')"
    )
    try:
        result = run_scene(scene(body), FAST)
    finally:
        for server, _, stop, thread in listeners:
            stop.set()
            thread.join()
            server.close()
        for path in places:
            path.unlink(missing_ok=True)
    assert places
    assert "RuntimeError: connected: []" in result.error_tail
    assert all(accepted == [] for _, accepted, _, _ in listeners)


@pytest.mark.skipif(not changes_user(), reason="scenes change user only when manimgen runs as root")
def test_scene_runs_unprivileged_and_cannot_read_root_files(run_scene: Renderer) -> None:
    import sys

    secret = Path(sys.prefix) / f"manimgen-root-only-{uuid.uuid4().hex[:8]}"
    secret.write_text(f"root secret {uuid.uuid4().hex}")
    secret.chmod(0o600)
    body = (
        "import os\n"
        f"found = [os.getuid() in {SCENE_UIDS!r}, os.geteuid() == os.getuid() == os.getgid(), len(os.getgroups())]\n"
        f"for path in ('/etc/shadow', {str(secret)!r}):\n"
        "    try:\n"
        "        found.append(open(path).read())\n"
        "    except OSError as error:\n"
        "        found.append(type(error).__name__)\n"
        "raise RuntimeError(f'found: {found}')"
    )
    try:
        result = run_scene(scene(body), FAST)
    finally:
        secret.unlink()
    shadow = "FileNotFoundError" if detect_mode() is SandboxMode.BWRAP else "PermissionError"
    assert f"RuntimeError: found: [True, True, 0, '{shadow}', 'PermissionError']" in result.error_tail


def test_tex_reads_only_its_tree_and_the_scratch_folder(run_scene: Renderer) -> None:
    import sys

    visible = Path(sys.prefix) / "pyvenv.cfg"
    result = run_scene(scene(f"self.add(Tex(r'\\input{{{visible}}}'))"), Limits(timeout_s=60))
    assert result.status is RenderStatus.LATEX_ERROR
    assert f"File `{visible}' not found" in result.error_tail
    assert "home = " not in result.error_tail


def host_memory_drop(during: Callable[[], RenderResult]) -> tuple[RenderResult, int]:
    """Run `during` while sampling the host's available memory; the largest drop below the start, in bytes."""

    def available() -> int:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no MemAvailable in /proc/meminfo")

    start, lowest, stop = available(), [available()], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            lowest[0] = min(lowest[0], available())
            time.sleep(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        result = during()
    finally:
        stop.set()
        thread.join()
    return result, start - lowest[0]


@pytest.mark.skipif("memory" not in cgroups.active(), reason="no writable memory cgroup here")
def test_memory_cap_holds_for_the_whole_process_tree(run_scene: Renderer) -> None:
    body = (
        "import os, time\n"
        "children = []\n"
        "for _ in range(6):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        hog = bytearray(700 << 20)\n"
        "        hog[::4096] = b'x' * len(hog[::4096])\n"
        "        time.sleep(3)\n"
        "        os._exit(0)\n"
        "    children.append(pid)\n"
        "for pid in children:\n"
        "    os.waitpid(pid, 0)\n"
        "self.add(Circle())"
    )
    limits = Limits(timeout_s=60)
    result, drop = host_memory_drop(lambda: run_scene(scene(body), limits))
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail.endswith(f"MemoryError: the render's processes together went over the {limits.memory_bytes >> 20} MiB memory limit")
    # Six children of 700 MB each would take 4.2 GB uncapped; the host's free memory also moves by up to about
    # 0.6 GB with unrelated work (seen: 2.7 GB for a 2 GiB cap), so the bound leaves 1 GiB and still tells them apart.
    assert drop < limits.memory_bytes + (1 << 30) < 6 * (700 << 20)


@BWRAP_ONLY
def test_dev_shm_is_small_and_private(run_scene: Renderer) -> None:
    body = "block = b'0' * (8 << 20)\nfor i in range(64):\n    with open(f'/dev/shm/fill-{i}', 'wb') as f:\n        f.write(block)"
    result = run_scene(scene(body), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert "OSError: [Errno 28] No space left on device" in result.error_tail


@pytest.mark.skipif(not hard_quota_available(), reason="the scratch quota is a hard limit only where a tmpfs can be mounted")
def test_scratch_quota_is_a_hard_limit(run_scene: Renderer) -> None:
    body = (
        "block, written = b'0' * (8 << 20), 0\n"
        "try:\n"
        "    for i in range(64):\n"
        "        with open(f'fill-{i}.bin', 'wb') as f:\n"
        "            written += f.write(block)\n"
        "except OSError as error:\n"
        "    raise RuntimeError(f'stopped after {written} bytes: {error}')"
    )
    result = run_scene(scene(body), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert "[Errno 28] No space left on device" in result.error_tail
    written = int(result.error_tail.rsplit("RuntimeError: stopped after ", 1)[1].split(" bytes")[0])
    assert written <= FAST.disk_bytes


def test_segfault_names_its_signal_and_where(run_scene: Renderer) -> None:
    result = run_scene(scene("import ctypes\nctypes.string_at(0)"), FAST)
    assert result.status is RenderStatus.CODE_ERROR
    assert result.error_tail == 'Fatal Python error: Segmentation fault\n  File "scene.py", line 7 in construct\nKilled by SIGSEGV: segmentation fault'
