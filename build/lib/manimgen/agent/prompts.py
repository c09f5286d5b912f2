"""Every text the agent sends to a model, and the answer format training teaches.

This is the single source of truth: the strategies build their prompts here and the trainer builds
its SFT targets with `format_target`, so a trained model sees exactly the format it is asked for.

Structure (from the study we reproduce): a system message that casts the model as an expert Manim
Community Edition educator and developer, says the description comes inside `<TEXT_SCRIPT>` and
that the answer is executable code inside `<CODE>…</CODE>`, and shows one short example. The
example scene is our own on purpose: the Manim documentation examples are the benchmark's test
answers, so none of them may appear in a prompt.

Repair and documentation prompts are fresh single-turn conversations (system + one user message),
never a growing chat: the model sees the description, its previous code and the feedback only.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from manimgen.agent.idioms import ADVICE, IDIOMS
from manimgen.llm.base import Message
from manimgen.render.result import RenderResult, RenderStatus, get_quality

ERROR_LINES = 10

NO_CODE_FEEDBACK = (
    "No code was found in the previous answer. Answer with the complete scene file wrapped in "
    "<CODE> and </CODE>, with the Python code inside a ```python fence."
)

EXAMPLE_DESCRIPTION = (
    "An orange triangle fades in at the top of the screen, then slides down to the centre while turning "
    'yellow, and the word "landed" is written below it.'
)

EXAMPLE_CODE = '''from manim import *


class SlidingTriangle(Scene):
    def construct(self):
        triangle = Triangle(color=ORANGE, fill_opacity=0.8).to_edge(UP)
        caption = Text("landed", font_size=36)
        self.play(FadeIn(triangle))
        self.play(triangle.animate.move_to(ORIGIN).set_color(YELLOW), run_time=1.5)
        caption.next_to(triangle, DOWN)
        self.play(Write(caption))
        self.wait(0.5)
'''


def _trim(text: str) -> str:
    """Drop blank lines around a block but keep the code's own indentation."""
    return text.strip("\n").rstrip()


def format_target(code: str) -> str:
    """The answer a model should give for `code`: the SFT target and the example's answer."""
    return f"<CODE>\n```python\n{_trim(code)}\n```\n</CODE>"


def text_script(description: str) -> str:
    return f"<TEXT_SCRIPT>\n{description.strip()}\n</TEXT_SCRIPT>"


def _block(tag: str, body: str) -> str:
    return f"<{tag}>\n{_trim(body)}\n</{tag}>"


SYSTEM_PROMPT = f"""You are an expert educator and Python developer who creates explanatory animations with Manim Community Edition (manim 0.19).

You will receive a description of a short animation inside <TEXT_SCRIPT> tags. Write one complete Python file that produces that animation:
- begin with `from manim import *`;
- define exactly one scene class (a subclass of Scene, or of ThreeDScene, MovingCameraScene, ... when needed) and build the whole animation in its `construct` method;
- use only classes, functions, methods and arguments that exist in Manim Community Edition;
- the file must run as it is: no user input, no external files, no network.

Answer only with the executable code wrapped in <CODE> and </CODE>, and write nothing outside the tags.

Example

{text_script(EXAMPLE_DESCRIPTION)}

{format_target(EXAMPLE_CODE)}"""


IDIOMS_SYSTEM_PROMPT = f"{SYSTEM_PROMPT}\n\n{ADVICE}\n\n```python\n{_trim(IDIOMS)}\n```"
"""The system prompt with the idioms scene (agent/idioms.py): the same text in every call, so its evaluated
state is reused after the first."""


def _conversation(user: str, system: str = SYSTEM_PROMPT) -> list[Message]:
    return [Message(role="system", content=system), Message(role="user", content=user)]


