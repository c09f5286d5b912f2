"""Samples per second of the GRPO reward: ours against the paper's way, on one GRPO batch.

The batch is 2 ManimBench train tasks x 8 completions, as one step of the paper's GRPO sees it:
each task's reference, four working variants (changed timing, an extra object, moved objects, a
comment), a late runtime error, a truncated file and an answer without code.

- ours: `ManimReward` - one `Scorer.score_many` call: every distinct code rendered once, in
  parallel in the sandboxed pool (workers = cores), each reference rendered and embedded once;
- the paper's: for each completion in turn, re-render the reference and render the completion
  (no cache, one render at a time), SSIM matrix pair by pair with skimage
  (`ssim_matrix_reference`), embed both videos, CodeBERTBLEU.

Both start with a cold render cache; the embedders are loaded before timing. Ours is timed as a
training step after the first: its render workers were started by a step on two other tasks (in
training they live from the first step to the last); `--cold` times the very first step instead.
Both must give the same rewards, which is printed as a check.

    python benchmarks/reward_speed.py [--tasks mb003 mb005] [--workers N]
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

os.environ["MANIMGEN_CACHE"] = tempfile.mkdtemp(prefix="manimgen-reward-speed-")

from manimgen.agent.extract import extract_code  # noqa: E402
from manimgen.agent.prompts import format_target  # noqa: E402
from manimgen.data import Task, load_tasks  # noqa: E402
from manimgen.metrics.code import code_bert_bleu  # noqa: E402
from manimgen.metrics.dtw import dtw_distance  # noqa: E402
from manimgen.metrics.embedders import code_embedder, image_embedder  # noqa: E402
from manimgen.metrics.visual import SSIM_DTW_SHARPNESS, sem_dtw, ssim_matrix_reference, to_gray  # noqa: E402
from manimgen.render import render, sample_frames  # noqa: E402
from manimgen.scoring import Scorer  # noqa: E402
from manimgen.train.reward import ManimReward, default_render_workers  # noqa: E402

TEXT_WEIGHT, VISUAL_WEIGHT = 0.2, 0.8


def default_tasks(count: int = 2, skip: int = 0) -> list[Task]:
    """The first train tasks that animate in 2D (a 3D scene takes ~20 s a render here)."""
    chosen = [task for task in load_tasks("train") if "self.play(" in task.reference_code and "ThreeD" not in task.reference_code]
    return chosen[skip : skip + count]


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


def paper_reward(reference: str, completion: str, image_encoder: object, code_encoder: object) -> float:
    """One completion scored the paper's way: both scenes rendered afresh, pairwise skimage SSIM."""
    code = extract_code(completion)
    if code is None:
        return 0.0
    text = code_bert_bleu(reference, code, code_encoder)
    reference_render = render(reference, use_cache=False)
    if not reference_render.ok:
        return TEXT_WEIGHT * text
    generated = render(code, use_cache=False)
    if not generated.ok:
        return TEXT_WEIGHT * text
    ref_frames, test_frames = sample_frames(reference_render.output), sample_frames(generated.output)
    scores = ssim_matrix_reference(to_gray(ref_frames), to_gray(test_frames))
    distance = dtw_distance(scores.max(axis=1), scores.max(axis=0), "euclidean", "exact")
    ssim_part = math.exp(-SSIM_DTW_SHARPNESS * distance / max(scores.shape))
    semantic = sem_dtw(image_encoder.embed(ref_frames), image_encoder.embed(test_frames))  # type: ignore[attr-defined]
    return TEXT_WEIGHT * text + VISUAL_WEIGHT * math.sqrt(ssim_part * semantic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", help="ManimBench task ids (default: the first two 2D train scenes that animate)")
    parser.add_argument("--workers", type=int, default=None, help="parallel renders for ours (default: one per core)")
    parser.add_argument("--cold", action="store_true", help="time our first step, render workers starting included")
    args = parser.parse_args()

    tasks = load_tasks("train", ids=args.tasks) if args.tasks else default_tasks()
    references = [task.reference_code for task in tasks for _ in range(8)]
    completions = [completion for task in tasks for completion in group_completions(task.reference_code)]
    print(f"batch: {len(completions)} completions of {', '.join(task.id for task in tasks)}; {os.cpu_count()} cores")

    scorer = Scorer(workers=args.workers or default_render_workers())  # embedders load here, before timing
    reward = ManimReward(TEXT_WEIGHT, VISUAL_WEIGHT, scorer=scorer)
    image_encoder, code_encoder = image_embedder(), code_embedder()
    if not args.cold:
        earlier_step = [task.reference_code for task in default_tasks(skip=2)]
        reward([[]] * len(earlier_step), [format_target(code) for code in earlier_step], earlier_step)

    started = time.perf_counter()
    ours = reward([[]] * len(completions), completions, references)
    ours_seconds = time.perf_counter() - started
    stats = reward.last_stats
    print(f"ours:    {ours_seconds:7.1f} s  {len(completions) / ours_seconds:6.3f} samples/s  render success {stats.render_ok:.2f}")

    started = time.perf_counter()
    theirs = [paper_reward(reference, completion, image_encoder, code_encoder) for reference, completion in zip(references, completions)]
    paper_seconds = time.perf_counter() - started
    print(f"paper's: {paper_seconds:7.1f} s  {len(completions) / paper_seconds:6.3f} samples/s")

    difference = max(abs((mine or 0.0) - other) for mine, other in zip(ours, theirs))
    print(f"speed-up ours / paper's: {paper_seconds / ours_seconds:.1f}x   max |reward difference|: {difference:.1e}")
    print("rewards:", " ".join(f"{value:.2f}" for value in ours if value is not None))
    reward.close()


if __name__ == "__main__":
    main()
