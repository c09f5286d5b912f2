"""Seconds from a sentence to its video, three ways in one run: `manimgen generate` in a fresh process with an
empty cache (`cold`: a first call on a new machine), in a fresh process with a returning user's cache
(`fresh`), and `generate --server URL` handing the sentence to a running `manimgen serve` (`server`: the
model loaded once, before the first call).

    .venv/bin/python benchmarks/warm_generate.py [--sentences sentences/evaluation.jsonl] [--limit 8]

All run the same command line otherwise (the default model and strategy, seed 0), sentence by sentence,
the order of the ways turned on every sentence so that load on the machine falls on all. Each process gets
its own empty render cache, and the server one of its own, so none reuses another's renders. The `fresh`
processes share what a returning user's cache holds beside renders, made by one first call before the first
timed one: the exported example embedder, the bank's vectors and the evaluated system prompts. A `cold`
process makes them itself, as every fresh process did before they were kept (it then loaded the embedder
through torch, 2 s less than the one-off export; benchmarks/example_bank_load.py). The ways must write the
same scene (checked and counted). The server's start, paid once, is reported beside.
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


FIRST_CALL = "Draw the magnetic field lines around a bar magnet."
"""A sentence outside the evaluation set whose first draft the model writes: the first call of a returning user."""
SHARED = ("embedders", "prompt-states")
"""What a returning user's cache holds beside renders."""


def manimgen(*args: str, cache: Path, shared: Path | None = None) -> tuple[float, int]:
    """Wall seconds and exit status of one `manimgen` command with its own render cache and, given `shared`,
    that cache's folders of a returning user's derived files linked in."""
    if shared is not None:
        cache.mkdir(parents=True, exist_ok=True)
        for name in SHARED:
            (shared / name).mkdir(parents=True, exist_ok=True)
            (cache / name).symlink_to(shared / name, target_is_directory=True)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "manimgen.cli", *args], env={**os.environ, "MANIMGEN_CACHE": str(cache)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # fmt: skip
    return time.monotonic() - started, done.returncode


def first_call(work: Path) -> Path:
    """A returning user's cache: one `generate` of a sentence outside the set, which exports the example embedder,
    embeds the bank and saves the system prompt's evaluated state."""
    cache = work / "first-call-cache"
    seconds, status = manimgen("generate", FIRST_CALL, "--out", str(work / "first-call.mp4"), cache=cache)
    if status != 0:
        raise SystemExit(f"the first call failed (exit {status}); run `manimgen generate {FIRST_CALL!r}` to see why")
    return cache


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
    ways = ["cold", "fresh", "server"]
    console = Console()
    table = Table("sentence", *(f"{way} s" for way in ways), "same scene")
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    same = 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        shared = first_call(work)
        server, url, start_s = start_server(work)
        try:
            for index, sentence in enumerate(sentences):
                runs = {}
                for way in ways[index % len(ways) :] + ways[: index % len(ways)]:
                    out = work / way / f"{index:03d}.mp4"
                    cache = work / f"cache-{way}-{index}"
                    if way == "server":
                        runs[way] = manimgen("generate", sentence, "--out", str(out), "--server", url, cache=cache)
                    else:
                        runs[way] = manimgen("generate", sentence, "--out", str(out), cache=cache, shared=shared if way == "fresh" else None)
                    seconds[way].append(runs[way][0])
                codes = [work / way / f"{index:03d}.py" for way in ways]
                alike = all(code.is_file() for code in codes) and len({code.read_text() for code in codes}) == 1
                same += alike
                table.add_row(sentence[:60], *(f"{runs[way][0]:.1f} (exit {runs[way][1]})" for way in ways), "yes" if alike else "no")
                console.print(f"{index + 1}/{len(sentences)}: " + ", ".join(f"{way} {runs[way][0]:.1f} s" for way in ways))
        finally:
            server.terminate()
            server.wait(timeout=30)
    console.print(table)
    medians = {way: statistics.median(runs) for way, runs in seconds.items()}
    console.print("median: " + ", ".join(f"{way} {median:.1f} s" for way, median in medians.items()))
    console.print(f"fresh against cold: {medians['cold'] / medians['fresh']:.2f}x")
    console.print(f"server against fresh: {medians['fresh'] / medians['server']:.2f}x; the same scene on {same} of {len(sentences)}; "
                  f"the server's start (model loaded once) {start_s:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
