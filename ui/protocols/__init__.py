"""The page's part of each protocol, registered under the protocol's key: what the Review page
shows and asks of a case, and what the workbench's surface carries besides the steps the domain
declares (:mod:`annotation.protocols`). A page asks :func:`views_of` with the project's settings
instead of testing which protocol it follows; a new protocol adds its module here.
"""

from __future__ import annotations

from annotation.settings import ProjectSettings
from ui.protocols import pairs, single
from ui.protocols.views import ProtocolViews

VIEWS: dict[str, ProtocolViews] = {v.key: v for v in (single.VIEWS, pairs.VIEWS)}


def views_of(settings: ProjectSettings) -> ProtocolViews:
    """The page parts of the protocol a project with ``settings`` follows.

    >>> views_of(ProjectSettings()).layout_caption, bool(views_of(ProjectSettings(protocol="pairs")).layout_caption)
    ('', True)
    """
    return VIEWS[settings.protocol]


__all__ = ["ProtocolViews", "VIEWS", "views_of"]
