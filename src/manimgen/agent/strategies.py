"""ManimAgent's inference strategies: vanilla, RITL and RITL-DOC, and the registry new ones join.

Every built-in strategy is one loop, `RepairLoop`: generate, evaluate, and while the evaluation gives
feedback and rounds are left, ask again with a fresh repair prompt. Strategies differ only in hooks:

    max_repairs(config) -> int                  feedback rounds allowed (vanilla: 0; others: config.rounds)
    first(run) -> Round                         the first round (default: a draft, then `refine`)
    refine(run, draft) -> Round                 extra generations before the first evaluation (RITL-DOC)
    before_render(run, code) -> str | None      a check before rendering, e.g. a linter; feedback skips the render
    after_render(run, result) -> str | None     a check of a successful render, e.g. its layout; feedback asks
                                                for another round although the code rendered
    draft_messages(run) -> messages             what a fresh draft is asked with (default: the plain generation prompt)
    follow_up(run, previous) -> Round           the generation after feedback (default: a repair)
    repair_prompt(run, previous) -> messages    what a feedback round asks (RITL-DOC adds <API_INFO>)

A new strategy subclasses `RepairLoop` (or `DocRepairLoop`), overrides a hook and registers itself:

    @register_strategy("ritl-lint", summary="RITL with a static check before every render", words="checks the code first")
    class LintRepairLoop(RepairLoop):
        def before_render(self, run, code):
            findings = lint(code)
            return "\\n".join(findings) if findings else None

Feedback from any hook reaches the model in the `<RENDER_ERRORS>` slot of the repair prompt (override
`repair_prompt` for a different slot) and is kept in `Round.feedback`. Code a hook rejected without
rendering is still rendered once when the run ends, so every run ends with a render to score.

All renders go through `config.renderer` (a sandboxed, cached `manimgen.render.Renderer`). `config.deadline_s` is checked
before each model call after the first: when it has passed no new round starts, the current code is
still evaluated, and the trace records `stop_reason="deadline"`. A round replayed from a generation
cache (`ChatResult.cached`) counts the seconds its original call took, so costs stay comparable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

from manimgen.agent.apidocs import api_info
from manimgen.agent.extract import extract_code
from manimgen.agent.prompts import NO_CODE_FEEDBACK, RENDER_FAILED, doc_messages, format_target, frame_note, generation_messages, render_errors, repair_messages
from manimgen.agent.trace import STOP_DEADLINE, STOP_MAX_ROUNDS, STOP_RENDERED, Round, Trace
from manimgen.checks import Checklist
from manimgen.llm.base import LLM, Message, Sampling
from manimgen.render import Renderer, RendererOptions, RenderJob, open_renderer
from manimgen.registry import Registry
from manimgen.render.result import DEFAULT_QUALITY, DEFAULT_RENDER_TIMEOUT_S, RenderResult, get_quality

DEFAULT_SAMPLING = Sampling(seed=0)

OnRound = Callable[[Round], None]


def round_sampling(sampling: Sampling, index: int) -> Sampling:
    """The sampling of round `index`: seed + index, so a repeated prompt can still get a new answer."""
    return sampling if sampling.seed is None else replace(sampling, seed=sampling.seed + index)


@dataclass(frozen=True)
class AgentConfig:
    """Settings of one run. `rounds` is K, the feedback rounds after the first generation.

    `renderer` is where the run's renders go (a study shares its warm pool this way); without one,
    each render gets a fresh sandbox with `timeout_s`, as a single `render()` call does.

    Round i samples with `round_sampling(sampling, i)`, so a repair that gets the same prompt twice
    can still answer differently while the whole run stays repeatable.
    """

    rounds: int = 3
    sampling: Sampling = DEFAULT_SAMPLING
    quality: str = DEFAULT_QUALITY
    timeout_s: float = DEFAULT_RENDER_TIMEOUT_S
    deadline_s: float | None = None
    renderer: Renderer | None = field(default=None, compare=False, repr=False)
    checklist: Checklist | None = field(default=None, compare=False, repr=False)  # a person's edit of the sentence's checklist

    def __post_init__(self) -> None:
        if self.rounds < 0:
            raise ValueError(f"rounds must be 0 or more, got {self.rounds}")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s}")
        get_quality(self.quality)


class Strategy(Protocol):
    name: str
    words: str

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace: ...


class AgentRun:
    """The state of one run that hooks may use: model, description, settings, rounds so far, clock.

    A context manager: a run given no renderer opens a fresh one of its own and closes it at the end."""

    def __init__(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None) -> None:
        self.llm = llm
        self.description = description
        self.config = config
        self._own_renderer = config.renderer is None
        self.renderer: Renderer = config.renderer or open_renderer("fresh", RendererOptions(workers=1, timeout_s=config.timeout_s))
        self.rounds: list[Round] = []
        self.deadline_hit = False
        self._on_round = on_round
        self._started = time.monotonic()
        self._replayed_seconds = 0.0
        self.frame = frame_note(config.quality)

    def __enter__(self) -> AgentRun:
        return self

    def __exit__(self, *_: object) -> None:
        if self._own_renderer:
            self.renderer.close()

    def out_of_time(self) -> bool:
        """True once the deadline has passed; ask only before starting a round, since a True is recorded."""
        deadline = self.config.deadline_s
        if deadline is not None and time.monotonic() - self._started + self._replayed_seconds >= deadline:
            self.deadline_hit = True
        return self.deadline_hit

    def ask(self, kind: str, messages: list[Message], temperature: float | None = None) -> Round:
        """One model call, recorded as the next round with the code extracted from its answer;
        `temperature` overrides the run's for this call (a fresh draft samples hotter)."""
        index = len(self.rounds)
        started = time.monotonic()
        sampling = round_sampling(self.config.sampling, index)
        if temperature is not None:
            sampling = replace(sampling, temperature=temperature)
        result = self.llm.chat(messages, n=1, sampling=sampling)
        completion = result.completions[0]
        if result.cached:
            self._replayed_seconds += result.usage.seconds
        round_ = Round(
            index=index,
            kind=kind,
            messages=messages,
            completion=completion,
            code=extract_code(completion),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            llm_seconds=result.usage.seconds if result.cached else time.monotonic() - started,
            cached=result.cached,
        )
        self.rounds.append(round_)
        return round_

    def offer(self, kind: str, code: str) -> Round:
        """A round whose code did not come from the model (the scene builder's): recorded like any other, at no model cost."""
        round_ = Round(index=len(self.rounds), kind=kind, messages=[], completion=format_target(code), code=code)
        self.rounds.append(round_)
        return round_

    def render(self, round_: Round) -> RenderResult:
        """Render the round's code in the sandbox and keep the result. The scene's geometry is always
        recorded (a snapshot per play, cheap), so every rendered round can be checked for its layout."""
        if round_.code is None:
            raise ValueError(f"round {round_.index} has no code to render")
        started = time.monotonic()
        result = self.renderer.render(RenderJob(round_.code, quality=self.config.quality, geometry=True))
        round_.render = result
        round_.render_seconds += time.monotonic() - started
        return result

    def report(self, round_: Round) -> None:
        """Tell the caller a round is finished (for live progress)."""
        if self._on_round is not None:
            self._on_round(round_)

    def finish(self, strategy: str, stop_reason: str) -> Trace:
        final = self.rounds[-1]
        return Trace(
            strategy=strategy,
            model=self.llm.name,
            description=self.description,
            rounds=self.rounds,
            final_code=final.code,
            final_render=final.render,
            seconds=time.monotonic() - self._started + self._replayed_seconds,
            stop_reason=STOP_DEADLINE if self.deadline_hit else stop_reason,
        )


