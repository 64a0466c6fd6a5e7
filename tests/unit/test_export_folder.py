"""Export folder names: the default, a repeat's, and which names a lead may type."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from annotation.export_folder import default_folder_name, is_folder_name, repeat_folder_name

WHEN = datetime(2026, 5, 1, 9, 30, 5, tzinfo=timezone.utc)


def test_the_default_is_a_slug_of_the_project_and_the_time():
    assert default_folder_name("My Project", WHEN) == "my-project-20260501-093005"
    assert default_folder_name("---", WHEN) == "project-20260501-093005"
    assert default_folder_name("x" * 80, WHEN) == "x" * 60 + "-20260501-093005"
    assert is_folder_name(default_folder_name("Ünïcode ✓ name", WHEN))


def test_a_repeat_names_the_original_folder():
    assert repeat_folder_name("/srv/exports/demo-1", WHEN) == "demo-1-repeat-20260501-093005"


@pytest.mark.parametrize("name, ok", [("demo", True), (" demo-1.2_b ", True), ("a" * 100, True),
                                      ("a" * 101, False), ("", False), (".hidden", False),
                                      ("../up", False), ("a/b", False), ("-x", False), ("é", False)])
def test_which_names_a_lead_may_choose(name, ok):
    assert is_folder_name(name) is ok
