"""The axis vocabulary and the guidelines files."""

import pytest

from annotation.axes import AXES, AXIS_NAMES, EXPORT_KEYS, UnknownAxisError, axis_by_name
from annotation.guidelines import available_versions, current_guidelines, load_guidelines


def test_export_keys_in_the_release_order():
    assert EXPORT_KEYS == (
        "main_outcome_axis", "static_axis", "generic_axis", "hypothetical_axis",
        "negation_axis", "intention_axis", "opinion_axis", "recurrent_axis",
    )
    assert len(set(AXIS_NAMES)) == 8 and len({a.color for a in AXES}) == 8


def test_axis_lookup_by_name_and_export_key():
    assert axis_by_name("static").export_key == "static_axis"
    assert axis_by_name("generic_axis").name == "generic"
    with pytest.raises(UnknownAxisError, match="expected one of"):
        axis_by_name("temporal")


def test_guidelines_current_version_covers_every_axis_and_the_shortcuts():
    assert "1.0" in available_versions()
    guide = current_guidelines()
    assert guide.version == available_versions()[-1]
    for axis in AXES:
        assert axis.label in guide.text and axis.key_question in guide.text
    assert "Generic vs Static" in guide.text
    assert "Alt+Enter" in guide.text
    with pytest.raises(FileNotFoundError):
        load_guidelines("0.0")


def test_current_guidelines_explain_the_curve_and_the_points_with_the_codes_numbers():
    from annotation.curves import MAX_HEIGHT, PASS_TOLERANCE, residual_message

    guide = current_guidelines()
    assert "1.1" in available_versions() and load_guidelines("1.0").text != guide.text
    for heading in ("### How the curve relates to your points", "### Reading the curve back",
                    "### Entering durations instead of clicking"):
        assert heading in guide.text
    # the numbers and the message the guidelines quote are the code's
    assert MAX_HEIGHT == 1.0 and "never go above 100 %" in guide.text
    assert f"within {PASS_TOLERANCE:.2f} of every point" in guide.text
    message = residual_message((0.07, 0.13, -0.08))
    quoted = message[: message.index("point 3 is 0.08 below the curve") + 31]
    assert quoted in " ".join(guide.text.split())
    assert "proportional validity curve" in guide.text
