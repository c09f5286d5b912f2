"""Strategies that search instead of echo: mechanical repair, fresh drafts, and a choice among renders.

Small models answer most repair prompts with the code they were shown, so a repair round often buys
nothing, while independent drafts of the same sentence fail in different places. These strategies
keep RITL's budget of 1 + K generations but spend it differently:

- `ritl-lint-fix`: ritl-lint whose answers are first repaired mechanically (agent/autofix.py: the
  lint findings whose fix is certain); a repair that repeats code already tried, or follows a
  failed repair, is replaced by a fresh draft of the sentence at a higher temperature.
- `sample-lint`: every generation is a fresh draft (the first at the run's temperature, the rest
  hotter), repaired mechanically and checked by the lint; only clean drafts are rendered. A render
  is judged by its layout and its sentence (agent/judge.py: a blank video, a still where motion is
  asked, a quoted text the code never writes). The run stops at the first render without problems
  and otherwise ends on the rendered draft with the fewest. Nothing in the choice looks at a reference.
"""

from __future__ import annotations

from manimgen.agent.autofix import autofix
from manimgen.agent.feedback_strategies import LintCheck, keep_best_render
from manimgen.agent.judge import drawn_problems, problem_count, sentence_problems
from manimgen.checks.layout import format_layout, layout_findings
from manimgen.agent.prompts import generation_messages
from manimgen.agent.strategies import AgentConfig, AgentRun, OnRound, RepairLoop, register_strategy
from manimgen.agent.trace import Round, Trace
from manimgen.llm.base import LLM, Message
from manimgen.render.result import RenderResult

RESAMPLE_TEMPERATURE = 0.8
"""A fresh draft's temperature: hot enough to differ from the drafts before it (seeds differ too)."""
EXAMPLES_PER_DRAFT = 2


class MechanicalRepair:
    """Mixin: the round's code is repaired mechanically before it is checked; the round keeps the notes."""

    def evaluate(self, run: AgentRun, round_: Round) -> str | None:
        if round_.code is not None:
            fixed = autofix(round_.code)
            if fixed.notes:
                round_.code, round_.autofixes = fixed.code, fixed.notes
        return super().evaluate(run, round_)  # type: ignore[misc]


def fresh_draft(run: AgentRun, messages: list[Message]) -> Round:
    """A new draft of the sentence, sampled hotter (and, as every round, with its own seed)."""
    return run.ask("resample", messages, temperature=RESAMPLE_TEMPERATURE)


LINT_FIX_SUMMARY = (
    "ritl-lint whose answers are first repaired mechanically (ManimGL names, near-miss names, keyword "
    "arguments no parameter takes, a missing import, unclosed brackets; each fix recorded in the trace); "
    "a repair that repeats tried code, or follows a failed repair, becomes a fresh draft"
)
SAMPLE_SUMMARY = (
    "best of 1 + K independent drafts: each repaired mechanically and checked by the lint, only clean "
    "ones rendered; stops at the first render without layout or sentence problems (blank, a still where "
    "motion is asked, a quoted text missing), else keeps the render with fewest"
)


@register_strategy(
    "ritl-lint-fix",
    summary=LINT_FIX_SUMMARY,
    words="corrects common code mistakes by itself before asking the model again",
)
class LintFixLoop(MechanicalRepair, LintCheck, RepairLoop):
    """Repair once; when the model echoes or its repair fails, draw a new draft instead of insisting."""

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        tried = {round_.code for round_ in run.rounds[:-1]}
        if previous.kind == "repair" or previous.code in tried:
            return fresh_draft(run, self.draft_messages(run))
        return super().follow_up(run, previous)


@register_strategy(
    "sample-lint",
    summary=SAMPLE_SUMMARY,
    words="writes several scenes and keeps the first that renders cleanly",
)
class SampleLoop(MechanicalRepair, LintCheck, RepairLoop):
    """Resample instead of repairing; the lint is the free verifier, the layout and sentence checks the judge."""

    drawn = False  # also judge what the final frame shows (judge.drawn_problems)

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        return fresh_draft(run, self.draft_messages(run))

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        code = run.rounds[-1].code or ""
        findings = layout_findings(result.geometry)
        problems = sentence_problems(run.description, code, result)
        if self.drawn:
            problems += drawn_problems(run.description, result)
        if not findings and not problems:
            return None
        lines = [format_layout(findings)] if findings else ["The scene rendered without errors, but:"]
        return "\n".join([*lines, *(f"- {problem}" for problem in problems)])

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace:
        trace = super().run(llm, description, config, on_round)
        return keep_best_render(trace, lambda round_: problem_count(description, round_.code or "", round_.render, drawn=self.drawn))


JUDGE_SUMMARY = (
    "sample-lint whose judge also reads the final frame's geometry: several things the sentence counts piled "
    "on one spot, a formula written as plain text with carets"
)


@register_strategy(
    "sample-judge",
    summary=JUDGE_SUMMARY,
    words="writes several scenes and also rejects piled-up objects and formulas written as plain text",
)
class JudgedSampleLoop(SampleLoop):
    """sample-lint with the drawn-content checks (judge.drawn_problems) in its verdict and its choice."""

    drawn = True


EXAMPLES_SUMMARY = (
    "sample-lint whose drafts are shown the two working example scenes (licence-clean, none near a "
    "benchmark answer) whose descriptions are nearest the sentence"
)


@register_strategy(
    "sample-lint-examples",
    summary=EXAMPLES_SUMMARY,
    words="writes several scenes, each after seeing two working example scenes like yours",
)
class ExampleSampleLoop(SampleLoop):
    """sample-lint with retrieved examples in every draft's prompt (agent/examples.py)."""

    def draft_messages(self, run: AgentRun) -> list[Message]:
        from manimgen.agent.examples import example_bank, nearest_or_none

        examples = nearest_or_none(example_bank, run.description, EXAMPLES_PER_DRAFT)
        return generation_messages(run.description, [(example.description, example.code) for example in examples], frame=run.frame)
