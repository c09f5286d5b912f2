"""`sample-plan` and `sample-check`: the search aimed at what the sentence asks, not only at a render that runs.

sample-lint stops at the first render without layout or sentence problems, and that render often
shows another object, a change that never ends, or the wrong range. This strategy reads the
sentence's checklist first (checks/extract.py, or the one a person edited), puts it in every
draft's prompt as the plan, and checks every render against it (checks/verify.py). A render that
fails a requirement is repaired once with the precise failures ("the dot went from 2 to 6, not
to 7"); a repair that fails, or a render that crashes, is followed by a fresh draft. The run stops
when every verifiable requirement holds and the layout is clean, and otherwise ends on the render
that held the most requirements (then the fewest layout and sentence problems, then the earliest).
`sample-check` also shows the model working idioms for what teachers ask most (agent/idioms.py) in
its system prompt, the same text in every call so its evaluated state is reused, and starts from the
scene builder's scene (agent/builder/) when the builder read the whole sentence: checked like any
other round, and followed by model drafts only if it misses something. When the builder read all but
some clause, its scene of the part it read is rendered and checked, and the model is asked to extend
it with the clauses left ("not in the scene yet"), so the model writes only what no block covers.
"""

from __future__ import annotations

from dataclasses import replace

from manimgen.agent.builder import build
from manimgen.agent.feedback_strategies import keep_best_render
from manimgen.agent.judge import sentence_problems
from manimgen.checks.layout import format_layout, layout_findings
from manimgen.agent.prompts import IDIOMS_SYSTEM_PROMPT, SYSTEM_PROMPT, generation_messages, repair_messages
from manimgen.agent.search_strategies import EXAMPLES_PER_DRAFT, SampleLoop, fresh_draft
from manimgen.agent.strategies import AgentConfig, AgentRun, OnRound, RepairLoop, feedback_problem, register_strategy
from manimgen.agent.trace import BUILT, BUILT_PART, Round, Trace
from manimgen.checks import Checklist, Report, Timeline, check, checklist_for, checks_json
from manimgen.checks.coverage import unread
from manimgen.llm.base import LLM, Message
from manimgen.render.result import RenderResult


PLAN_SUMMARY = (
    "sample-lint aimed at the sentence's checklist: the plan (objects, values, changes) in every prompt, each render "
    "checked requirement by requirement, a failed requirement repaired once with what the video showed instead, "
    "else a fresh draft; stops when everything verifiable holds, else keeps the render that held the most"
)
CHECK_SUMMARY = (
    "sample-plan that first builds the scene from tested blocks when they cover the whole sentence (number lines, "
    "plots, formulas, labelled figures, charts, boxes and searches, stacks and queues, trees, vectors, forces, "
    "orbits, shapes that move, change or mirror), or has the "
    "model extend the blocks' scene of the part they read; its prompts show one working scene of the idioms "
    "teachers' sentences need most"
)
CHECK_EXAMPLES_SUMMARY = (
    "sample-check whose model drafts are also shown the two verified scenes (the builder's scenes of development "
    "sentences that held their whole checklist, and scenes written for development sentences) whose sentences are "
    "nearest the one asked"
)
DEFAULT_STRATEGY = "sample-check-examples"
"""What `generate`, the page and MCP use unless told otherwise: the best measured (docs/study.md). On the development
sentences the builder reads nothing of it showed or partly showed what was asked for 13 of 22 against sample-check's
5; on the frozen evaluation sentences, labelled by looking, it shows what was asked for 46.9% of them and at least
part of it for 73.4% (sample-check 46.9% and 67.2%, sample-lint 9.4% and 42.2%), with RSR 95.3%."""
MISSED = "The scene rendered, but the video does not show everything that was asked:"


