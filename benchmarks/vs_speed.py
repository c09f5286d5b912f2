"""Seconds per pair for the visual metrics: our SSIM matrix against skimage pair by pair, and the
full VS with and without skipping repeated frames.

Two 5-second scenes are rendered at -ql (854×480) and sampled at 5 fps (25 frames each), as the
paper scores videos; ``--synthetic`` draws Manim-like frames instead of rendering. Prints the SSIM
matrix time both ways and their ratio, the full VS time, the exact-vs-fastdtw gap on this pair,
and the image embedder's milliseconds per frame under onnxruntime and torch.

Then the full VS (SSIM matrix, embeddings, DTW) of ``--pairs`` pairs of ManimBench test references
of 4–6 s (rendered at -ql, 5 fps), with every distinct frame computed once (the default) and with
every frame computed, run by run in alternating order in this process; the scores of both must be
identical (skipped with ``--synthetic``).
Timings on a shared machine swing: compare the ratios of one run; the load average is printed.

    python benchmarks/vs_speed.py [--synthetic] [--reference-pairs 100] [--pairs 4]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from unittest import mock

import numpy as np

from manimgen.metrics import visual
from manimgen.metrics.dtw import dtw_distance
from manimgen.metrics.embedders import EffNetLite0, ImageEmbedder, image_embedder
from manimgen.metrics.visual import VisualScore, ssim_matrix, ssim_matrix_reference, to_gray, visual_score

SCORED_SECONDS = (4.0, 6.0)

SCENE_SHAPES = """from manim import *


class Shapes(Scene):
    def construct(self):
        title = Text("Shapes and motion").to_edge(UP)
        circle = Circle(color=BLUE).shift(LEFT * 3)
        square = Square(color=GREEN).shift(RIGHT * 3)
        self.play(Write(title))
        self.play(Create(circle), Create(square))
        self.play(circle.animate.shift(RIGHT * 2), square.animate.rotate(PI / 4))
        self.play(Transform(square, Triangle(color=RED).shift(RIGHT * 3)))
        self.wait(1)
"""

SCENE_GRAPH = """from manim import *


class SineGraph(Scene):
    def construct(self):
        axes = Axes(x_range=[-3, 3], y_range=[-2, 2], tips=False)
        curve = axes.plot(lambda x: np.sin(2 * x), color=YELLOW)
        dot = Dot(axes.c2p(-3, 0), color=RED)
        self.play(Create(axes), run_time=1.5)
        self.play(Create(curve), run_time=1.5)
        self.play(MoveAlongPath(dot, curve), run_time=2)
