"""The one per-process cache the services keep reports in (annotation/services/process_cache.py)."""

from __future__ import annotations

import threading

import pytest

from annotation.services.process_cache import MISSING, ProcessCache


def test_a_value_is_good_for_its_version_only():
    cache: ProcessCache[str] = ProcessCache(4)
    cache.put(("db", 1), "report", version=(3, 120))
    assert cache.get(("db", 1), version=(3, 120)) == "report"
    assert cache.get(("db", 1), version=(4, 121)) is MISSING  # the data changed
    assert cache.get(("db", 2), version=(3, 120)) is MISSING
    cache.put(("db", 1), "new report", version=(4, 121))  # the old version is replaced, not kept
    assert len(cache) == 1 and cache.get(("db", 1), version=(4, 121)) == "new report"


def test_the_least_recently_used_goes_first():
    cache: ProcessCache[int] = ProcessCache(3)
    for k in "abc":
        cache.put(k, ord(k))
    assert cache.get("a") == ord("a")  # "a" used: "b" is now the oldest
    cache.put("d", 4)
    assert cache.keys() == ["c", "a", "d"]
    assert len(cache) == 3


def test_many_at_once():
    cache: ProcessCache[str] = ProcessCache(2)
    cache.put_many([(1, "k1", "one"), (2, "k2", "two"), (3, "k3", "three")])  # beyond the size: 1 goes
    assert cache.get_many({1: "k1", 2: "k2", 3: "other"}) == {2: "two"}
    cache.clear()
    assert len(cache) == 0


def test_get_or_make_makes_once_per_version():
    cache: ProcessCache[int] = ProcessCache(2)
    made = []

    def make() -> int:
        made.append(1)
        return len(made)

    assert [cache.get_or_make("k", make, version=v) for v in ("x", "x", "y", "y")] == [1, 1, 2, 2]
    assert len(made) == 2


def test_threads_share_it_safely():
    cache: ProcessCache[int] = ProcessCache(50)

    def work(n: int) -> None:
        for i in range(300):
            cache.put((n, i % 60), i, version=i)
            cache.get((n, (i * 7) % 60), version=i)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50


def test_a_cache_holds_something():
    with pytest.raises(ValueError):
        ProcessCache(0)