STRATEGIES: Registry[type[Strategy]] = Registry("strategy")
S = TypeVar("S", bound=type)


def register_strategy(name: str, *, summary: str, words: str = "") -> Callable[[S], S]:
    """Class decorator: make a strategy available by `name` (to `run_agent`, the CLI and the bench);
    `summary` says what it does for researchers, in the CLI's help and docs/generation.md's table;
    `words` says it for a teacher, in the page's menu (the summary where there are none)."""

    def decorate(cls: S) -> S:
        cls.name = name
        cls.words = words or summary
        STRATEGIES.add(name, cls, summary)
        return cls

    return decorate


def strategy_words() -> dict[str, str]:
    """Every strategy with what it does in a teacher's words, in the registry's order."""
    return {name: cls.words for name, cls in STRATEGIES.items()}


def get_strategy(name: str) -> Strategy:
    """A fresh instance of the strategy registered as `name`."""
    return STRATEGIES.pick(name)()


@register_strategy(
    "ritl",
    summary=(
        "render; on failure a fresh prompt with the code and the last 10 error lines; at most K = 3 repairs"
    ),
    words="when the scene fails to render, shows the model the error and asks again (up to three times)",
)
class RepairLoop:
    """RITL, renderer in the loop: render; on failure a fresh repair prompt; stop at the first success.

    At most K = config.rounds feedback rounds (1 + K generations). An answer with no extractable code
    is a failure like any other and is fed back as such.
    """

    name: str

    def max_repairs(self, config: AgentConfig) -> int:
        return config.rounds

    def refine(self, run: AgentRun, draft: Round) -> Round:
        """Generations between the first answer and its first evaluation; none by default.

        An override checks `run.out_of_time()` before each call it makes and reports (`run.report`)
        each round it supersedes.
        """
        return draft

    def before_render(self, run: AgentRun, code: str) -> str | None:
        """Feedback that makes the code be repaired without rendering it, or None to render."""
        return None

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        """Feedback on a successful render that asks for another round, or None to accept it."""
        return None

    def draft_messages(self, run: AgentRun) -> list[Message]:
        """What a fresh draft of the sentence is asked with (the first generation, and resampling)."""
        return generation_messages(run.description, frame=run.frame)

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        """The next generation after feedback: a repair of `previous` by default."""
        return run.ask("repair", self.repair_prompt(run, previous))

    def repair_prompt(self, run: AgentRun, previous: Round) -> list[Message]:
        """The fresh single-turn prompt of a feedback round; shows the answer itself when it held no code."""
        return repair_messages(
            run.description, previous.code or previous.completion, previous.feedback, problem=feedback_problem(previous)
        )

    def evaluate(self, run: AgentRun, round_: Round) -> str | None:
        """Feedback for the round's answer, or None when it is accepted."""
        if round_.code is None:
            return NO_CODE_FEEDBACK
        feedback = self.before_render(run, round_.code)
        if feedback is not None:
            return feedback
        result = run.render(round_)
        if not result.ok:
            return render_errors(result)
        return self.after_render(run, result)

    def first(self, run: AgentRun) -> Round:
        """The first round: a draft from the model, refined as the strategy does."""
        return self.refine(run, run.ask("generate", self.draft_messages(run)))

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace:
        with AgentRun(llm, description, config, on_round) as run:
            current = self.first(run)
            repairs_left = self.max_repairs(config)
            while True:
                feedback = self.evaluate(run, current)
                current.feedback = feedback or ""
                run.report(current)
                if feedback is None:
                    return run.finish(self.name, STOP_RENDERED)
                if repairs_left <= 0 or run.out_of_time():
                    break
                current = self.follow_up(run, current)
                repairs_left -= 1
            if current.code is not None and current.render is None:
                result = run.render(current)
                current.feedback += f"\n(The run ended here, so this code was rendered after all: {result.status.value}.)"
            return run.finish(self.name, STOP_MAX_ROUNDS)


