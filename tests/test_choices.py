"""Help texts and the documentation's tables come from the registries, so a new strategy shows up everywhere."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from manimgen.agent import STRATEGIES, Vanilla
from manimgen.cli import app
from manimgen.cli.choices import strategies_table, strategy_help
from manimgen.llm.models import MODELS
from manimgen.scoring import METRIC_FIELDS

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "write_choices.py"
_spec = importlib.util.spec_from_file_location("write_choices", SCRIPT)
assert _spec is not None and _spec.loader is not None
write_choices = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(write_choices)

WIDE = {"COLUMNS": "400"}


def test_documentation_tables_match_the_registries(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_choices.cog("--check") == 0, f"run `.venv/bin/python scripts/write_choices.py` after changing a registry:\n{capsys.readouterr().out}"
    texts = {page.name: page.read_text(encoding="utf-8") for page in write_choices.PAGES}
    for page, names in (("generation.md", STRATEGIES), ("models.md", MODELS), ("metrics.md", METRIC_FIELDS)):
        assert all(f"| `{name}` |" in texts[page] for name in names), page


def test_a_registered_strategy_reaches_help_table_and_cli(throwaway: Callable[..., None]) -> None:
    throwaway(STRATEGIES, "best-of-four", Vanilla, "four drafts, the lint picks")
    assert "best-of-four" in strategy_help()
    assert "| `best-of-four` | four drafts, the lint picks |" in strategies_table()
    listed = CliRunner().invoke(app, ["strategies"], env=WIDE)
    assert listed.exit_code == 0 and "best-of-four" in listed.output and "four drafts, the lint picks" in listed.output


def test_generate_help_names_every_strategy_and_model() -> None:
    shown = CliRunner().invoke(app, ["generate", "--help"], env=WIDE)
    assert shown.exit_code == 0
    text = " ".join(shown.output.split())
    assert all(name in text for name in [*STRATEGIES, *MODELS, "py:MODULE:FUNCTION", "NAME+ADAPTER"])


def test_models_command_lists_the_registry() -> None:
    listed = CliRunner().invoke(app, ["models"], env=WIDE)
    assert listed.exit_code == 0 and all(name in listed.output for name in MODELS)


def test_a_stale_table_fails_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text('<!-- [[[cog cog.outl(choices.table("formats"))]]] -->\n| an old table |\n<!-- [[[end]]] -->\n')
    monkeypatch.setattr(write_choices, "PAGES", [page])
    assert write_choices.cog("--check") != 0
    assert write_choices.cog("-r") == 0 and write_choices.cog("--check") == 0
    assert "| `gif` |" in page.read_text()
