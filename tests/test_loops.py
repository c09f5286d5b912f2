"""An answer that repeats itself is stopped where the loop is certain, and only then (llm/loops.py)."""

from __future__ import annotations

from pathlib import Path

from manimgen.llm.base import Sampling
from manimgen.llm.llamacpp import LlamaCppLLM
from manimgen.llm.loops import stop_point

HEAD = "```python\nfrom manim import *\n\nclass A(Scene):\n    def construct(self):\n"


def test_a_repeated_line_or_block_is_a_loop_once_certain() -> None:
    line = "        self.play(square.animate.rotate(PI / 4))\n"
    assert stop_point(HEAD + line * 5) is None
    assert stop_point(HEAD + line * 6) == len(HEAD + line * 6)
    block = "        self.play(Create(dot))\n        self.wait(1)\n"
    assert stop_point(HEAD + block * 4) is None, "four turns of a two-line block can be meant"
    assert stop_point(HEAD + block * 5) is not None
    counting = [f"        self.play(FadeIn(labels[{n}]), run_time={n}.5)\n" for n in range(20)]
    assert stop_point(HEAD + "".join(counting)) == len(HEAD + "".join(counting[:16])), "numbers counting up: the 16th line"


def test_code_that_only_looks_alike_is_not_a_loop() -> None:
    unrolled = "".join(f"        circle{n} = Circle(color=WHITE)\n" for n in range(1, 11))
    steps = "".join(f"        self.play(FadeIn(eq.subs(x0, {n}.5)), run_time=2)\n" for n in range(10))
    waits = "        self.play(Create(a))\n        self.wait(1)\n        self.play(Create(b))\n        self.wait(1)\n" * 2
    for text in (unrolled, steps, waits):
        assert stop_point(HEAD + text) is None, text


def test_the_embedded_model_is_stopped_in_a_loop(small_gguf: Path) -> None:
    """A real loop of the 0.5B: asked for one line 200 times it writes it until the guard stops it, far
    before the token limit, with what it wrote kept."""
    llm = LlamaCppLLM(small_gguf)
    try:
        prompt = [{"role": "user", "content": "Write the Python line `self.wait(1)` 200 times, one per line, and nothing else."}]
        result = llm.chat(prompt, sampling=Sampling(max_tokens=600, seed=0))
    finally:
        llm.close()
    lines = [line for line in result.completions[0].splitlines() if line.strip()]
    assert lines[-6:] == ["self.wait(1)"] * 6 and len(lines) <= 8
    assert result.usage.completion_tokens < 60
