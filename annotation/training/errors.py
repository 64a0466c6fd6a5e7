"""Errors of the training baselines: one clear message per thing a caller can get wrong.

Every input problem is a :class:`TrainingInputError`, a :class:`ValueError`, so the CLI and the
job runner can catch one class and print its message. Cancellation is not an input error: it
is :class:`TrainingCancelled`, raised when the caller's ``should_stop()`` says so.
"""

from __future__ import annotations


class TrainingInputError(ValueError):
    """Base class: the export, the configuration or the run folder cannot be used."""


class ExportNotFoundError(TrainingInputError):
    """The export folder is missing or is not a Chronocept export."""


class ExportFormatError(TrainingInputError):
    """A file of the export is malformed (the message names the file and the line)."""


class NotEnoughSamplesError(TrainingInputError):
    """A split of the chosen benchmark has too few samples to train or evaluate on."""


class UnknownModelError(TrainingInputError):
    """A model name that is not one of the baselines."""


class BadGridError(TrainingInputError):
    """A hyper-parameter grid with an unknown parameter, an empty list or a bad value."""


class BadConfigError(TrainingInputError):
    """Any other invalid training setting (ablation, encoder, epochs, JSON of a config...)."""


class DeviceUnavailableError(TrainingInputError):
    """The device asked for (``"cuda"``) is not available on this machine."""


class RunFolderError(TrainingInputError):
    """The run folder already holds a run, or holds no readable run when one is loaded."""


class TrainingCancelled(Exception):
    """Raised between steps when the caller's ``should_stop()`` returned true.

    The run folder is left with ``metrics.json`` whose ``status`` is ``"cancelled"`` and the
    rows finished before the cancellation.
    """