def frame_note(quality: str) -> str | None:
    """What a frame other than Manim's 16:9 means for the layout, said in the first request: the model
    would otherwise lay the scene out 14 units wide."""
    settings = get_quality(quality)
    if settings.aspect == Fraction(16, 9):
        return None
    shape = "portrait" if settings.aspect < 1 else "square" if settings.aspect == 1 else "landscape"
    half = settings.frame_width / 2
    return (
        f"The video is {shape} ({settings.aspect.numerator}:{settings.aspect.denominator}): the frame is "
        f"{settings.frame_width:.4g} units wide and 8 tall, so keep everything within x = -{half:.3g} to {half:.3g} "
        "(make things smaller or stack them)."
    )


def generation_messages(
    description: str,
    examples: Sequence[tuple[str, str]] = (),
    plan: str | None = None,
    system: str = SYSTEM_PROMPT,
    frame: str | None = None,
) -> list[Message]:
    """The first request: the description inside `<TEXT_SCRIPT>`, after any (description, code)
    examples of working scenes for similar sentences, and before the plan: what the video must show,
    one numbered line a requirement (checks/requirements.py); then the frame, when it is not 16:9."""
    asked = text_script(description) + (f"\n\nThe video must show:\n{plan}" if plan else "") + (f"\n\n{frame}" if frame else "")
    if not examples:
        return _conversation(asked, system)
    shown = "\n\n".join(f"{text_script(text)}\n{format_target(code)}" for text, code in examples)
    return _conversation(f"Working scenes for similar descriptions:\n\n{shown}\n\nNow write the scene for this one:\n{asked}", system)


RENDER_FAILED = "it failed when it was rendered with manim"


def repair_messages(
    description: str, code: str, render_errors: str, api_info: str | None = None, problem: str = RENDER_FAILED, system: str = SYSTEM_PROMPT
) -> list[Message]:
    """A fresh request to fix `code`, carrying what went wrong (and, for RITL-DOC, the API docs).

    `problem` completes "…, but {problem}." so a check that is not a failed render (a static check,
    a layout check) does not claim one.
    """
    parts = [
        f"The code below was written for this description, but {problem}.",
        text_script(description),
        _block("INITIAL_CODE", code),
    ]
    if api_info is not None:
        parts.append(_block("API_INFO", api_info))
    parts.append(_block("RENDER_ERRORS", render_errors))
    docs_hint = (
        " Check every call against the documentation in <API_INFO>; a name it reports as not found does not exist "
        "in manim and must be replaced."
        if api_info is not None
        else ""
    )
    parts.append(
        "Find the cause of the errors and fix it." + docs_hint + " Keep everything the description asks for. "
        "Answer only with the complete corrected code wrapped in <CODE> and </CODE>."
    )
    return _conversation("\n\n".join(parts), system)


def doc_messages(description: str, code: str, api_info: str) -> list[Message]:
    """The RITL-DOC refinement request: the draft and the documentation of what it calls, before any render."""
    parts = [
        "Below is a first version of the code for this description, followed by the manim documentation of "
        "the names it calls.",
        text_script(description),
        _block("INITIAL_CODE", code),
        _block("API_INFO", api_info),
        "Check every call against its signature and documentation: fix wrong class names, methods and "
        "arguments, and replace every name reported as not found, because it does not exist in manim. Keep "
        "what already matches the description. Answer only with the complete code wrapped in <CODE> and </CODE>.",
    ]
    return _conversation("\n\n".join(parts))


def render_errors(result: RenderResult) -> str:
    """What a model is told about a failed render: the last 10 error lines, and a plain word on timeouts."""
    lines = [line for line in result.error_tail.splitlines() if line.strip()][-ERROR_LINES:]
    if result.status is RenderStatus.TIMEOUT:
        return "\n".join(
            lines
            + [
                "The render was stopped because it took too long: shorten run_time and wait calls, avoid loops "
                "that never end and very heavy objects."
            ]
        )
    return "\n".join(lines) or f"The render failed ({result.status.value}) without an error message."
