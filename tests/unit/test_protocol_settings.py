"""What each project protocol names of its own — its samples' noun, its own settings — is real:
the settings exist with their defaults, and only the pairs protocol has any."""

from __future__ import annotations

from dataclasses import fields

from annotation.protocols import CONTEXT_PAIRS, PROTOCOLS, SINGLE_TEXTS
from annotation.settings import ProjectSettings


def test_own_settings_are_project_settings():
    names = {f.name for f in fields(ProjectSettings)}
    for protocol in PROTOCOLS.values():
        assert set(protocol.own_settings) <= names, protocol.key
    assert SINGLE_TEXTS.own_settings == ()
    assert CONTEXT_PAIRS.own_settings == ("change_factor", "segment_targets")
    assert (ProjectSettings().change_factor, ProjectSettings().segment_targets) == (1.5, False)


def test_each_protocol_names_its_samples():
    assert [p.sample_noun for p in PROTOCOLS.values()] == ["text", "pair"]
