"""Rewrite the README's tables of strategies, models and metrics from their registries."""

from __future__ import annotations

from pathlib import Path

from manimgen.cli.choices import with_tables

README = Path(__file__).resolve().parent.parent / "README.md"

if __name__ == "__main__":
    README.write_text(with_tables(README.read_text(encoding="utf-8")), encoding="utf-8")
