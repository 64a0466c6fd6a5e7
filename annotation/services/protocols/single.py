"""The single-texts protocol's reads: a sample is its text; an export writes the gold as read."""

from __future__ import annotations

from annotation.services.protocols.parts import ProtocolServices

SERVICES = ProtocolServices("single")

__all__ = ["SERVICES"]
