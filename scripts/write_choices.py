"""Rewrite the tables of strategies, models, metrics and the other choices in the README and docs/ from their
registries: cog runs each page's `[[[cog cog.outl(choices.table("NAME"))]]]` block. `--check` only checks."""

from __future__ import annotations

import sys
from pathlib import Path

from cogapp import Cog

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROLOGUE = "from manimgen.cli import choices"


def cog(*options: str) -> int:
    """cog over every page with the choices module in scope; its exit status (non-zero: a page is out of date)."""
    return Cog().main(["cog", "-p", PROLOGUE, *options, *(str(page) for page in PAGES)])


if __name__ == "__main__":
    sys.exit(cog(*(["--check", "--diff"] if "--check" in sys.argv[1:] else ["-r"])))
