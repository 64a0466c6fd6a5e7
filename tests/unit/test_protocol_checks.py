"""A protocol is a plug-in: code outside the protocol rooms asks the project's protocol for what
it declares (``annotation.protocols``) instead of testing which protocol it is.

Counts the protocol checks — a test of a protocol's identity or of the pairs protocol's own
facts — in the code outside the rooms where a protocol's parts are registered, and fails above
:data:`MAX_CHECKS`, listing every offending line. A new protocol is then one registration per
layer, not a branch in every page and service.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: the folders whose code is counted
COUNTED = ("annotation", "cli", "screens", "ui")
#: the protocol rooms: where a protocol's parts live, per layer (checked freely)
PROTOCOL_ROOMS = ("annotation/protocols/", "annotation/pairs/", "annotation/services/protocols/", "ui/protocols/")
#: what a protocol check looks like
CHECK = re.compile(
    r"has_follow_up|is_pairs|case\.pair\b|rules\.pair\b|pairs_export|protocol\s*[!=]=\s*[\"']"
    r"|protocol\.key\s*[!=]=|\.key\s*[!=]=\s*[\"'](?:pairs|single)[\"']|CONTEXT_PAIRS|SINGLE_TEXTS"
    r"|[\"']tvcp[\"']\s*(?:in|==|!=)|(?:==|!=)\s*[\"']tvcp[\"']|TVCP_CONFIG\s+(?:not\s+)?in\b")
#: the most protocol checks the counted code may hold
MAX_CHECKS = 5


def protocol_checks(root: Path = REPO_ROOT) -> list[str]:
    """Every protocol check outside the protocol rooms, as ``path:line: text``."""
    found = []
    for folder in COUNTED:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(PROTOCOL_ROOMS):
                continue
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if CHECK.search(code):
                    found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_the_pattern_sees_a_check() -> None:
    for line in ('if protocol_of(s).has_follow_up:', 'if record.is_pairs:', 'if case.pair is not None:',
                 'if protocol.key == "pairs":', 'pairs_export = x', 'if settings.protocol == "pairs":',
                 'if TVCP_CONFIG in configs:', 'if "tvcp" in self.export_configs:'):
        assert CHECK.search(line), line
    for line in ('protocol = protocol_of(settings)', 'view = review_view(case)', 'layout.spreadsheet'):
        assert not CHECK.search(line), line


def test_protocol_checks_stay_in_the_protocol_rooms() -> None:
    found = protocol_checks()
    assert len(found) <= MAX_CHECKS, (
        f"{len(found)} protocol checks outside the protocol rooms (at most {MAX_CHECKS}); ask the "
        "project's protocol (annotation.protocols.protocol_of) or its per-layer registration instead:\n"
        + "\n".join(found))
