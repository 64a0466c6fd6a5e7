"""Project settings: the defaults of the SPEC, tolerant reading of stored JSON, strict values."""

from __future__ import annotations

import json
from zoneinfo import ZoneInfo

import pytest

from annotation.settings import ProjectSettings, SettingsError
from annotation.timeaxis import DEFAULT_BASE


def test_defaults_match_the_spec():
    s = ProjectSettings()
    assert s.annotators_per_sample == 2          # section 5: double annotation
    assert s.daily_quota == 70                   # section 5: daily quota
    assert s.qualify_icc_min == 0.90             # section 5: qualification thresholds
    assert s.qualify_jaccard_min == 0.75
    assert s.qualify_pk_max == 0.15
    assert s.warmup_size == 50                   # section 5: warm-up set
    assert s.flag_pk_max == 0.2                  # section 5: automatic flags
    assert s.flag_sigma == 2.0
    # while σ is thin (section 14): ξ 12 ≈ ×3.1 in time like the W1 flag, ω 15 (W1 ≈ 12), α 10
    assert (s.flag_xi_max, s.flag_omega_max, s.flag_alpha_max) == (12.0, 15.0, 10.0)
    assert s.deviation_max == {"xi": 12.0, "omega": 15.0, "alpha": 10.0}
    assert s.review_rate == 0.10                 # section 5: daily review sample
    assert s.dedup_threshold == 0.7              # section 7: near-duplicates
    assert s.log_base == DEFAULT_BASE == 1.1     # section 4: log axis base
    assert s.quota_timezone == "UTC"
    assert s.timezone == ZoneInfo("UTC")


def test_to_dict_from_dict_round_trip_through_json():
    s = ProjectSettings(annotators_per_sample=3, daily_quota=40, quota_timezone="Europe/Berlin",
                        flag_sigma=2.5, guidelines_version="2.1")
    stored = json.loads(json.dumps(s.to_dict()))
    assert ProjectSettings.from_dict(stored) == s
    assert s.timezone == ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize("data", [None, {}])
def test_from_dict_of_nothing_gives_defaults(data):
    assert ProjectSettings.from_dict(data) == ProjectSettings()


def test_from_dict_ignores_unknown_keys_and_fills_missing_ones():
    s = ProjectSettings.from_dict({"daily_quota": 25, "retired_setting": True, "colour": "red"})
    assert s.daily_quota == 25
    assert s == ProjectSettings(daily_quota=25)


def test_from_dict_treats_null_as_default():
    assert ProjectSettings.from_dict({"daily_quota": None, "flag_sigma": None}) == ProjectSettings()


def test_from_dict_coerces_numbers_to_their_type():
    s = ProjectSettings.from_dict({"daily_quota": "30", "flag_pk_max": "0.25", "log_base": 10,
                                   "annotators_per_sample": 3.0})
    assert s.daily_quota == 30 and type(s.daily_quota) is int
    assert s.flag_pk_max == 0.25 and type(s.flag_pk_max) is float
    assert s.log_base == 10.0 and type(s.log_base) is float
    assert s.annotators_per_sample == 3 and type(s.annotators_per_sample) is int


@pytest.mark.parametrize("data", [
    {"daily_quota": "many"},
    {"daily_quota": "7.5"},
    {"annotators_per_sample": [2]},
    {"flag_sigma": "two"},
    {"flag_pk_max": {}},
])
def test_from_dict_uncoercible_values_raise_settings_error(data):
    with pytest.raises(SettingsError, match=r"setting '\w+' must be (a number|a whole number)"):
        ProjectSettings.from_dict(data)


@pytest.mark.parametrize("data, message", [
    ({"daily_quota": 2.9}, "whole number"),
    ({"annotators_per_sample": True}, "a number"),
    ({"log_base": float("inf")}, "finite"),
    ({"flag_sigma": float("nan")}, "finite"),
    ({"quota_timezone": 5}, "text"),
])
def test_from_dict_refuses_fractions_for_counts_and_non_finite_numbers(data, message):
    with pytest.raises(SettingsError, match=message):
        ProjectSettings.from_dict(data)


@pytest.mark.parametrize("changes", [
    {"annotators_per_sample": 0},
    {"annotators_per_sample": 11},
    {"daily_quota": 0},
    {"daily_quota": -5},
    {"daily_quota": 10_001},
    {"log_base": 1.0},
    {"log_base": 0.5},
    {"log_base": float("nan")},
    {"guidelines_version": ""},
    {"guidelines_version": "   "},
    {"qualify_icc_min": 1.1},
    {"qualify_jaccard_min": -0.1},
    {"qualify_pk_max": 2},
    {"warmup_size": -1},
    {"warmup_size": 10_001},
    {"flag_pk_max": 1.01},
    {"flag_sigma": 0},
    {"flag_sigma": -2},
    {"flag_sigma": float("nan")},
    {"flag_xi_max": 0},
    {"flag_xi_max": 401},
    {"flag_omega_max": 0.05},
    {"flag_omega_max": 201},
    {"flag_alpha_max": -1},
    {"flag_alpha_max": 41},
    {"flag_alpha_max": float("nan")},
    {"review_rate": 1.5},
    {"review_rate": -0.01},
    {"dedup_threshold": 0},
    {"dedup_threshold": 1.2},
    {"dedup_threshold": float("nan")},
    {"flag_w1_max": 0.4},
    {"flag_w1_max": 201},
    {"consistency_similarity_min": 0.49},
    {"consistency_similarity_min": 1.01},
    {"gold_check_share": 0.51},
    {"gold_check_share": -0.1},
    {"gold_check_window": 0},
    {"gold_check_window": 1001},
    {"gold_check_min_pass": 1.1},
])
def test_invalid_values_raise(changes):
    with pytest.raises(SettingsError):
        ProjectSettings(**changes)
    with pytest.raises(SettingsError):
        ProjectSettings.from_dict(changes)
    with pytest.raises(SettingsError):
        ProjectSettings().updated(**changes)


