"""What a scene shows against what was asked: the sentence's checklist, the render's timeline, the checker."""

from manimgen.checks.extract import extract
from manimgen.checks.requirements import Checklist, ChecklistError, Requirement, load_checklist
from manimgen.checks.scene import check_code, checklist_for, checks_json, report_json, summary
from manimgen.checks.timeline import Timeline
from manimgen.checks.verify import CHECKS, Report, Verdict, check

__all__ = [
    "CHECKS", "Checklist", "ChecklistError", "Report", "Requirement", "Timeline", "Verdict", "check", "check_code", "checklist_for", "checks_json",
    "extract", "load_checklist", "report_json", "summary",
]  # fmt: skip
