"""The suite's runner machinery, a pytest plugin (loaded by conftest.py's ``pytest_plugins``):
ruff and mypy started beside the tests, the garbage collector held back until the tests
start, pytest-xdist's scheduling of the modules that share what is made once, the work
done once before the workers start (tests/warm.py), no connection beyond loopback,
typer's command built once a run, and the quick loop's fewer examples of each property. The fixtures are conftest.py's."""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
import threading
from pathlib import Path

import pytest
import typer.testing

from . import lint, localforums, warm

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


# The examples each property test draws in the quick loop, a quarter of the whole suite's
# (CI's run: tests/strategies.py, ``EXAMPLES``). Set here, not in strategies.py, which
# imports hypothesis: pytest's own process (xdist's controller) runs no test and never
# imports it.
QUICK_EXAMPLES = 20


def _quick_loop(config: pytest.Config) -> bool:
    """Whether this run is the quick loop: its -m leaves out the tests marked slow
    (``-m "not slow"``, docs/contributing.md). There the property tests draw
    ``QUICK_EXAMPLES`` examples each unless TALLY_FUZZ_EXAMPLES says how many."""
    markexpr = config.option.markexpr
    if not markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression

        return not Expression.compile(markexpr).evaluate(lambda name, /, **kw: name == "slow")
    except Exception:  # pytest's own parser, not a public interface: the whole count then
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
    if _quick_loop(config):
        os.environ.setdefault("TALLY_FUZZ_EXAMPLES", str(QUICK_EXAMPLES))
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
})  # fmt: skip
# The modules that read tally's own code share one worker too: the code parsed once
# (tests/test_house.py's ``modules``) and its sentences extracted once (tests/test_i18n.py's
# ``extracted``, 0.6 s of Babel a process) for the tests that read them.
CODE = frozenset({"tests/test_house.py", "tests/test_i18n.py", "tests/test_i18n_rules.py",
                  "tests/test_i18n_commands.py", "tests/test_desk_i18n.py"})  # fmt: skip
# The modules that drive Chromium share one worker too: the session's one browser (the
# ``browser`` fixture) is launched once a run instead of once on each worker (1.5 s, ~1 s
# of CPU, and a second browser's memory).
BROWSER = frozenset({"tests/test_report.py", "tests/test_desk_browser.py"})
# The tests of Tieba's client API share one worker too: aiotieba, which their double of the
# API (tests/tiebaapi.py) and tally import as they first serve or ask it, imports its whole
# client, 0.4 s a process. Its own modules, and the tests elsewhere named for Tieba (each that
# serves the API is; by the test's name, not its parameters'), but for those of TOGETHER,
# CODE and BROWSER; a Tieba test outside them runs where it falls, importing aiotieba there too.
TIEBA = frozenset({"tests/test_reading_tieba_api.py", "tests/test_hostile_tieba_api.py",
                   "tests/test_hostile_tieba_counts.py"})  # fmt: skip
# As aiotieba, pandas (0.35 s a process) and matplotlib (0.45 s, and its fonts found) are
# imported once a run, not on both workers: the tests that read what tally wrote with
# pandas (tally writes and reads its databases without it: tally.records.database) share
# one worker, and those that draw the pictures another; by module, and by the test's name
# elsewhere. A test of either kind left out runs where it falls, importing there too.
PANDAS = frozenset({"tests/test_archive.py", "tests/test_archive_record.py",
                    "tests/test_hostile_record.py"})  # fmt: skip
PANDAS_TESTS = frozenset({
    "test_the_archive_library_function_loads_the_game_with_its_ledger",
    "test_V6_L3_a_post_that_is_no_ballot_is_listed_everywhere_and_named_on_its_card",
})  # fmt: skip
PICTURES = frozenset({"tests/test_desk_json.py", "tests/test_report_damaged_history.py",
                      "tests/test_report_notices.py"})  # fmt: skip
PICTURES_TESTS = frozenset({
    "test_a_day_s_pictures_read_only_what_they_are_kept_by",
    "test_the_built_in_report_draws_every_picture",
    "test_every_page_escapes_what_players_wrote_and_one_poller_per_day",
    "test_the_exported_report_template_renders_the_same_page",
    "test_the_report_shows_a_card_in_doubt_as_such_and_counts_it_nowhere",
    "test_the_report_counts_day_2_with_the_sheriff_of_day_1",
    "test_a_chart_before_the_close_is_headed_as_a_standing",
    "test_names_with_dollars_are_drawn_as_written",
    "test_the_report_as_of_a_moment_and_its_rows",
})  # fmt: skip


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """--dist loadgroup, its groups the modules of TOGETHER, BROWSER's as one, CODE's as one,
    and TIEBA's, PANDAS's and PICTURES's tests as one each; the other tests a few at a time. pytest-xdist groups the tests marked xdist_group by renaming their nodeid, which
    pytest 9 no longer lets a plugin do (each marked test went to any worker: the wheel was
    built twice at once)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModulesTogether(LoadGroupScheduling):
        # The other tests go out a few at a time, consecutive tests of a module: one by one,
        # each test was a message to its worker and a look at what the worker had left,
        # and the worker could wait for the controller (on the same two cores) between two
        # quick tests.
        FEW = 4

        def __init__(self, *args: object) -> None:
            super().__init__(*args)
            self._scopes: dict[str, str] = {}
            self._seen: dict[str, int] = {}

        def _split_scope(self, nodeid: str) -> str:
            # Asked first in the collection's order (xdist's ``schedule``), then again as each
            # test ends: the unit a test went out in is remembered.
            if (scope := self._scopes.get(nodeid)) is None:
                scope = self._scopes[nodeid] = self._unit(nodeid)
            return scope

        def _unit(self, nodeid: str) -> str:
            module, _, test = nodeid.partition("::")
            if module in BROWSER:
                return "chromium"
            if module in TOGETHER:
                return module
            if module in CODE:
                return "code"
            name = test.split("[", 1)[0]
            if module in TIEBA or "tieba" in name.lower():
                return "tieba"
            if module in PANDAS or name in PANDAS_TESTS:
                return "pandas"
            if module in PICTURES or name in PICTURES_TESTS:
                return "pictures"
            n = self._seen[module] = self._seen.get(module, -1) + 1
            return f"{module}::{n // self.FEW}"

        def mark_test_complete(self, node: object, item_index: int, duration: float = 0) -> None:
            """As xdist's, but a unit whose tests have all run leaves its worker's work: xdist
            counts what a worker has pending over every unit it was ever given, at the end of
            each test (~940,000 steps a quick loop, 0.6 s of the controller's CPU, as the
            workers want both cores)."""
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            work = self.assigned_work[node]
            work[scope][nodeid] = True
            if all(work[scope].values()):
                del work[scope]
            self._reschedule(node)

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
