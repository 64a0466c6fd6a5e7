"""The project protocols: what a project's samples are and what annotating one means.

A protocol is one registration, a module of its own here (:mod:`~annotation.protocols.single`,
:mod:`~annotation.protocols.pairs`) declaring a :class:`~annotation.protocols.protocol.ProjectProtocol`;
its domain lives in its own package (:mod:`annotation.pairs`). The parts that need the database
or the page are registered per layer under the same key (:mod:`annotation.services.protocols`,
:mod:`ui.protocols`). Every place that differs asks the project's protocol here
(:func:`protocol_of`) for what it declares, instead of testing which protocol it is.
"""

from __future__ import annotations

from collections.abc import Iterable

from annotation.protocols.pairs import CONTEXT_PAIRS
from annotation.protocols.protocol import ExportLayout, ProjectProtocol, SettleRule, registry
from annotation.protocols.single import SINGLE_TEXTS
from annotation.settings import ProjectSettings

PROTOCOLS: dict[str, ProjectProtocol] = registry((SINGLE_TEXTS, CONTEXT_PAIRS))


def protocol_of(settings: ProjectSettings) -> ProjectProtocol:
    """The protocol a project with ``settings`` follows.

    >>> protocol_of(ProjectSettings()).name, protocol_of(ProjectSettings(protocol="pairs")).steps[-1]
    ('single texts', 'Given the follow-up')
    """
    return PROTOCOLS[settings.protocol]


def layout_of_export(configs: Iterable[str]) -> ExportLayout:
    """The layout an export with these configurations was written in: the registered layout
    whose own configuration it holds, else the default (per benchmark).

    >>> layout_of_export(["tvcp", "annotations"]).noun, layout_of_export(["benchmark_1"]).config
    ('pair', 'default')
    """
    held = set(configs)
    for protocol in PROTOCOLS.values():
        if protocol.export.config in held:
            return protocol.export
    return SINGLE_TEXTS.export


__all__ = ["CONTEXT_PAIRS", "ExportLayout", "PROTOCOLS", "ProjectProtocol", "SINGLE_TEXTS", "SettleRule",
           "layout_of_export", "protocol_of"]
