"""`manimgen strategies` and `manimgen models`: what can be chosen, read from the registries."""

from __future__ import annotations

from rich.table import Table

from manimgen.agent import STRATEGIES
from manimgen.cli.app import app, console
from manimgen.llm import MODELS, PROVIDERS


@app.command()
def strategies() -> None:
    """List the generation strategies and what each one does."""
    table = Table("strategy", "what happens")
    for name, summary in STRATEGIES.summaries().items():
        table.add_row(name, summary)
    console.print(table)


@app.command()
def models() -> None:
    """List the embedded models and the spec strings that name any other model."""
    embedded = Table("name", "model", "weights", title="embedded models")
    for name, model in MODELS.items():
        embedded.add_row(name, model.description, model.weights)
    specs = Table("spec", "what it loads", title="any other model", caption="NAME+ADAPTER runs a LoRA adapter on an embedded model")
    for provider in PROVIDERS.values():
        specs.add_row(provider.syntax, provider.summary)
    console.print(embedded, specs)
