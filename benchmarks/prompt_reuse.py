"""Seconds per repair round and per resampled draft: reused prompt state against fresh evaluation.

    .venv/bin/python benchmarks/prompt_reuse.py [--model qwen2.5-coder-1.5b] [--tasks 4] [--split train]

For each task, in the order a study makes them: a first draft (seed 0; the task before left the
system prompt's state), a second draft (seed 1, as a sampling strategy draws it), and a repair of the
first draft (its code and a render error). Three ways to answer each call, in one process, task by
task in turn so that load on the machine falls on all of them:

- `before`: the provider as it was before reuse, a plain llama.cpp model that forgets its state
  before every call and evaluates the prompt in batches of 512;
- `fresh`: the project's provider with its state forgotten before every call (64-token chunks);
- `reused`: the project's provider as it runs, keeping the whole chunks an earlier prompt evaluated.

`fresh` and `reused` must give the same answers (checked here, and in the test suite), so their
ratio is the reuse alone; `before` answers differ by the batching's rounding, so its answers may be
of other lengths: it is compared by tokens (prompt and answer) per second.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from rich.console import Console
from rich.table import Table

from manimgen.agent.extract import extract_code
from manimgen.agent.prompts import generation_messages, repair_messages
from manimgen.data import load_tasks
from manimgen.llm import Message, Sampling, load_model
from manimgen.llm.llamacpp import PROMPT_CHUNK, available_cores
from manimgen.llm.models import ensure_gguf

ERROR = "NameError: name 'ShowCreation' is not defined"
ROUNDS = ("first draft", "second draft", "repair")


def forgetful_chat(llama: object, messages: list[Message], seed: int, max_tokens: int) -> tuple[str, int, float]:
    """One call with the model's state forgotten first: (answer, prompt + answer tokens, seconds)."""
    started = time.perf_counter()
    llama.reset()  # type: ignore[attr-defined]
    response = llama.create_chat_completion(messages=list(messages), temperature=0.2, top_p=0.95, max_tokens=max_tokens, seed=seed)  # type: ignore[attr-defined]
    usage = response["usage"]
    return response["choices"][0]["message"]["content"], usage["prompt_tokens"] + usage["completion_tokens"], time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--split", default="train")
    parser.add_argument("--max-tokens", type=int, default=512)
    args = parser.parse_args()
    from llama_cpp import Llama

    path, cores = str(ensure_gguf(args.model)), available_cores()
    before = Llama(model_path=path, n_ctx=8192, n_threads=cores, n_threads_batch=cores, verbose=False)
    fresh = Llama(model_path=path, n_ctx=8192, n_batch=PROMPT_CHUNK, n_threads=cores, n_threads_batch=cores, verbose=False)
    reusing = load_model(args.model)
    seconds: dict[tuple[str, str], list[float]] = defaultdict(list)
    rates: dict[tuple[str, str], list[float]] = defaultdict(list)
    reused: dict[str, list[int]] = defaultdict(list)
    mismatches = 0
    for task in load_tasks(args.split)[: args.tasks]:
        first = generation_messages(task.description)
        calls: list[tuple[str, list[Message], int]] = [(ROUNDS[0], first, 0), (ROUNDS[1], first, 1)]
        answers = []
        for index, (round_name, messages, seed) in enumerate(calls):
            result = reusing.chat(messages, sampling=Sampling(max_tokens=args.max_tokens, seed=seed))
            usage = result.usage
            seconds[("reused", round_name)].append(usage.seconds)
            rates[("reused", round_name)].append((usage.prompt_tokens + usage.completion_tokens) / usage.seconds)
            reused[round_name].append(usage.reused_prompt_tokens)
            answers.append(result.completions[0])
            if index == 0:
                code = extract_code(result.completions[0]) or result.completions[0]
                calls.append((ROUNDS[2], repair_messages(task.description, code, ERROR), 0))
        for label, llama in (("fresh", fresh), ("before", before)):
            for (round_name, messages, seed), reused_answer in zip(calls, answers, strict=True):
                answer, tokens, elapsed = forgetful_chat(llama, messages, seed, args.max_tokens)
                seconds[(label, round_name)].append(elapsed)
                rates[(label, round_name)].append(tokens / elapsed)
                mismatches += label == "fresh" and answer != reused_answer
    reusing.close()
    fresh.close()
    before.close()
    console = Console()
    table = Table(title=f"{args.model}, {args.tasks} {args.split} tasks, {cores} threads: median seconds (tokens/s) per call")
    for column in ("call", "prompt tokens reused", "before", "fresh", "reused", "reused vs fresh", "reused vs before, tokens/s"):
        table.add_column(column, justify="left" if column == "call" else "right")
    for round_name in ROUNDS:
        cells = {label: (statistics.median(seconds[(label, round_name)]), statistics.median(rates[(label, round_name)])) for label in ("before", "fresh", "reused")}
        table.add_row(
            round_name,
            f"{statistics.median(reused[round_name]):.0f}",
            *(f"{cells[label][0]:.1f} s ({cells[label][1]:.0f})" for label in ("before", "fresh", "reused")),
            f"{cells['fresh'][0] / cells['reused'][0]:.2f}x faster",
            f"{cells['reused'][1] / cells['before'][1]:.2f}x",
        )
    console.print(table)
    console.print(f"answers that differ between fresh and reused evaluation: {mismatches} of {3 * args.tasks}")


if __name__ == "__main__":
    main()