@register_strategy(
    "sample-plan",
    summary=PLAN_SUMMARY,
    words="turns your sentence into a checklist and keeps the scene that meets most of it",
)
class CheckedSampleLoop(SampleLoop):
    """Drafts that carry the plan, renders checked against it, repairs that name the failed requirements."""

    system = SYSTEM_PROMPT
    checklist: Checklist
    reports: dict[int, Report]

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace:
        self.checklist = checklist_for(description, config.checklist)
        self.reports = {}
        trace = keep_best_render(RepairLoop.run(self, llm, description, config, on_round), self._rank)
        final = trace.final_render
        report = check(self.checklist, Timeline.from_geometry(final.geometry if final is not None and final.ok else None))
        return replace(trace, checks=checks_json(self.checklist, report))

    def draft_messages(self, run: AgentRun) -> list[Message]:
        plan = self.checklist.render_text(looks=False) or None
        return generation_messages(run.description, self.examples(run), plan=plan, system=self.system, frame=run.frame)

    def examples(self, run: AgentRun) -> list[tuple[str, str]]:
        """(description, code) of working scenes shown before the sentence; none here."""
        return []

    def repair_prompt(self, run: AgentRun, previous: Round) -> list[Message]:
        return repair_messages(
            run.description, previous.code or previous.completion, previous.feedback, problem=feedback_problem(previous), system=self.system
        )

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        report = check(self.checklist, Timeline.from_geometry(result.geometry))
        self.reports[run.rounds[-1].index] = report
        findings = layout_findings(result.geometry)
        problems = sentence_problems(run.description, run.rounds[-1].code or "", result)
        missing = [item.text for item in unread(self.checklist)] if run.rounds[-1].kind == BUILT_PART else []
        if not report.failures() and not findings and not problems and not missing:
            return None
        lines = [MISSED] if report.failures() or missing else []
        lines += [f"- {verdict.requirement.phrase}: {verdict.seen}" for verdict in report.failures()]
        lines += [f"- {text}: not in the scene yet; add it and keep everything the scene already shows" for text in missing]
        lines += [f"- {problem}" for problem in problems]
        if findings:
            lines.append(format_layout(findings))
        return "\n".join(lines)

    def follow_up(self, run: AgentRun, previous: Round) -> Round:
        """A repair of a render that only missed requirements or its layout; a fresh draft after anything else."""
        rendered = previous.render is not None and previous.render.ok
        if rendered and previous.kind not in ("repair", BUILT):
            return run.ask("repair", self.repair_prompt(run, previous))
        return fresh_draft(run, self.draft_messages(run))

    def _rank(self, round_: Round) -> tuple[int, int, int, int]:
        """Fewer failed requirements first, then fewer layout and sentence problems; among equals a scene that
        tried the whole sentence before the builder's partial one, then the earliest."""
        report = self.reports.get(round_.index)
        failed = len(report.failures()) if report is not None else len(self.checklist.requirements)
        result = round_.render
        assert result is not None
        others = len(layout_findings(result.geometry)) + len(sentence_problems(self.checklist.sentence, round_.code or "", result))
        return failed, others, round_.kind == BUILT_PART, round_.index


@register_strategy(
    "sample-check",
    summary=CHECK_SUMMARY,
    words="builds the scene from tested pieces where it can, checks the video against your sentence and tries again when it misses",
)
class IdiomCheckedSampleLoop(CheckedSampleLoop):
    """sample-plan with the idioms scene in the system prompt and the scene builder's scene first."""

    system = IDIOMS_SYSTEM_PROMPT

    def first(self, run: AgentRun) -> Round:
        """The builder's scene when it read the whole sentence; its scene of the part it read, for the model to
        extend, when only some clause was left; else the model's draft."""
        built = build(self.checklist)
        if built is not None:
            return run.offer(BUILT, built)
        partial = build(self.checklist, partial=True)
        return run.offer(BUILT_PART, partial) if partial is not None else super().first(run)


@register_strategy(
    "sample-check-examples",
    summary=CHECK_EXAMPLES_SUMMARY,
    words="builds the scene from tested pieces where it can, checks the video against your sentence and tries again when it misses, with two checked scenes like yours as examples",
)
class ExampleCheckedSampleLoop(IdiomCheckedSampleLoop):
    """sample-check with retrieved verified scenes in every draft's prompt: the lever of showing a small model
    scenes that hold their checklists for sentences like the one asked."""

    def examples(self, run: AgentRun) -> list[tuple[str, str]]:
        """The nearest verified scenes (none on the lean install: `nearest_or_none`)."""
        from manimgen.agent.examples import nearest_or_none, verified_bank  # the embedder loads only when this strategy runs

        return [(example.description, example.code) for example in nearest_or_none(verified_bank, run.description, EXAMPLES_PER_DRAFT)]