"""


def rendered_frames(code: str) -> np.ndarray:
    from manimgen.render import render, sample_frames

    result = render(code, quality="low")
    if not result.ok:
        raise SystemExit(f"render failed (use --synthetic to skip rendering):\n{result.error_tail}")
    return sample_frames(result.output, fps=5.0)[:25]


def synthetic_frames(kind: str, count: int = 25) -> np.ndarray:
    from PIL import Image, ImageDraw

    frames = []
    for index in range(count):
        progress = min(index / 15, 1.0)
        image = Image.new("RGB", (854, 480), (0, 0, 0))
        draw = ImageDraw.Draw(image)
        if kind == "shapes":
            draw.text((340, 40), "Shapes and motion", fill=(255, 255, 255))
            x = int(150 + 350 * progress)
            draw.ellipse((x - 60, 180, x + 60, 300), outline=(88, 196, 221), width=4)
            draw.rectangle((600, 180, 720, 300), outline=(131, 193, 103), width=4)
        else:
            draw.line((60, 240, 800, 240), fill=(255, 255, 255), width=2)
            draw.line((427, 40, 427, 440), fill=(255, 255, 255), width=2)
            points = [(60 + k * 7, 240 - 120 * math.sin(k / 17)) for k in range(int(106 * progress) + 1)]
            draw.line(points, fill=(255, 255, 0), width=3)
        frames.append(np.asarray(image))
    return np.stack(frames)


def manimbench_videos(count: int) -> list[tuple[str, np.ndarray]]:
    """The first ``count`` ManimBench test references whose -ql video lasts 4–6 s, at 5 fps."""
    from manimgen.data import load_tasks
    from manimgen.render import render, sample_frames

    videos = []
    for task in load_tasks(split="test"):
        result = render(task.reference_code, quality="low")
        if not result.ok or result.is_image:
            continue
        frames = sample_frames(result.output, fps=5.0)
        if SCORED_SECONDS[0] * 5 <= len(frames) <= SCORED_SECONDS[1] * 5:
            videos.append((task.id, frames))
        if len(videos) == count:
            break
    return videos


def every_frame_distinct(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(len(frames)), np.arange(len(frames))


def score_every_frame(ref: np.ndarray, test: np.ndarray, embedder: ImageEmbedder) -> VisualScore:
    """The full VS with frame deduplication switched off (tiles are still deduplicated)."""
    with mock.patch.object(visual, "distinct_frames", every_frame_distinct):
        return visual_score(ref, test, embedder)


def distinct_count(frames: np.ndarray) -> int:
    return len(visual.distinct_frames(frames)[0])


def compare_dedup(pairs: int, repeats: int) -> None:
    """Time the full VS of each pair both ways, alternating the order from run to run so a change
    in the background load hits both; ratios are taken run by run, then their median."""
    videos = manimbench_videos(2 * pairs)
    if len(videos) < 2:
        raise SystemExit("fewer than two ManimBench test references of 4-6 s rendered")
    embedder = image_embedder("effnet-lite0")
    embedder.embed(videos[0][1][:2])
    ways = {"every": score_every_frame, "distinct": visual_score}
    print(f"\nfull VS [{embedder.name}, {embedder.backend}], ManimBench test references at -ql, 5 fps")
    print(f"  load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    medians: dict[str, list[float]] = {way: [] for way in ways}
    ratios: list[float] = []
    for (ref_id, ref), (test_id, test) in zip(videos[::2], videos[1::2]):
        scores = {way: run(ref, test, embedder) for way, run in ways.items()}
        if scores["every"] != scores["distinct"]:
            raise SystemExit(f"{ref_id}/{test_id}: the scores differ: {scores}")
        runs: dict[str, list[float]] = {way: [] for way in ways}
        for repeat in range(repeats):
            for way in list(ways)[:: 1 if repeat % 2 == 0 else -1]:
                started = time.perf_counter()
                ways[way](ref, test, embedder)
                runs[way].append(time.perf_counter() - started)
        ratios += [distinct / every for distinct, every in zip(runs["distinct"], runs["every"])]
        for way in ways:
            medians[way].append(statistics.median(runs[way]))
        print(
            f"  {ref_id} ({len(ref)} frames, {distinct_count(ref)} distinct) vs {test_id} ({len(test)}, "
            f"{distinct_count(test)}): every frame {medians['every'][-1]:.3f} s, distinct frames "
            f"{medians['distinct'][-1]:.3f} s (medians), VS {scores['distinct'].vs:.6f} both ways"
        )
    print(
        f"  per pair: every frame {statistics.mean(medians['every']):.3f} s, "
        f"distinct frames {statistics.mean(medians['distinct']):.3f} s"
    )
    print(f"  ratio distinct / every frame: median {statistics.median(ratios):.3f} over {len(ratios)} runs")
    print(f"  load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


def best_seconds(run: Callable[[], object], repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", action="store_true", help="draw frames instead of rendering scenes")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the fast path (best is kept)")
    parser.add_argument(
        "--reference-pairs", type=int, default=0, help="time only this many skimage pairs and extrapolate (0: all)"
    )
    parser.add_argument(
        "--pairs", type=int, default=4, help="ManimBench reference pairs for the deduplication comparison (0: skip)"
    )
    args = parser.parse_args()

    if args.synthetic:
        ref, test = synthetic_frames("shapes"), synthetic_frames("graph")
    else:
        ref, test = rendered_frames(SCENE_SHAPES), rendered_frames(SCENE_GRAPH)
    pairs = [(ref, test, "two different scenes"), (ref, ref.copy(), "a scene against itself")]
    print(
        f"frames: {len(ref)} and {len(test)} of {ref.shape[2]}x{ref.shape[1]}, "
        f"{distinct_count(ref)} and {distinct_count(test)} distinct"
    )

    for left, right, title in pairs:
        left_gray, right_gray = to_gray(left), to_gray(right)
        fast = ssim_matrix(left_gray, right_gray)
        fast_seconds = best_seconds(lambda: ssim_matrix(left_gray, right_gray), args.repeats)
        rows = len(left_gray)
        if args.reference_pairs:
            rows = max(1, args.reference_pairs // len(right_gray))
        started = time.perf_counter()
        slow = ssim_matrix_reference(left_gray[:rows], right_gray)
        slow_seconds = (time.perf_counter() - started) * len(left_gray) / rows
        profiles = fast.max(axis=1), fast.max(axis=0)
        exact = math.exp(-5 * dtw_distance(*profiles, method="exact") / max(fast.shape))
        approximate = math.exp(-5 * dtw_distance(*profiles, method="fastdtw") / max(fast.shape))
        print(f"\n{title}")
        print(f"  SSIM matrix, ours:          {fast_seconds:8.3f} s per video pair")
        print(f"  SSIM matrix, skimage loop:  {slow_seconds:8.3f} s per video pair")
        print(f"  ratio ours / skimage:       {fast_seconds / slow_seconds:8.4f}")
        print(f"  max |difference|:           {np.abs(fast[:rows] - slow).max():8.1e}")
        print(f"  SSIM_DTW exact / fastdtw:   {exact:.4f} / {approximate:.4f}")

    for backend in ("onnx", "torch"):
        embedder = EffNetLite0(backend=backend)
        embedder.embed(ref[:2])
        seconds = best_seconds(lambda: embedder.embed(ref), args.repeats)
        print(f"\neffnet-lite0 ({backend}): {1000 * seconds / len(ref):.1f} ms per frame")
        full = best_seconds(lambda: visual_score(ref, test, embedder), args.repeats)
        cached = embedder.embed(ref)
        reuse = best_seconds(lambda: visual_score(ref, test, embedder, ref_embeddings=cached), args.repeats)
        print(f"  VS per video pair: {full:.3f} s; with the reference's embeddings cached: {reuse:.3f} s")

    if args.pairs and not args.synthetic:
        compare_dedup(args.pairs, args.repeats)


if __name__ == "__main__":
    main()
