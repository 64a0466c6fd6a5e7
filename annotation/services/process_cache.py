"""What a service keeps per process between calls: a bounded map, each value stored with the
version (a fingerprint of what it was computed from) it is good for.

A page asks the same report on every Streamlit run (a tab, a filter, a rerun) and the report
takes from a tenth of a second to seconds; the data it reads is summed up in a cheap aggregate
query (its fingerprint). A value is returned only while the fingerprint asked with is the one it
was stored with, so a change to the data (or the settings) is never answered with an old value.
The least recently used entries go first when the map is full. Thread-safe: Streamlit runs
sessions on threads of one process; a value is computed outside the lock (two threads may both
compute it, the last one stored wins: they are equal).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, Iterable, TypeVar

V = TypeVar("V")

#: what :meth:`ProcessCache.get` answers for a key it does not hold at that version
MISSING = object()


class ProcessCache(Generic[V]):
    """A least-recently-used map of at most ``size`` entries, each good for one version.

    >>> cache = ProcessCache(2)
    >>> cache.put("a", 1, version=("v1",)); cache.put("b", 2)
    >>> cache.get("a", version=("v1",)), cache.get("a", version=("v2",)) is MISSING
    (1, True)
    >>> cache.put("c", 3)  # "b" was used least recently: it goes
    >>> sorted(cache.keys())
    ['a', 'c']
    >>> cache.get_or_make("a", lambda: 10, version=("v2",))  # a new version: made again
    10
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[Hashable, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, *, version: Hashable = None) -> V | object:
        """The value kept under ``key`` for ``version``, else :data:`MISSING`."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != version:
                return MISSING
            self._entries.move_to_end(key)
            return entry[1]

    def get_many(self, wanted: dict[Hashable, Hashable]) -> dict[Hashable, V]:
        """The values kept for each key of ``wanted`` at its version (the keys not kept left out)."""
        found: dict[Hashable, V] = {}
        with self._lock:
            for key, version in wanted.items():
                entry = self._entries.get(key)
                if entry is not None and entry[0] == version:
                    self._entries.move_to_end(key)
                    found[key] = entry[1]
        return found

    def put(self, key: Hashable, value: V, *, version: Hashable = None) -> None:
        """Keep ``value`` under ``key`` for ``version`` (an older version of it is replaced)."""
        self.put_many([(key, version, value)])

    def put_many(self, entries: Iterable[tuple[Hashable, Hashable, V]]) -> None:
        """Keep each (key, version, value) of ``entries``, then drop the least recently used
        beyond the size."""
        with self._lock:
            for key, version, value in entries:
                self._entries[key] = (version, value)
                self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def get_or_make(self, key: Hashable, make: Callable[[], V], *, version: Hashable = None) -> V:
        """The value kept for ``key`` at ``version``, or ``make()``'s (then kept)."""
        value = self.get(key, version=version)
        if value is MISSING:
            value = make()
            self.put(key, value, version=version)
        return value  # type: ignore[return-value]

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
