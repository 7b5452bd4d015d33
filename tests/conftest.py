from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from tally.demo.localforum import LocalForum
from tally.environment import Environment
from tally.forums.http import HttpOptions
from tally.forums.reader import Reader, Reading
from tally.model import Thread

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DISCUZ = FIXTURES / "discuz"
CHINA = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def forum() -> Iterator[LocalForum]:
    with LocalForum() as f:
        yield f


@pytest.fixture(scope="session")
def scenario() -> dict:
    """What was written into the real Discuz! before its pages were saved: the ground truth."""
    return json.loads((DISCUZ / "scenario.json").read_text(encoding="utf-8"))


# The first columns of `tally archive`, as shared CONTRACT.md names them (not imported from
# tally: the tests hold the contract, the code follows it).
CONTRACT_COLUMNS = [
    "platform",
    "thread_id",
    "post_id",
    "parent_post_id",
    "floor",
    "author",
    "author_id",
    "time",
    "edited_at",
    "text",
]


def read_csv(path: Path) -> list[dict[str, str]]:
    """A CSV tally wrote, as a director's spreadsheet reads it (UTF-8 with a BOM)."""
    import csv
    import io

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "Excel needs the UTF-8 byte-order mark"
    return list(csv.DictReader(io.StringIO(raw[3:].decode("utf-8"))))


def page_text(name: str) -> str:
    return (DISCUZ / name).read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """No test touches the user's own cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


class FakeClock:
    """A test's clock: the wall clock and the monotonic clock move together, and only when
    something sleeps on them, at once. Every sleep is written down (``sleeps``), so a test
    sees the waits (backoff, Retry-After, the politeness delay, the polls) without waiting.
    """

    EPOCH = datetime(2000, 1, 1, tzinfo=UTC)

    def __init__(self, start: datetime | str | None = None, tz: tzinfo = UTC):
        if isinstance(start, str):
            start = datetime.fromisoformat(start).replace(tzinfo=tz)
        self.t = start or datetime.now(UTC)
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return self.t

    def monotonic(self) -> float:
        return (self.t - self.EPOCH).total_seconds()

    def sleep(self, seconds: float) -> None:
        with self._lock:  # the fetcher's threads share the clock
            self.sleeps.append(seconds)
            self.t += timedelta(seconds=max(0.0, seconds))

    def env(self, **kw: object) -> Environment:
        """An environment on this clock (its sleep too)."""
        return Environment(clock=self.now, monotonic=self.monotonic, sleep=self.sleep, **kw)  # type: ignore[arg-type]


def reader(env: Environment | None = None, http: HttpOptions | None = None, **how: object) -> Reader:
    """A Reader as a command makes one: a fake clock unless ``env`` is given (with ``http``
    as its HTTP settings), no cache unless ``cache_dir`` is given."""
    if env is None:
        env = FakeClock().env(**({"http": http} if http is not None else {}))
    how.setdefault("use_cache", "cache_dir" in how)
    return Reader(env, Reading(**how))  # type: ignore[arg-type]


def read(sources: Sequence[str], tz: tzinfo = CHINA, **kw: object) -> list[Thread]:
    """The threads the sources name, read as a command reads them (see ``reader``)."""
    with reader(**kw) as r:  # type: ignore[arg-type]
        return r.read(sources, tz)


def read_one(
    url: str, tz: tzinfo = CHINA, *, not_before: datetime | None = None, **kw: object
) -> Thread:
    """One thread; with ``not_before``, no page cached before that time is used."""
    with reader(**kw) as r:  # type: ignore[arg-type]
        if not_before is not None:
            return r.thread(url, tz, not_before=not_before)
        [thread] = r.read([url], tz)
        return thread


class Runner(CliRunner):
    """A CliRunner whose commands run on a fresh fake clock (its sleeps take no time)
    unless a test hands in its own environment."""

    def invoke(self, app, args=None, **kwargs):  # type: ignore[no-untyped-def, override]
        kwargs.setdefault("obj", FakeClock().env())
        return super().invoke(app, args, **kwargs)
