from __future__ import annotations

import gc
import ipaddress
import json
import os
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest
import typer.testing
from typer.testing import CliRunner

from tally.demo.localforum import LocalForum
from tally.environment import Environment, HttpOptions
from tally.forums.reader import Reader, Reading
from tally.model import Thread

from . import lint, localforums, warm
from .localforums import local_forum

if TYPE_CHECKING:
    from .browser import Browser

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DISCUZ = FIXTURES / "discuz"
CHINA = ZoneInfo("Asia/Shanghai")


# ruff and mypy (tests/test_lint.py) start beside the other tests when those two are
# chosen, in the process that sees what was chosen: pytest itself, or the controller of
# pytest-xdist's workers (which inherit the folder the verdicts go to). When the command
# line alone says they will be (the whole suite, -m "not slow"), they start at once, before
# the workers have started and collected (~1 s sooner: mypy takes ~5 s of a core from a
# fresh clone); if collection then leaves them out, they are stopped.


def _worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _lint_chosen_by_the_command_line(config: pytest.Config) -> bool:
    """Whether tests/test_lint.py's tests are sure to be chosen, from the arguments alone:
    a path that holds it, no -k, no deselection, and a -m its unmarked tests pass."""
    o = config.option
    if o.collectonly or o.keyword or getattr(o, "deselect", None) or getattr(o, "lf", False):
        return False
    if getattr(o, "ignore", None) or getattr(o, "ignore_glob", None):
        return False
    lint_file = Path(lint.__file__).with_name("test_lint.py")
    where = config.invocation_params.dir
    paths = [(where / a.split("::")[0]).resolve() for a in config.args]
    if not any(p == lint_file or p in lint_file.parents for p in paths):
        return False
    if not o.markexpr:
        return True
    try:
        from _pytest.mark.expression import Expression

        return Expression.compile(o.markexpr).evaluate(lambda name, /, **kw: False)
    except Exception:  # pytest's own parser, not a public interface: then wait for collection
        return False


def pytest_configure(config: pytest.Config) -> None:
    # Until the tests start, no collection of cyclic garbage: importing tally, its libraries
    # and the tests, and rewriting the tests' asserts, make hundreds of thousands of objects
    # that all live on, and the collector walked them again and again (a worker's first 2.4 s
    # held 0.3 s of it; the asserts' rewriting, on a fresh clone, as much). Enabled once they
    # are frozen (pytest_collection_finish; on the controller of xdist's workers, which
    # collects nothing, once the work it does before them is done). The garbage they left,
    # some 20,000 objects, is frozen with them: memory, and no test's. xdist's --looponfail
    # watcher collects no test: its collector stays on.
    if not config.getoption("looponfail", False):
        gc.disable()
    if not _worker(config):
        lint.folder()
        localforums.claim_a_block()  # the session's ports, inherited by its workers
        if _lint_chosen_by_the_command_line(config):
            lint.start_all()


def _lint_chosen(ids: list[str]) -> None:
    if any(i.startswith(LINT) for i in ids):
        lint.start_all()
    else:
        lint.stop_running()


@pytest.hookimpl(trylast=True)  # after -k and -m have chosen
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # --collect-only runs no test: nothing to start (and nothing killed half-way).
    if config.option.collectonly:
        return
    # The verdicts of ruff and mypy are asked for last (a stable sort, the same on every
    # worker): the tools run at the lowest priority (tests/lint.py), so asked for in the
    # middle of the run a worker would wait there for what they have not done yet.
    items.sort(key=lambda item: item.nodeid.startswith(LINT))
    if not _worker(config):
        _lint_chosen([i.nodeid for i in items])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    _lint_chosen(ids)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Once tally, its libraries and the tests are imported, a test process holds ~160,000
    # objects that live to the end (and ~300,000 once the tests have imported matplotlib and
    # the rest); the collector walked them all again and again: 3.8 s of the single-process
    # quick loop. Frozen, and collected less often, it looks at what the tests make: 1.7 s.
    _collect_from_now_on()


def _collect_from_now_on() -> None:
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)
    if _after_a_full_collection not in gc.callbacks:
        gc.callbacks.append(_after_a_full_collection)
    gc.enable()


# What the tests import as they run (matplotlib, Starlette) and the memos they fill
# outlive every test too, and each full collection walked them again: five a worker, 0.1 s
# each, and as much again in the collections pytest makes at the end. What a full collection
# leaves is what lives on: frozen after the test that saw it (never inside the collection),
# the next walks only what came since. What that test made after it is collected first (the
# young generations, a few milliseconds): a cycle it left is freed, its finalisers run and
# what they warn of is heard, never frozen.
_FULL = threading.Event()


