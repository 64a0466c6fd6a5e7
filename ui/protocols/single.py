"""The single-texts protocol's page parts: nothing beyond the defaults."""

from __future__ import annotations

from ui.protocols.views import ProtocolViews

VIEWS = ProtocolViews("single")

__all__ = ["VIEWS"]
