"""Samples per second of the GRPO reward: ours against the original's way, on one GRPO batch.

The batch is 8 completions for each of three ManimBench train tasks, one that animates in 2D, one that
typesets LaTeX and one in 3D (the slow kinds matter): each task's reference, four working variants
(changed timing, an extra object, moved objects, a comment), a late runtime error, a truncated file
and an answer without code.

- ours: `ManimReward`, one `Scorer.score_many` call: every distinct code rendered once, in parallel
  on warm sandboxed workers (workers = cores), each reference rendered, sampled and embedded once,
  the SSIM matrix computed tile by tile;
- the original's (what its RewardEngine does): a thread pool of 4 workers (its default; 8 in its
  training scripts), each completion on its own: the completion rendered by a fresh `manim` command
  line process, the reference rendered again by another one only when the completion rendered, SSIM
  pair by pair with skimage, both videos embedded.

Both compute the same metrics (the `default` preset), so their rewards must be equal, which is printed
as a check. Ours is timed as a training step after the first: its render workers were started by a
step on other tasks (in training they live from the first step to the last); `--cold` times the very
first step instead. Each side starts with its own empty render cache.

    python benchmarks/reward_speed.py [--tasks mb003 mb005 mb010] [--workers N] [--baseline-workers 4 8]
    python benchmarks/reward_speed.py --ray --baseline-workers    # ours locally vs ours on a two-node Ray cluster

`--ray` also times the same step with the renders on a two-node Ray cluster started here (each node
offering half the workers as `manim` units), after a warm-up step, each side with its own empty
render cache: the reward's overhead per step on Ray, and a check that its rewards are the local ones.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ["MANIMGEN_CACHE"] = tempfile.mkdtemp(prefix="manimgen-reward-speed-")

from manimgen.agent.extract import extract_code  # noqa: E402
from manimgen.agent.prompts import format_target  # noqa: E402
from manimgen.data import Task, load_tasks  # noqa: E402
from manimgen.metrics.code import code_bert_bleu  # noqa: E402
from manimgen.metrics.dtw import dtw_distance  # noqa: E402
from manimgen.metrics.embedders import code_embedder, image_embedder  # noqa: E402
from manimgen.metrics.visual import SSIM_DTW_SHARPNESS, sem_dtw, ssim_matrix_reference, to_gray  # noqa: E402
from manimgen.render import sample_frames  # noqa: E402
from manimgen.scoring import Scorer  # noqa: E402
from manimgen.train.reward import ManimReward, default_render_workers  # noqa: E402

TEXT_WEIGHT, VISUAL_WEIGHT = 0.2, 0.8
MANIM = str(Path(sys.executable).with_name("manim"))


def default_tasks(skip: int = 0) -> list[Task]:
    """The first train tasks that animate in 2D, typeset LaTeX, and draw in 3D (after `skip` of each)."""
    single_scene = [task for task in load_tasks("train") if task.reference_code.count("class ") == 1]
    train = [task for task in single_scene if "self.play(" in task.reference_code or "self.wait(" in task.reference_code]
    kinds = (
        lambda code: "ThreeD" not in code and "Tex(" not in code,
        lambda code: "MathTex(" in code and "ThreeD" not in code,
        lambda code: "ThreeDScene" in code,
    )
    return [[task for task in train if kind(task.reference_code)][skip] for kind in kinds]


def group_completions(code: str) -> list[str]:
    """Eight answers for one task: the reference, four working variants and three failures."""
    body = code.rstrip("\n")
    swapped = body.replace("UP", "\0").replace("DOWN", "UP").replace("\0", "DOWN")
    variants = [
        body,
        body + "\n        self.wait(1)",
        body + "\n        self.play(FadeIn(Dot(color=RED)))",
        swapped if swapped != body else body + "\n        self.play(FadeIn(Square(color=GREEN)))",
        "# the same scene, written differently\n" + body,
        body + "\n        self.play(Creat(Square()))",
        body[: len(body) // 2] + "\n        self.play(Create(",
    ]
    return [format_target(variant + "\n") for variant in variants] + ["Sorry, I cannot write that scene."]


def cli_render(code: str) -> Path | None:
    """One render as the original does it: the code in a temporary file, a fresh `manim` process."""
    with tempfile.TemporaryDirectory(prefix="original-render-") as scratch:
        scene = Path(scratch) / "scene.py"
        scene.write_text(code)
        media = Path(scratch) / "media"
        command = [MANIM, str(scene), "-ql", "--format=mp4", "--media_dir", str(media), "-o", "out"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        outputs = [*media.rglob("out.mp4"), *media.rglob("out.png")]
        if done.returncode != 0 or not outputs:
            return None
        kept = Path(tempfile.mkdtemp(prefix="original-output-")) / outputs[0].name
        shutil.copy(outputs[0], kept)
        return kept


def original_reward(reference: str, completion: str, image_encoder: object, code_encoder: object) -> float:
    """One completion the original's way: render it, then the reference only if it rendered, pairwise SSIM."""
    code = extract_code(completion)
    if code is None:
        return 0.0
    text = code_bert_bleu(reference, code, code_encoder)
    generated = cli_render(code)
    if generated is None:
        return TEXT_WEIGHT * text
    reference_video = cli_render(reference)
    if reference_video is None:
        return TEXT_WEIGHT * text
    ref_frames, test_frames = sample_frames(reference_video), sample_frames(generated)
    scores = ssim_matrix_reference(to_gray(ref_frames), to_gray(test_frames))
    distance = dtw_distance(scores.max(axis=1), scores.max(axis=0), "euclidean", "exact")
    ssim_part = math.exp(-SSIM_DTW_SHARPNESS * distance / max(scores.shape))
    semantic = sem_dtw(image_encoder.embed(ref_frames), image_encoder.embed(test_frames))  # type: ignore[attr-defined]
    return TEXT_WEIGHT * text + VISUAL_WEIGHT * math.sqrt(ssim_part * semantic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", help="ManimBench train task ids (default: a 2D, a LaTeX and a 3D scene)")
    parser.add_argument("--workers", type=int, default=None, help="parallel renders for ours (default: one per core)")
    parser.add_argument("--cold", action="store_true", help="time our first step, render workers starting included")
    parser.add_argument("--baseline-workers", type=int, nargs="*", default=[4, 8], help="thread-pool sizes of the original's way (none: skip it)")
    parser.add_argument("--ray", action="store_true", help="also time the step with the renders on a two-node Ray cluster")
    args = parser.parse_args()

    tasks = load_tasks("train", ids=args.tasks) if args.tasks else default_tasks()
    references = [task.reference_code for task in tasks for _ in range(len(group_completions(task.reference_code)))]
    completions = [completion for task in tasks for completion in group_completions(task.reference_code)]
    per_task = len(completions) // len(tasks)
    print(f"batch: {len(completions)} completions ({per_task} per task) of {', '.join(task.id for task in tasks)}; {os.cpu_count()} cores")

    scorer = Scorer(workers=args.workers or default_render_workers())  # embedders load here, before timing
    reward = ManimReward(TEXT_WEIGHT, VISUAL_WEIGHT, scorer=scorer)
    image_encoder, code_encoder = image_embedder(), code_embedder()
    if not args.cold:
        earlier_step = [task.reference_code for task in default_tasks(skip=1)]
        reward([[]] * len(earlier_step), [format_target(code) for code in earlier_step], earlier_step)

    started = time.perf_counter()
    ours = reward([[]] * len(completions), completions, references)
    ours_seconds = time.perf_counter() - started
    stats = reward.last_stats
    print(f"ours:    {ours_seconds:7.1f} s  {len(completions) / ours_seconds:6.3f} samples/s  render success {stats.render_ok:.2f}")

    for workers in args.baseline_workers:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            theirs = list(pool.map(lambda pair: original_reward(*pair, image_encoder, code_encoder), zip(references, completions)))
        seconds = time.perf_counter() - started
        difference = max(abs((mine or 0.0) - other) for mine, other in zip(ours, theirs))
        print(
            f"original's, {workers} threads: {seconds:7.1f} s  {len(completions) / seconds:6.3f} samples/s  "
            f"ours is {seconds / ours_seconds:.1f}x faster; max |reward difference| {difference:.1e}"
        )
    print("rewards:", " ".join(f"{value:.2f}" for value in ours if value is not None))
    reward.close()
    if args.ray:
        on_ray(completions, references, ours, ours_seconds, args.workers or default_render_workers())


def on_ray(completions: list[str], references: list[str], ours: list[float | None], ours_seconds: float, workers: int) -> None:
    """The same step with the reward's renders on a two-node Ray cluster: seconds, overhead, equality."""
    import ray
    from ray.cluster_utils import Cluster

    os.environ["MANIMGEN_CACHE"] = tempfile.mkdtemp(prefix="manimgen-reward-speed-ray-")
    head = max(1, workers // 2)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": head, "resources": {"manim": head}, "include_dashboard": False})
    if workers - head:
        cluster.add_node(num_cpus=workers - head, resources={"manim": workers - head})
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="warning", log_to_driver=False)
    reward = ManimReward(TEXT_WEIGHT, VISUAL_WEIGHT, ray=cluster.address)
    try:
        earlier_step = [task.reference_code for task in default_tasks(skip=1)]
        reward([[]] * len(earlier_step), [format_target(code) for code in earlier_step], earlier_step)
        started = time.perf_counter()
        remote = reward([[]] * len(completions), completions, references)
        seconds = time.perf_counter() - started
    finally:
        reward.close()
        ray.shutdown()
        cluster.shutdown()
    difference = max(abs((mine or 0.0) - (other or 0.0)) for mine, other in zip(ours, remote))
    print(
        f"ours on Ray ({workers} actors on 2 nodes): {seconds:7.1f} s  {len(completions) / seconds:6.3f} samples/s  "
        f"overhead {seconds - ours_seconds:+.1f} s per step ({seconds / ours_seconds:.2f}x the local time); "
        f"max |reward difference| {difference:.1e}"
    )


if __name__ == "__main__":
    main()
