"""Stop a model that has started to repeat itself, instead of letting it write to its token limit.

A small model sometimes falls into a loop (the same `self.play(...)` lines, or the same lines with a
number counting up) and writes until `max_tokens`: on the development sentences, 6% of the 1.5B's
answers did, and they took 31% of all the tokens it wrote. Such an answer is cut off whatever
happens, so it is stopped as soon as the loop is certain: the last line written 6 times in a row, or
the last block of 2–6 lines 5 times in a row; or, with numbers read as one symbol (`x0 + 1.5`,
`x0 + 2.5`, …), 16 times and 6 times. Tuned on 1456 answers to development sentences and the outside
set, which `benchmarks/loop_guard.py` replays (docs/speed.md): it stops 56 of the 91 answers that
ran to the limit, saving 12.8% of the tokens written, and no answer that ended by itself.
"""

from __future__ import annotations

import re

NUMBER = re.compile(r"\d+(?:\.\d+)?")
MAX_BLOCK = 6
EXACT = (6, 5)  # a line repeated, a block of lines repeated: times in a row
MASKED = (16, 6)  # the same with every number read as "#"
RULE = f"lines repeated {EXACT[0]}×, blocks {EXACT[1]}×; with numbers masked {MASKED[0]}× and {MASKED[1]}×"
"""What a run records of the rule, so samples made with and without it are not mixed."""


class LoopGuard:
    """Fed the answer as it is written; `looping` turns True once its last lines repeat as the rule says."""

    def __init__(self) -> None:
        self.looping = False
        self._partial = ""
        self._exact: list[str] = []
        self._masked: list[str] = []

    def feed(self, text: str) -> bool:
        """Take the next piece of the answer; True once it loops."""
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in (stripped for stripped in (line.strip() for line in lines) if stripped):
            self._exact.append(line)
            self._masked.append(NUMBER.sub("#", line))
            self.looping = self.looping or _repeats(self._exact, EXACT) or _repeats(self._masked, MASKED)
        return self.looping


def stop_point(text: str, piece: int = 4) -> int | None:
    """Where the guard would have stopped `text` written `piece` characters at a time (None: never): how a
    stored answer is replayed through it."""
    guard = LoopGuard()
    for start in range(0, len(text), piece):
        if guard.feed(text[start : start + piece]):
            return min(start + piece, len(text))
    return None


def _repeats(lines: list[str], times: tuple[int, int]) -> bool:
    """The last line `times[0]` times in a row, or the last block of 2..MAX_BLOCK lines (not all one line) `times[1]` times."""
    for size in range(1, MAX_BLOCK + 1):
        need = times[0] if size == 1 else times[1]
        if len(lines) < size * need:
            continue
        block = lines[-size:]
        if size > 1 and len(set(block)) == 1:
            continue
        if all(lines[len(lines) - size * (turn + 1) : len(lines) - size * turn] == block for turn in range(need)):
            return True
    return False
