"""Named choices of one kind (strategies, providers, models, metrics, presets, formats, qualities) in one shape.

Each kind is a `Registry`: a read-only mapping from name to item, filled by `add` or the `register`
decorator, that keeps a one-line summary per name for help texts and docs, and refuses an unknown
name with the same sentence everywhere: "unknown strategy 'x'; choose one of: a, b". Imports
nothing of the package, so any layer can hold one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownChoice(ValueError):
    """A name no item of the registry has; the message lists the names there are."""


class Registry(Mapping[str, T], Generic[T]):
    """Items of one kind by name, in the order they were added."""

    def __init__(self, kind: str, items: Iterable[tuple[str, T, str]] = ()) -> None:
        """`kind` names the items in messages ("strategy"); `items` are (name, item, summary) to start with."""
        self.kind = kind
        self._items: dict[str, T] = {}
        self._summaries: dict[str, str] = {}
        for name, item, summary in items:
            self.add(name, item, summary)

    def add(self, name: str, item: T, summary: str = "") -> T:
        """Add `item` as `name`; a name already taken by another item is refused (the same item again is kept)."""
        known = self._items.get(name)
        if known is not None and not _same(known, item):
            raise ValueError(f"{self.kind} name {name!r} is already taken")
        self._items[name] = item
        self._summaries[name] = summary
        return item

    def register(self, name: str, summary: str = "") -> Callable[[T], T]:
        """Decorator form of `add`, for classes and functions."""
        return lambda item: self.add(name, item, summary)

    def remove(self, name: str) -> None:
        """Take `name` out again (a plugin unloaded, a test's throwaway item)."""
        self._items.pop(name, None)
        self._summaries.pop(name, None)

    def pick(self, name: str) -> T:
        """The item named `name`, or `UnknownChoice` naming the choices."""
        try:
            return self._items[name]
        except KeyError:
            raise UnknownChoice(f"unknown {self.kind} {name!r}; choose one of: {', '.join(self._items)}") from None

    def summaries(self) -> dict[str, str]:
        """Every name with what it is, in order: the help texts' and docs' tables."""
        return dict(self._summaries)

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _same(known: object, item: object) -> bool:
    """The same item, also when a module is imported twice (a class or function of the same qualified name)."""
    return known is item or (callable(known) and getattr(known, "__qualname__", None) == getattr(item, "__qualname__", object()))