@register_strategy(
    "vanilla",
    summary="one generation, rendered once",
    words="asks the model once and shows what it wrote, even when it fails",
)
class Vanilla(RepairLoop):
    """One generation, rendered once; nothing is fed back."""

    def max_repairs(self, config: AgentConfig) -> int:
        return 0


@register_strategy(
    "ritl-doc",
    summary=(
        "RITL plus one refinement with manim's own API docs of every name the code calls (signatures and "
        "docstrings from the installed manim, examples cut out; unknown names flagged as likely inventions), "
        "and fresh docs in every repair"
    ),
    words="like the error repair, and also shows the model Manim's own documentation of what it used",
)
class DocRepairLoop(RepairLoop):
    """RITL-DOC: RITL plus manim's API documentation of the names the code calls.

    Before the first render the draft is refined once with `<API_INFO>`; every feedback round then
    carries fresh `<API_INFO>` for the current code beside `<RENDER_ERRORS>`. Up to 2 + K generations
    (5 at K = 3). A draft without code skips the refinement (there is nothing to document) and goes
    straight to the no-code feedback.
    """

    def refine(self, run: AgentRun, draft: Round) -> Round:
        if draft.code is None or run.out_of_time():
            return draft
        run.report(draft)
        return run.ask("doc", doc_messages(run.description, draft.code, api_info(draft.code).text))

    def repair_prompt(self, run: AgentRun, previous: Round) -> list[Message]:
        docs = api_info(previous.code).text if previous.code is not None else None
        return repair_messages(
            run.description, previous.code or previous.completion, previous.feedback, docs, feedback_problem(previous)
        )


def feedback_problem(previous: Round) -> str:
    """How the repair prompt names what went wrong: a failed render, a check before it, or a check after it."""
    if previous.code is not None and previous.render is None:
        return "a check before rendering found the problems listed below, so it was not rendered"
    if previous.render is not None and previous.render.ok:
        return "its render succeeded with the problems listed below"
    return RENDER_FAILED


def run_agent(
    llm: LLM,
    description: str,
    strategy: str,
    config: AgentConfig | None = None,
    on_round: OnRound | None = None,
) -> Trace:
    """Turn a description into scene code with the named strategy; the trace holds every round."""
    return get_strategy(strategy).run(llm, description, config or AgentConfig(), on_round)
