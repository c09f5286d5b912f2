"""Renders per minute and per-render overhead: the Ray backend against the local warm pool, one process.

    .venv/bin/python benchmarks/ray_render_speed.py [--count 12] [--workers 2] [--split train]

Both render the same ManimBench references at -ql without the render cache, with the same number of
concurrent renders: the local pool with `--workers` warm workers, and a two-node Ray cluster started
here (`ray.cluster_utils.Cluster`) whose nodes offer `--workers` units of the `manim` resource between
them. Overhead is measured on a tiny scene rendered one at a time (latency, not throughput). The ratio
says what Ray costs on one machine; on N machines of this size the throughput would be about N times
the Ray figure, since each render is independent and the driver's part per render is the overhead.
"""

from __future__ import annotations

import argparse
import statistics
import time

from rich.console import Console
from rich.table import Table

from manimgen.data import load_tasks
from manimgen.render import RenderJob, RenderPool
from manimgen.render.ray_backend import RayRenderer

TINY = """from manim import *


class Tiny{n}(Scene):
    def construct(self):
        self.add(Dot())
"""


def throughput(renderer: object, codes: list[str]) -> tuple[int, float]:
    started = time.monotonic()
    results = renderer.map([RenderJob(code) for code in codes])  # type: ignore[attr-defined]
    return sum(result.ok for result in results), time.monotonic() - started


def latency(renderer: object, count: int, offset: int) -> list[float]:
    seconds = []
    for n in range(count):
        started = time.monotonic()
        result = renderer.render(RenderJob(TINY.format(n=offset + n)))  # type: ignore[attr-defined]
        assert result.ok, result.error_tail
        seconds.append(time.monotonic() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--split", default="train")
    parser.add_argument("--latency-renders", type=int, default=8)
    args = parser.parse_args()
    import ray
    from ray.cluster_utils import Cluster

    codes = [task.reference_code for task in load_tasks(args.split)[: args.count]]
    head_units = args.workers // 2 or 1
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": head_units, "resources": {"manim": head_units}, "include_dashboard": False})
    if args.workers - head_units:
        cluster.add_node(num_cpus=args.workers - head_units, resources={"manim": args.workers - head_units})
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="warning", log_to_driver=False)
    try:
        with RenderPool(args.workers, use_cache=False) as pool:
            latency(pool, 2, 10_000)  # start the warm workers before timing
            local_ok, local_s = throughput(pool, codes)
            local_latency = latency(pool, args.latency_renders, 0)
        with RayRenderer(cluster.address, use_cache=False) as remote:
            latency(remote, remote.workers, 20_000)
            ray_ok, ray_s = throughput(remote, codes)
            ray_latency = latency(remote, args.latency_renders, 0)
    finally:
        ray.shutdown()
        cluster.shutdown()
    table = Table(title=f"{len(codes)} ManimBench {args.split} references at -ql, {args.workers} renders at a time")
    for column in ("backend", "rendered", "seconds", "renders/min", f"tiny scene, median of {args.latency_renders} (s)"):
        table.add_column(column)
    for name, ok, seconds, lat in (("local warm pool", local_ok, local_s, local_latency), ("Ray, 2 nodes", ray_ok, ray_s, ray_latency)):
        table.add_row(name, str(ok), f"{seconds:.1f}", f"{60 * len(codes) / seconds:.1f}", f"{statistics.median(lat):.3f}")
    Console().print(table)
    overhead = statistics.median(ray_latency) - statistics.median(local_latency)
    print(f"Ray vs local pool: {local_s / ray_s:.2f}x the renders per minute; overhead {overhead * 1000:.0f} ms per render")
    print(f"predicted for N such machines: about N x {60 * len(codes) / ray_s:.1f} renders/min")


if __name__ == "__main__":
    main()
