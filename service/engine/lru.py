"""A small thread-safe LRU map: the engine's shortlists and the runtime's repeated answers."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class Lru(Generic[Key, Value]):
    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Key, Value] = OrderedDict()
        self._lock = threading.Lock()  # gunicorn threads and the scheduler share one

    def get(self, key: Key) -> Value | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Key, value: Value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self._size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
