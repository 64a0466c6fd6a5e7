"""The services' part of each protocol, registered under the protocol's key
(:mod:`annotation.protocols`): the reads that need the database — a sample's facts besides its
text, for settling and review and, narrowed, for annotators, and the gold an export writes. A
service asks :func:`services_of` with the project's settings instead of testing which protocol
it follows; a new protocol adds its module here. This room imports no other service room, so
every room may use it.
"""

from __future__ import annotations

from annotation.services.protocols import pairs, single
from annotation.services.protocols.parts import ProtocolServices
from annotation.settings import ProjectSettings

SERVICES: dict[str, ProtocolServices] = {p.key: p for p in (single.SERVICES, pairs.SERVICES)}


def services_of(settings: ProjectSettings) -> ProtocolServices:
    """The reads of the protocol a project with ``settings`` follows.

    >>> services_of(ProjectSettings(protocol="pairs")).key
    'pairs'
    """
    return SERVICES[settings.protocol]


__all__ = ["ProtocolServices", "SERVICES", "services_of"]