def _after_a_full_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] == 2:
        _FULL.set()


@pytest.hookimpl(trylast=True)  # after the test's fixtures are torn down, inside its teardown
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if _FULL.is_set():
        _FULL.clear()
        gc.collect(1)  # a warning or an unraisable exception it brings is the test's
        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # pytest collects twice as it ends, to hear of an exception in a finaliser of the tests'
    # garbage: once here, the rest frozen, the two walk nothing (0.2-0.4 s of each worker).
    gc.collect()
    gc.freeze()


# The modules whose tests share what is made once a module (a fixture of scope="module", a
# cache): each runs on one worker; every other test goes to whichever worker is free.
TOGETHER = frozenset({
    "tests/test_install.py",  # the wheel, built in the checkout's build/ (once at a time)
    "tests/test_report.py",  # two reports of a four-day game
    "tests/test_house.py",  # tally's code, parsed
})  # fmt: skip
# The modules that drive Chromium share one worker too: the session's one browser (the
# ``browser`` fixture) is launched once a run instead of once on each worker (1.5 s, ~1 s
# of CPU, and a second browser's memory).
BROWSER = frozenset({"tests/test_report.py", "tests/test_desk_browser.py"})
# The tests of Tieba's client API share one worker too: aiotieba, which their double of the
# API (tests/tiebaapi.py) and tally import as they first serve or ask it, imports its whole
# client, 0.4 s a process. Its own modules, and the tests elsewhere named for Tieba (each that
# serves the API is; by the test's name, not its parameters'), but for those of TOGETHER and
# BROWSER; a Tieba test outside them runs where it falls, importing aiotieba there too.
TIEBA = frozenset({"tests/test_tieba_api.py", "tests/test_hostile_tieba.py",
                   "tests/test_hostile_tieba_counts.py"})  # fmt: skip


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """--dist loadgroup, its groups the modules of TOGETHER, BROWSER's as one and TIEBA's tests
    as one. pytest-xdist groups the tests marked xdist_group by renaming their nodeid, which
    pytest 9 no longer lets a plugin do (each marked test went to any worker: the wheel was
    built twice at once)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModulesTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module, _, test = nodeid.partition("::")
            if module in BROWSER:
                return "chromium"
            if module in TOGETHER:
                return module
            if module in TIEBA or "tieba" in test.split("[", 1)[0].lower():
                return "tieba"
            return nodeid

    return ModulesTogether(config, log)  # type: ignore[arg-type]


def pytest_sessionstart(session: pytest.Session) -> None:
    # Before pytest-xdist's own (trylast) starts the workers: what each would do first from
    # a fresh clone, done once (tests/warm.py).
    if not _worker(session.config):
        warm.before_the_workers(session.config)
        if getattr(session.config.option, "numprocesses", None):
            _collect_from_now_on()  # the controller: it collects no test


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _worker(config):
        lint.stop_all()
        localforums.release_the_block()


LINT = "tests/test_lint.py::"


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
# The real Discuz! X3.5 a developer stands up beside the suite listens here (its web server
# and its database); a test that reached it passed on that machine and failed on every other.
_REAL_FORUM_PORTS = frozenset({8600, 3607})
_connect = socket.socket.connect


def _loopback_only(sock: socket.socket, address: object) -> None:
    """Tests never touch the internet, nor a real forum left running on this machine: a
    connection elsewhere than loopback, or to the real forum's ports, is refused here as a
    closed port would refuse it, whatever this machine runs."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        host, port = str(address[0]), int(address[1])
        try:
            loopback = ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback or port in _REAL_FORUM_PORTS:
            raise ConnectionRefusedError(111, f"tests reach no {host}:{port}")
    _connect(sock, address)  # type: ignore[arg-type]


socket.socket.connect = _loopback_only  # type: ignore[method-assign]


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


def _built_once(build):  # type: ignore[no-untyped-def]
    """typer builds the click command from the app's functions at every invoke (once a run,
    for the real command); the tests' hundreds of invokes build it once."""
    built: dict[int, object] = {}

    def get(app):  # type: ignore[no-untyped-def]
        if id(app) not in built:
            built[id(app)] = build(app)
        return built[id(app)]

    return get


if hasattr(typer.testing, "_get_command"):
    typer.testing._get_command = _built_once(typer.testing._get_command)
