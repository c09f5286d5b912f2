"""Seconds from a sentence to its video: `manimgen generate` in a fresh process (the model loaded for
the call) against `manimgen generate --server URL` handing it to a running `manimgen serve` (the model
loaded once, before the first call).

    .venv/bin/python benchmarks/warm_generate.py [--sentences sentences/evaluation.jsonl] [--limit 8]

Both run the same command line otherwise (the default model and strategy, seed 0), sentence by
sentence in turn, the order of the two swapped on every other sentence so that load on the machine
falls on both. The server runs one small job first, which loads its model. Each fresh process gets its
own empty render cache and the server one of its own, so neither reuses the other's renders; the fresh
processes share the exported example embedder and the bank's vectors, made once before the first timed
call, as a returning user's cache holds them. The two must write the same scene (checked and counted):
the difference is where the model lives. The server's start, paid once, is reported beside.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

START_TIMEOUT_S = 600
WARM_UP = "A blue circle"
"""A job the server runs before the first timed call: every generate job loads its model, this one renders in seconds."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def manimgen(*args: str, cache: Path, embedders: Path | None = None) -> tuple[float, int]:
    """Wall seconds and exit status of one `manimgen` command with its own render cache (and, given
    `embedders`, the exported example embedder and bank vectors a returning user's cache holds)."""
    if embedders is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "embedders").symlink_to(embedders, target_is_directory=True)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "manimgen.cli", *args], env={**os.environ, "MANIMGEN_CACHE": str(cache)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # fmt: skip
    return time.monotonic() - started, done.returncode


def fill_embedders(work: Path) -> Path:
    """The example embedder exported and the verified bank embedded once, as after a user's first call."""
    cache = work / "first-call-cache"
    subprocess.run([sys.executable, "-c", "from manimgen.agent.examples import verified_bank; verified_bank()"],
                   env={**os.environ, "MANIMGEN_CACHE": str(cache)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)  # fmt: skip
    return cache / "embedders"


def start_server(work: Path) -> tuple[subprocess.Popen[bytes], str, float]:
    port = free_port()
    command = [sys.executable, "-m", "manimgen.cli", "serve", "--port", str(port), "--root", str(work / "serve")]
    started = time.monotonic()
    server = subprocess.Popen(command, env={**os.environ, "MANIMGEN_CACHE": str(work / "server-cache")}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    while time.monotonic() - started < START_TIMEOUT_S:
        try:
            if httpx.get(f"{url}/api/options", timeout=2).is_success:
                manimgen("generate", WARM_UP, "--server", url, "--out", str(work / "warm-up.mp4"), cache=work / "unused")
                return server, url, time.monotonic() - started
        except httpx.TransportError:
            time.sleep(0.5)
    server.kill()
    raise SystemExit(f"the server did not answer within {START_TIMEOUT_S} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=Path, default=Path("sentences/evaluation.jsonl"))
    parser.add_argument("--limit", type=int, default=8)
    args = parser.parse_args()
    sentences = [json.loads(line)["description"] for line in args.sentences.read_text(encoding="utf-8").splitlines() if line.strip()][: args.limit]
    console = Console()
    table = Table("sentence", "fresh process s", "--server s", "same scene")
    fresh, warm, same = [], [], 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        embedders = fill_embedders(work)
        server, url, start_s = start_server(work)
        try:
            for index, sentence in enumerate(sentences):
                runs = {}
                for mode in (("fresh", "warm") if index % 2 == 0 else ("warm", "fresh")):
                    out = work / mode / f"{index:03d}.mp4"
                    extra = ["--server", url] if mode == "warm" else []
                    runs[mode] = manimgen("generate", sentence, "--out", str(out), *extra, cache=work / f"cache-{mode}-{index}",
                                             embedders=embedders if mode == "fresh" else None)  # fmt: skip
                codes = [(work / mode / f"{index:03d}.py") for mode in ("fresh", "warm")]
                alike = all(code.is_file() for code in codes) and codes[0].read_text() == codes[1].read_text()
                same += alike
                fresh.append(runs["fresh"][0])
                warm.append(runs["warm"][0])
                table.add_row(sentence[:60], f"{runs['fresh'][0]:.1f} (exit {runs['fresh'][1]})", f"{runs['warm'][0]:.1f} (exit {runs['warm'][1]})", "yes" if alike else "no")
                console.print(f"{index + 1}/{len(sentences)}: fresh {runs['fresh'][0]:.1f} s, --server {runs['warm'][0]:.1f} s")
        finally:
            server.terminate()
            server.wait(timeout=30)
    console.print(table)
    ratio = statistics.median(fresh) / statistics.median(warm)
    console.print(
        f"median: fresh process {statistics.median(fresh):.1f} s, --server {statistics.median(warm):.1f} s, "
        f"ratio {ratio:.2f}x; the same scene on {same} of {len(sentences)}; the server's start (model loaded once) {start_s:.1f} s"
    )


if __name__ == "__main__":
    main()
