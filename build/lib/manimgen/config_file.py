"""One loader for every YAML config (study runs, SFT and GRPO runs): a file's mapping, validated by
a pydantic model, with each problem reported as one line that names the field and the fix.

Command lines print these messages as they are, so a bad file never ends in a traceback.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator

ModelT = TypeVar("ModelT", bound=BaseModel)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the field and the fix."""


def read_mapping(path: str | Path, model: type[BaseModel]) -> dict[str, Any]:
    """The file's top-level mapping; an empty file is an empty mapping."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}; give an existing YAML file") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path} is not valid YAML ({_yaml_problem(error)}); fix the file") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        required = [f"{name}:" for name, field in model.model_fields.items() if field.is_required()]
        example = f" ({', '.join([*required, '...'])})" if required else ""
        raise ConfigError(f"{path} must hold a mapping of option: value{example}, got {type(data).__name__}")
    return data


def validate(model: type[ModelT], data: Mapping[str, Any], source: str, hint: str = "") -> ModelT:
    """`data` as a `model`; the first problem becomes a ConfigError. `hint` follows an unknown key's message."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{source}: {_describe(model, error, hint)}") from None


def load(
    model: type[ModelT], path: str | Path | None, overrides: Mapping[str, Any] | None = None, hint: str = ""
) -> ModelT:
    """Defaults, then the file's keys (no file: defaults only), then the `overrides` that are not None."""
    data = read_mapping(path, model) if path else {}
    return validate(model, {**data, **given(overrides)}, str(path) if path else "options", hint)


def given(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options actually set: command-line flags left out arrive as None."""
    return {key: value for key, value in (overrides or {}).items() if value is not None}


def one_of(value: str, allowed: Iterable[str]) -> str:
    """A field's value checked against its choices, naming them when it is none of them."""
    known = list(allowed)
    if value not in known:
        raise ValueError(f"must be one of {', '.join(known)}, got {value!r}")
    return value


def choices(**allowed: Callable[[], Iterable[str]]) -> Any:
    """A model's validator that checks each named field (None passes) against its registry's names,
    read when validating so that anything registered later counts: `_known = choices(dtw=lambda: DTW_METHODS)`."""

    def check(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
        return value if value is None else one_of(value, allowed[info.field_name]())

    return field_validator(*allowed)(check)


def _describe(model: type[BaseModel], error: ValidationError, hint: str) -> str:
    first = error.errors()[0]
    location = first["loc"]
    where = ".".join(str(part) for part in location) or "(top level)"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        known = _known_keys(model, location[:-1])
        message += f"; known: {', '.join(sorted(known))}" if known else ""
        message += f" ({hint})" if hint else ""
    return f"{where}: {_one_line(message)}"


def _known_keys(model: type[BaseModel], parents: tuple[int | str, ...]) -> list[str]:
    """The fields of the (nested) model an unknown key was found in; none where that is not a model."""
    current: type[BaseModel] | None = model
    for part in parents:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if current else None
        current = _model_in(field.annotation) if field else None
    return list(current.model_fields) if current else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model inside an annotation such as `list[Entry]` or `Entry | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def _yaml_problem(error: yaml.YAMLError) -> str:
    """PyYAML's own message spans lines and quotes the text; its problem and position suffice."""
    if not isinstance(error, yaml.MarkedYAMLError) or error.problem_mark is None:
        return _one_line(error)
    mark = error.problem_mark
    return f"{error.problem or error.context} at line {mark.line + 1}, column {mark.column + 1}"


def _one_line(error: object) -> str:
    return " ".join(str(error).split())
