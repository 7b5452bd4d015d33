"""What tally's speed-ups keep exact: the files they still make durable, the compiled
templates they share, the local forum they stop at once (issue 30, item 6)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally.atomic import write_atomic
from tally.forums.cache import Cache


@pytest.fixture
def fsynced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The file descriptors fsync was asked for."""
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_a_record_is_written_durably_by_default(tmp_path: Path, fsynced: list[int]) -> None:
    write_atomic(tmp_path / "ledger.csv", b"day,player\n")
    assert len(fsynced) == 1
    assert (tmp_path / "ledger.csv").read_bytes() == b"day,player\n"


def test_a_cached_page_is_not_fsynced_but_the_history_is(
    tmp_path: Path, fsynced: list[int]
) -> None:
    """A page of the cache can be fetched again; a version in the history cannot."""
    store = Cache(tmp_path).thread("discuz", "bbs.example.com", "7")
    now = datetime(2024, 5, 9, 13, 30, tzinfo=UTC)
    store.put("https://bbs.example.com/p1", b"<html>1</html>", now, {"ETag": '"a"'})
    store.set_page_count(1)
    assert fsynced == []
    assert store.keep(1, b'[{"post": 1}]', now) == "kept"
    assert len(fsynced) == 2  # the version's file and history.json
    entry = store.get("https://bbs.example.com/p1")
    assert entry is not None and entry.body == b"<html>1</html>" and entry.etag == '"a"'
    assert store.versions() == [(1, now, b'[{"post": 1}]')]
    assert not list(tmp_path.rglob("*.part"))  # every write renamed into place
