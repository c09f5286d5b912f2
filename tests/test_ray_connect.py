"""Connecting the commands to a Ray cluster: a cluster kept on loopback, and addresses that are not one.

Ray rewrites a loopback address to the machine's routable one, where a cluster started on loopback does
not listen, and retries there for minutes without a word. The cluster here is started as tests/test_ray.py
starts its own, but in a process whose Ray keeps loopback (so it listens on 127.0.0.1 only); the commands
run as a user runs them, in fresh processes with no Ray setting of their own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import free_port
from test_ray import ANSWERS, HEAD_NODE, RENDER_NODE, KeyedLLM

from manimgen.render.ray_backend import LOOPBACK_ENV

# Well under Ray's minutes of retries, with room for a command's start on a loaded machine.
BOUND_S = 60.0
STARTER = """
import sys
from ray.cluster_utils import Cluster

nodes = Cluster(initialize_head=True, head_node_args={head!r})
try:
    nodes.add_node(**{node!r})
    nodes.wait_for_nodes()
    print(nodes.address, flush=True)
    sys.stdin.read()
finally:
    nodes.shutdown()
"""


def scripted() -> KeyedLLM:
    """The study's model, loaded by the command as `py:test_ray_connect:scripted`."""
    return KeyedLLM(ANSWERS)


def plain_env() -> dict[str, str]:
    """This environment without the loopback setting (a test before may have left it): the command must set it."""
    return {name: value for name, value in os.environ.items() if name != LOOPBACK_ENV} | {"COLUMNS": "200"}


def manimgen(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "manimgen.cli", *argv], capture_output=True, text=True, timeout=300, env=env or plain_env())


@pytest.fixture(scope="module")
def loopback_address() -> Iterator[str]:
    """HOST:PORT of a head and a worker node listening on 127.0.0.1 only, one `manim` unit and one CPU each."""
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER.format(head=HEAD_NODE, node=RENDER_NODE)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=os.environ | {LOOPBACK_ENV: "0"},
    )  # fmt: skip
    try:
        address = starter.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), f"the cluster did not start on loopback: {address!r}"
        yield address
    finally:
        starter.stdin.close()
        try:
            starter.wait(timeout=60)
        except subprocess.TimeoutExpired:
            starter.kill()
            starter.wait()


def test_doctor_reports_every_node_of_a_loopback_cluster(loopback_address: str) -> None:
    started = time.monotonic()
    done = manimgen("doctor", "--ray", loopback_address)
    assert time.monotonic() - started < BOUND_S
    assert f"Ray cluster at {loopback_address}" in done.stdout, done.stdout + done.stderr
    assert done.stdout.count("│ 127.0.0.1 ") == 2  # one row per node, each at its loopback address
    assert "Traceback" not in done.stdout + done.stderr


def test_a_study_renders_on_a_loopback_cluster_from_the_command_line(loopback_address: str, tmp_path: Path) -> None:
    argv = ["bench", "run", "--ray", loopback_address, "--models", "fixed=py:test_ray_connect:scripted", "--strategies", "vanilla",
            "--split", "builtin", "--tasks", "square-grid", "--out", str(tmp_path / "run")]  # fmt: skip
    done = manimgen(*argv, env=plain_env() | {"PYTHONPATH": str(Path(__file__).parent)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 samples recorded" in done.stdout and "RSR 100.0%" in done.stdout


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """HOST:PORT where connections are taken (by the kernel's backlog) and nothing is ever said."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield f"127.0.0.1:{server.getsockname()[1]}"


@pytest.mark.parametrize("command", ["doctor", "bench"])
@pytest.mark.parametrize(
    ("kind", "refusal"),
    [("nothing", "no Ray cluster answers at {address}"), ("not ray", "something answers at {address} but not as a Ray cluster's head")],
)
def test_the_commands_name_the_fix_for_an_address_that_is_no_cluster(
    command: str, kind: str, refusal: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """In fresh processes, as a user runs them: a one-line error within the bound, not Ray's minutes of retries."""
    address = request.getfixturevalue("silent_listener") if kind == "not ray" else f"127.0.0.1:{free_port()}"
    argv = {"doctor": ["doctor", "--ray", address],
            "bench": ["bench", "run", "--ray", address, "--models", "scripted", "--strategies", "vanilla", "--split", "builtin",
                      "--limit", "1", "--out", str(tmp_path / "run")]}[command]  # fmt: skip
    started = time.monotonic()
    done = manimgen(*argv)
    assert time.monotonic() - started < BOUND_S
    last = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 2 and last.startswith("error: ") and refusal.format(address=address) in last, done.stdout + done.stderr
    assert "ray start --head --port" in last and "Traceback" not in done.stdout + done.stderr
