"""A compact rich progress bar for training: one bar, and one printed line per log with the few
numbers worth watching (TRL's own RichProgressCallback redraws a panel of every metric instead)."""

from __future__ import annotations

from typing import Any

from transformers import PrinterCallback, ProgressCallback, TrainerCallback

WATCHED = (
    "loss",
    "eval_loss",
    "reward",
    "manim/text",
    "manim/visual",
    "manim/render_ok",
    "kl",
    "learning_rate",
    "step_time",
)


def log_line(step: int, logs: dict[str, Any]) -> str:
    shown = [f"{key} {logs[key]:.4g}" for key in WATCHED if isinstance(logs.get(key), (int, float))]
    return f"step {step}: " + ", ".join(shown) if shown else ""


class RichProgress(TrainerCallback):
    """Shown on the main process only, so a multi-process launch prints one bar."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._progress: Any = None
        self._task: Any = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn(self.title, markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn()
        )
        self._progress.start()
        self._task = self._progress.add_task(self.title, total=state.max_steps)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=state.global_step)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if self._progress is not None and logs and (line := log_line(state.global_step, logs)):
            self._progress.console.print(line)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def replace_default_progress(trainer: Any, callbacks: Any) -> None:
    """With a RichProgress among `callbacks`, drop the Trainer's tqdm bar and its raw log printer."""
    if any(isinstance(callback, RichProgress) for callback in callbacks):
        trainer.remove_callback(ProgressCallback)
        trainer.remove_callback(PrinterCallback)
