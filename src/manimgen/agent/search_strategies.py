"""Strategies that search instead of echo: mechanical repair, fresh drafts, and a choice among renders.

Small models answer most repair prompts with the code they were shown, so a repair round often buys
nothing, while independent drafts of the same sentence fail in different places. These strategies
keep RITL's budget of 1 + K generations but spend it differently:

- `ritl-lint-fix`: ritl-lint whose answers are first repaired mechanically (agent/autofix.py: the
  lint findings whose fix is certain); a repair that repeats code already tried, or follows a
  failed repair, is replaced by a fresh draft of the sentence at a higher temperature.
- `sample-lint`: every generation is a fresh draft (the first at the run's temperature, the rest
  hotter), repaired mechanically and checked by the lint; only clean drafts are rendered, with their
  layout recorded. The run stops at the first render without layout findings and otherwise ends on
  the rendered draft with the fewest. Nothing in the choice looks at a reference.
"""

from __future__ import annotations

from manimgen.agent.autofix import autofix
from manimgen.agent.feedback_strategies import LayoutRepairLoop, LintCheck
from manimgen.agent.prompts import generation_messages
from manimgen.agent.strategies import AgentRun, RepairLoop, register_strategy
from manimgen.agent.trace import Round

RESAMPLE_TEMPERATURE = 0.8
"""A fresh draft's temperature: hot enough to differ from the drafts before it (seeds differ too)."""


class MechanicalRepair:
    """Mixin: the round's code is repaired mechanically before it is checked; the round keeps the notes."""

    def evaluate(self, run: AgentRun, round_: Round) -> str | None:
        if round_.code is not None:
            fixed = autofix(round_.code)
            if fixed.notes:
                round_.code, round_.autofixes = fixed.code, fixed.notes
        return super().evaluate(run, round_)  # type: ignore[misc]


def fresh_draft(run: AgentRun) -> Round:
    """A new draft of the sentence, sampled hotter (and, as every round, with its own seed)."""
    return run.ask("resample", generation_messages(run.description), temperature=RESAMPLE_TEMPERATURE)


@register_strategy(
    "ritl-lint-fix",
    summary=(
        "ritl-lint whose answers are first repaired mechanically (ManimGL names, near-miss names, keyword "
        "arguments no parameter takes, a missing import, unclosed brackets; each fix recorded in the trace); "
        "a repair that repeats tried code, or follows a failed repair, becomes a fresh draft"
    ),
)
class LintFixLoop(MechanicalRepair, LintCheck, RepairLoop):
    """Repair once; when the model echoes or its repair fails, draw a new draft instead of insisting."""

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        tried = {round_.code for round_ in run.rounds[:-1]}
        if previous.kind == "repair" or previous.code in tried:
            return fresh_draft(run)
        return super().follow_up(run, previous)


@register_strategy(
    "sample-lint",
    summary=(
        "best of 1 + K independent drafts: each repaired mechanically and checked by the lint, only clean "
        "ones rendered; stops at the first render without layout findings, else keeps the render with fewest"
    ),
)
class SampleLoop(MechanicalRepair, LintCheck, LayoutRepairLoop):
    """Resample instead of repairing; the lint is the free verifier and the layout check the judge."""

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        return fresh_draft(run)
