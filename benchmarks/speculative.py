"""Speculative decoding on the CPU: the 1.5B writing alone, checking drafts looked up in its prompt, and
checking drafts the 0.5B writes.

    .venv/bin/python benchmarks/speculative.py [--tasks 4] [--split train] [--draft-tokens 4]

Writing tokens is most of a generation's time. llama.cpp can check several proposed tokens in one
batch: a proposal it would have sampled anyway is kept for the price of that batch. Two proposers:

- `lookup`: the tokens that followed the last two tokens where they occur earlier in the prompt or the
  answer (prompt lookup decoding; costs nothing to propose, pays off where the answer copies: a repair
  repeats most of the failed code);
- `0.5b`: the 0.5B model's greedy continuation (the same tokenizer), kept in step with the answer.

For each task, in turn so that load on the machine falls on all three: the first draft (seed 0) and a
repair of it (its code and a render error), each answered with the model's state forgotten first,
by three models in one process. Printed: seconds per call, tokens (prompt and answer) per second, and how many
answers are the same as writing alone (a checked batch rounds differently from one token at a time,
so an answer may differ by a token; it is the same model's distribution).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from manimgen.agent.extract import extract_code
from manimgen.agent.prompts import generation_messages, repair_messages
from manimgen.data import load_tasks
from manimgen.llm.llamacpp import PROMPT_CHUNK, available_cores
from manimgen.llm.models import ensure_gguf

from prompt_reuse import forgetful_chat

ERROR = "NameError: name 'ShowCreation' is not defined"
WAYS = ("alone", "lookup", "0.5b")


def small_model_draft(path: str, tokens: int, cores: int) -> Any:
    """A draft model for llama-cpp-python: the small model's greedy next `tokens`, its state reused
    from the previous call wherever the text so far is unchanged."""
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaDraftModel

    class SmallModelDraft(LlamaDraftModel):  # type: ignore[misc]
        def __init__(self) -> None:
            self.llama = Llama(model_path=path, n_ctx=4096, n_batch=PROMPT_CHUNK, logits_all=True, n_threads=cores, n_threads_batch=cores, verbose=False)

        def __call__(self, input_ids: Any, /, **kwargs: Any) -> Any:
            ids, llama = [int(token) for token in input_ids], self.llama
            kept = 0
            while kept < min(llama.n_tokens, len(ids) - 1) and llama.input_ids[kept] == ids[kept]:
                kept += 1
            llama.n_tokens = kept
            llama.eval(ids[kept:])
            proposed: list[int] = []
            while len(proposed) < tokens:
                token = int(np.argmax(llama.scores[llama.n_tokens - 1]))
                proposed.append(token)
                if token == llama.token_eos() or len(proposed) == tokens:
                    break
                llama.eval([token])
            return np.array(proposed, dtype=np.intc)

    return SmallModelDraft()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--split", default="train")
    parser.add_argument("--draft-tokens", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=512)
    args = parser.parse_args()
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    big, small, cores = str(ensure_gguf("qwen2.5-coder-1.5b")), str(ensure_gguf("qwen2.5-coder-0.5b")), available_cores()
    common = {"model_path": big, "n_ctx": 4096, "n_batch": PROMPT_CHUNK, "n_threads": cores, "n_threads_batch": cores, "verbose": False}
    # logits_all with a draft model: llama-cpp-python 0.3.36 sizes its score table by the argument, not by the draft model's need
    models = {
        "alone": Llama(**common),
        "lookup": Llama(**common, logits_all=True, draft_model=LlamaPromptLookupDecoding(max_ngram_size=2, num_pred_tokens=10)),
        "0.5b": Llama(**common, logits_all=True, draft_model=small_model_draft(small, args.draft_tokens, cores)),
    }
    seconds: dict[tuple[str, str], list[float]] = defaultdict(list)
    rates: dict[tuple[str, str], list[float]] = defaultdict(list)
    same: dict[tuple[str, str], int] = defaultdict(int)
    console = Console()
    tasks = load_tasks(args.split)[: args.tasks]
    for number, task in enumerate(tasks, 1):
        first = generation_messages(task.description)
        answers: dict[str, str] = {}
        for way in WAYS:
            answers[way], tokens, spent = forgetful_chat(models[way], first, 0, args.max_tokens)
            seconds[(way, "first draft")].append(spent)
            rates[(way, "first draft")].append(tokens / spent)
        code = extract_code(answers["alone"]) or answers["alone"]
        repair = repair_messages(task.description, code, ERROR)
        repaired: dict[str, str] = {}
        for way in WAYS:
            repaired[way], tokens, spent = forgetful_chat(models[way], repair, 0, args.max_tokens)
            seconds[(way, "repair")].append(spent)
            rates[(way, "repair")].append(tokens / spent)
        for way in WAYS:
            same[(way, "first draft")] += answers[way] == answers["alone"]
            same[(way, "repair")] += repaired[way] == repaired["alone"]
        console.print(f"task {number}/{len(tasks)} {task.id}: " + ", ".join(f"{way} {seconds[(way, 'first draft')][-1]:.1f}+{seconds[(way, 'repair')][-1]:.1f} s" for way in WAYS))
    table = Table(title=f"{len(tasks)} {args.split} tasks, {cores} cores, answers of at most {args.max_tokens} tokens")
    for column in ("call", "way", "median s", "tokens/s (prompt + answer)", "vs alone (s)", "answers as alone"):
        table.add_column(column)
    for round_name in ("first draft", "repair"):
        alone = statistics.median(seconds[("alone", round_name)])
        for way in WAYS:
            median = statistics.median(seconds[(way, round_name)])
            table.add_row(round_name, way, f"{median:.1f}", f"{statistics.median(rates[(way, round_name)]):.1f}", f"{alone / median:.2f}×", f"{same[(way, round_name)]}/{len(tasks)}")
    console.print(table)


if __name__ == "__main__":
    main()
