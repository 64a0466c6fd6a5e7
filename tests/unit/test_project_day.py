"""The project's calendar day: one rule for quotas, the review sample, the dashboard, agreement."""

from __future__ import annotations

from datetime import date, datetime, timezone

from annotation.project_day import day_bounds, day_start, local_day, local_today
from annotation.settings import ProjectSettings

TOKYO = ProjectSettings(quota_timezone="Asia/Tokyo")
NEW_YORK = ProjectSettings(quota_timezone="America/New_York")


def test_the_local_day_follows_the_project_zone():
    moment = datetime(2026, 5, 1, 15, 30, tzinfo=timezone.utc)
    assert local_day(moment, TOKYO) == date(2026, 5, 2)
    assert local_day(moment, NEW_YORK) == date(2026, 5, 1)
    assert local_day(moment, ProjectSettings()) == date(2026, 5, 1)


def test_today_is_the_local_day_of_now():
    now = datetime(2026, 1, 1, 4, 0, tzinfo=timezone.utc)  # 23:00 on Dec 31 in New York
    assert local_today(NEW_YORK, now) == date(2025, 12, 31)


def test_a_day_starts_at_local_midnight_and_the_bounds_agree_with_local_day():
    start = day_start(date(2024, 11, 3), NEW_YORK)  # the fall-back day: 25 hours
    assert start.astimezone(timezone.utc) == datetime(2024, 11, 3, 4, 0, tzinfo=timezone.utc)
    lo, hi = day_bounds(datetime(2024, 11, 3, 12, 0, tzinfo=timezone.utc), NEW_YORK)
    assert (hi - lo).total_seconds() == 25 * 3600
    assert local_day(lo, NEW_YORK) == date(2024, 11, 3) and local_day(hi, NEW_YORK) == date(2024, 11, 4)
