"""Install size and time of each part of manimgen: a fresh virtual environment per part (the core alone, then
the core with one part), installed from this checkout with `requirements.lock` as constraints, timed, and
measured on disk. Prints a Markdown table: each part's own share is its environment less the core's.

Run from the repository root; pip's cache and a package mirror make it a measure of unpacking and
building, not of the network (say which when quoting it):
    python benchmarks/install_parts.py [--parts llamacpp serve ...] [--work /tmp/install-parts]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

PARTS = ("llamacpp", "serve", "notebook", "bench", "ray", "train", "model-0-5b", "model-1-5b")
ROOT = Path(__file__).resolve().parent.parent


def size_mb(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink()) / 1e6


def checkout(work: Path) -> Path:
    """The committed tree in `work`, so building the package writes nothing into this checkout."""
    source = work / "source"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    return source


def install(source: Path, extras: str, folder: Path) -> tuple[float, float]:
    """Seconds to make the environment and install the package with `extras`, and its size in MB."""
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    target = f"{source}[{extras}]" if extras else str(source)
    subprocess.run([str(folder / "bin" / "pip"), "install", "-q", "-c", str(source / "requirements.lock"), target], check=True)
    seconds = time.perf_counter() - started
    return seconds, size_mb(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="*", default=list(PARTS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/install-parts"))
    args = parser.parse_args()
    rows = []
    source = checkout(args.work)
    with Progress(console=Console(stderr=True)) as progress:
        bar = progress.add_task("installing", total=1 + len(args.parts))
        core_s, core_mb = install(source, "", args.work / "core")
        progress.advance(bar)
        for part in args.parts:
            progress.update(bar, description=part)
            seconds, megabytes = install(source, part, args.work / part)
            rows.append((part, seconds, megabytes))
            shutil.rmtree(args.work / part, ignore_errors=True)
            progress.advance(bar)
    shutil.rmtree(args.work, ignore_errors=True)
    print("| install | time | environment | the part's own share |")
    print("|---|---|---|---|")
    print(f"| core | {core_s:.0f} s | {core_mb:.0f} MB | – |")
    for part, seconds, megabytes in rows:
        print(f"| core + `{part}` | {seconds:.0f} s | {megabytes:.0f} MB | {megabytes - core_mb:+.0f} MB |")


if __name__ == "__main__":
    main()
