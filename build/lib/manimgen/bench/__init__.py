"""The study: run the grid {models} × {strategies} over a task split, store every sample, report.

`BenchRunner` fills a run directory (`results.sqlite`, `media/`, `config.yaml`);
`manimgen.bench.report.write_report` turns it into `report.md`, `report.html` and `plots/`.
"""

from manimgen.bench.config import ConfigError, ModelEntry, RunConfig, StrategyEntry, load_config
from manimgen.bench.runner import BenchRunner, BenchStopped, RunSummary, plan
from manimgen.bench.store import Sample, Store, StoreError

__all__ = [
    "BenchRunner",
    "BenchStopped",
    "ConfigError",
    "ModelEntry",
    "RunConfig",
    "RunSummary",
    "Sample",
    "Store",
    "StoreError",
    "StrategyEntry",
    "load_config",
    "plan",
]
