"""The suite's fixtures, and the helpers the tests share with them (FakeClock, Runner, the
tests' own folders). The runner's machinery (hooks, scheduling, the lint beside the tests)
is a plugin of its own, tests/runner.py."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from tally.demo.localforum import LocalForum
from tally.environment import Environment, HttpOptions
from tally.forums.reader import Reader, Reading
from tally.model import Thread

from .localforums import local_forum

if TYPE_CHECKING:
    from .browser import Browser

pytest_plugins = ["tests.runner"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DISCUZ = FIXTURES / "discuz"
CHINA = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def forum() -> Iterator[LocalForum]:
    with local_forum() as f:
        yield f


@pytest.fixture(scope="session", autouse=True)
def _desk_servers_stopped() -> Iterator[None]:
    """The desk's servers still stopping as the session ends, checked stopped
    (tests/desk_game.py, ``serving``)."""
    yield
    desk_game = sys.modules.get(f"{__package__}.desk_game")
    if desk_game is not None:
        desk_game.all_stopped()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the session (tests/browser.py); a test takes ``fresh`` of it."""
    from .browser import Browser, chromium

    if chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium-headless-shell)")
    with Browser() as launched:
        yield launched


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


class Folders:
    """The running test's own folders, as $XDG_CONFIG_HOME and $XDG_CACHE_HOME would hold
    them: ``config`` (config.toml, boards.toml) and ``cache`` (the pages)."""

    # Until the first test starts (an environment made as a module is imported): one
    # private folder for the session's own.
    home: Path = Path(tempfile.mkdtemp(prefix="tally-tests-"))

    @property
    def config(self) -> Path:
        return self.home / "config" / "tally"

    @property
    def cache(self) -> Path:
        return self.home / "cache" / "tally"


FOLDERS = Folders()
# What a user's environment says that no test may hear: another config file, no colour,
# the user's own folders.


_THEIRS = ("TALLY_CONFIG", "NO_COLOR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
# The suite reads tally's English whatever this machine's locale says (tally.i18n); a test
# of the Chinese asks for it (TALLY_LANG=zh, or tally.i18n.speaking).
os.environ["TALLY_LANG"] = "en"


@pytest.fixture(autouse=True)
def private_folders(tmp_path_factory) -> Folders:
    """Every test's own config and cache folders, handed to each environment it makes
    (``FakeClock.env``, ``child_env`` for a tally in another process): no test touches the
    user's cache, nor reads their config or board profiles, nor sees their NO_COLOR.
    Made by mkdtemp in the run's folder (pytest's numbered mktemp resolves the path and
    looks through the folder's names at each call: 0.5 ms a test)."""
    FOLDERS.home = Path(tempfile.mkdtemp(prefix="folders-", dir=tmp_path_factory.getbasetemp()))
    return FOLDERS


def own_folders(where: Path) -> Folders:
    """Folders of its own, in ``where``, for what a module makes once (a fixture of
    scope="module"), as ``private_folders`` gives each test. pytest makes such a fixture as
    the first test that asks for it starts, before that test's folders: it had the folders
    of the test before, whose config could hold its settings and whose cache a page at the
    address the fixture reads (the tests' forums serve on their worker's few ports,
    tests/localforums.py)."""
    FOLDERS.home = where / "folders"
    return FOLDERS


def quiet_environ(**extra: str) -> dict[str, str]:
    """This process's variables without the user's (``_THEIRS``), and ``extra``."""
    return {k: v for k, v in os.environ.items() if k not in _THEIRS} | extra


def child_env(**extra: str) -> dict[str, str]:
    """The variables for a tally run in another process: the test's folders as the
    platform's (Linux), and ``extra``."""
    return quiet_environ(XDG_CONFIG_HOME=str(FOLDERS.home / "config"),
                         XDG_CACHE_HOME=str(FOLDERS.home / "cache"), **extra)  # fmt: skip


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
        """An environment on this clock (its sleep too), with the test's own folders."""
        kw = {"config_dir": FOLDERS.config, "cache_dir": FOLDERS.cache,
              "environ": quiet_environ(), **kw}  # fmt: skip
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
