"""Servers the tests start for real: a free port, and a llama.cpp server on a GGUF model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

SERVER_START_TIMEOUT_S = 180


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def llama_server_on(model: Path) -> Iterator[str]:
    """A llama.cpp server (OpenAI-compatible) on MODEL; yields its API root once /v1/models answers."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "2048", "--verbose", "False"]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {server.returncode}: {server.stderr.read()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).is_success:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not answer within {SERVER_START_TIMEOUT_S} s")
            time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
