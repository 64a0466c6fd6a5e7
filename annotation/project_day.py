"""The project's calendar day: the one rule for "which day is it" in a project's time zone.

Quotas, the daily review sample, the dashboard's and the agreement page's date filters all count
calendar days in the project's time zone (``ProjectSettings.quota_timezone``); every one of them
asks here, so a moment falls on the same day everywhere.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from annotation.settings import ProjectSettings


def local_day(moment: datetime, settings: ProjectSettings) -> date:
    """The project's calendar day containing ``moment`` (an aware datetime).

    Examples:
        >>> tokyo = ProjectSettings(quota_timezone="Asia/Tokyo")
        >>> local_day(datetime(2026, 5, 1, 15, 0, tzinfo=timezone.utc), tokyo)  # 00:00 in Tokyo
        datetime.date(2026, 5, 2)
    """
    return moment.astimezone(settings.timezone).date()


def local_today(settings: ProjectSettings, now: datetime | None = None) -> date:
    """Today in the project's time zone (``now`` defaults to the current time).

    Examples:
        >>> local_today(ProjectSettings(quota_timezone="America/New_York"),
        ...             now=datetime(2026, 5, 2, 3, 0, tzinfo=timezone.utc))   # 23:00 the day before
        datetime.date(2026, 5, 1)
    """
    return local_day(now or datetime.now(timezone.utc), settings)


def day_start(day: date, settings: ProjectSettings) -> datetime:
    """The moment ``day`` begins in the project's time zone (an aware datetime in that zone).

    Examples:
        >>> day_start(date(2026, 5, 2), ProjectSettings(quota_timezone="Asia/Tokyo")).isoformat()
        '2026-05-02T00:00:00+09:00'
    """
    return datetime.combine(day, time(0), tzinfo=settings.timezone)


def day_bounds(now: datetime, settings: ProjectSettings) -> tuple[datetime, datetime]:
    """Start and end (UTC) of the project's calendar day containing ``now``.

    The end is the next local midnight, so a day with a daylight-saving change is 23 or 25 hours.

    Examples:
        >>> start, end = day_bounds(datetime(2024, 3, 10, 12, 0, tzinfo=timezone.utc),
        ...                         ProjectSettings(quota_timezone="America/New_York"))
        >>> end - start                                   # the spring-forward day
        datetime.timedelta(seconds=82800)
    """
    today = local_day(now, settings)
    start, end = day_start(today, settings), day_start(today + timedelta(days=1), settings)
    return start.astimezone(timezone.utc), end.astimezone(timezone.utc)
