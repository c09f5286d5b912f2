"""Errors raised while reading task sets."""


class DatasetError(ValueError):
    """A task set could not be read; the message names the row, the field and the fix."""
