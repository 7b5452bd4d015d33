"""What a process keeps of pure work already done (a page parsed, a template compiled): the
last ``size`` results by their key, shared by the threads of one run (the desk's pollers),
so that a long watch or desk holds a bounded amount of it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The ``size`` results used last, each by its key; the oldest goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._found: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._found.get(key)
            if found is not None:
                self._found.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._found[key] = value
            self._found.move_to_end(key)
            while len(self._found) > self.size:
                self._found.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._found.clear()