@pytest.mark.parametrize("changes", [
    {"annotators_per_sample": 1}, {"annotators_per_sample": 10}, {"daily_quota": 1},
    {"daily_quota": 10_000}, {"log_base": 10.0}, {"qualify_icc_min": 0}, {"qualify_icc_min": 1},
    {"review_rate": 0}, {"review_rate": 1}, {"dedup_threshold": 1}, {"warmup_size": 0},
    {"flag_xi_max": 0.1}, {"flag_xi_max": 400}, {"flag_omega_max": 0.1}, {"flag_omega_max": 200},
    {"flag_alpha_max": 0.1}, {"flag_alpha_max": 40},
])
def test_boundary_values_are_allowed(changes):
    s = ProjectSettings(**changes)
    for k, v in changes.items():
        assert getattr(s, k) == v


@pytest.mark.parametrize("name, message", [
    ("flag_xi_max", "the fixed ξ flag must be between 0.1 and 400 log-time units"),
    ("flag_omega_max", "the fixed ω flag must be between 0.1 and 200 log-time units"),
    ("flag_alpha_max", "the fixed α flag must be between 0.1 and 40"),
])
def test_a_fixed_deviation_threshold_out_of_range_says_which(name, message):
    with pytest.raises(SettingsError, match=f"^{message}$"):
        ProjectSettings(**{name: 0.0})


def test_stored_settings_without_the_fixed_thresholds_take_the_defaults():
    s = ProjectSettings.from_dict({"flag_sigma": 2.0, "flag_w1_max": 12.0})
    assert (s.flag_xi_max, s.flag_omega_max, s.flag_alpha_max) == (12.0, 15.0, 10.0)
    assert ProjectSettings.from_dict({"flag_alpha_max": "4.5"}).flag_alpha_max == 4.5


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "utc+2", "", "../../etc/passwd", "Europe/"])
def test_unknown_time_zone(zone):
    with pytest.raises(SettingsError, match="time zone"):
        ProjectSettings(quota_timezone=zone)
    with pytest.raises(SettingsError, match="time zone"):
        ProjectSettings.from_dict({"quota_timezone": zone})


@pytest.mark.parametrize("zone", ["Europe/London", "America/New_York", "Asia/Kolkata", "UTC"])
def test_known_time_zones(zone):
    assert ProjectSettings(quota_timezone=zone).timezone == ZoneInfo(zone)


def test_settings_are_immutable_and_updated_returns_a_copy():
    s = ProjectSettings()
    t = s.updated(daily_quota=10)
    assert (s.daily_quota, t.daily_quota) == (70, 10)
    with pytest.raises(AttributeError):
        s.daily_quota = 5  # type: ignore[misc]


def test_confirm_submit_is_off_by_default_and_round_trips():
    assert ProjectSettings().confirm_submit is False  # issue 10: one key submits
    on = ProjectSettings(confirm_submit=True)
    stored = json.loads(json.dumps(on.to_dict()))
    assert stored["confirm_submit"] is True
    assert ProjectSettings.from_dict(stored) == on


@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), (1, True), (0, False), (1.0, True),
    ("true", True), ("False", False), (" yes ", True), ("no", False), ("on", True), ("off", False),
    ("1", True), ("0", False),
])
def test_from_dict_reads_a_yes_no_setting(value, expected):
    s = ProjectSettings.from_dict({"confirm_submit": value})
    assert s.confirm_submit is expected


@pytest.mark.parametrize("value", ["maybe", "", 2, -1, 0.5, [True], {}, "truee"])
def test_from_dict_refuses_what_is_not_yes_or_no(value):
    # bool("false") is True: a plain bool() would silently turn these into a setting
    with pytest.raises(SettingsError, match="'confirm_submit' must be true or false"):
        ProjectSettings.from_dict({"confirm_submit": value})


@pytest.mark.parametrize("value", [1, "yes", None])
def test_a_yes_no_setting_built_in_code_must_be_a_bool(value):
    with pytest.raises(SettingsError, match="true or false"):
        ProjectSettings(confirm_submit=value)
    with pytest.raises(SettingsError, match="true or false"):
        ProjectSettings().updated(confirm_submit=value)


def test_a_number_setting_still_refuses_a_bool():
    with pytest.raises(SettingsError, match="must be a number"):
        ProjectSettings.from_dict({"daily_quota": True})
