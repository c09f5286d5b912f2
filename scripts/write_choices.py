"""Rewrite the tables of strategies, models and metrics in the README and docs/ from their registries."""

from __future__ import annotations

from pathlib import Path

from manimgen.cli.choices import with_tables

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        page.write_text(with_tables(page.read_text(encoding="utf-8")), encoding="utf-8")
