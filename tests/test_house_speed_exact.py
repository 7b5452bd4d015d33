"""What tally's speed-ups keep exact: the files they still make durable, the compiled
templates they share, the local forum they stop at once (issue 30, item 6)."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally.atomic import write_atomic
from tally.demo.localforum import LocalForum
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
    assert store.store_version(1, b'[{"post": 1}]', now) == "kept"
    assert len(fsynced) == 2  # the version's file and history.json
    entry = store.get("https://bbs.example.com/p1")
    assert entry is not None and entry.body == b"<html>1</html>" and entry.etag == '"a"'
    assert store.versions() == [(1, now, b'[{"post": 1}]')]
    assert not list(tmp_path.rglob("*.part"))  # every write renamed into place


def test_a_reads_pages_are_listed_in_the_history_with_one_durable_write(
    tmp_path: Path, fsynced: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new version's file is made durable, then the history that lists them, once a
    read (not once a page); what each page's listing was is said as store_version says it."""
    import json

    import tally.forums.cache

    store = Cache(tmp_path).thread("discuz", "bbs.example.com", "7")
    at = [datetime(2024, 5, 9, 13, m, tzinfo=UTC) for m in range(4)]
    pages = [(1, b"[1]", at[0]), (2, b"[2]", at[0])]
    assert store.store_versions(pages, "a") == ["kept", "kept"]
    assert len(fsynced) == 3  # two versions' files, then history.json
    again = [(1, b"[1]", at[1]), (2, b"[2, 3]", at[1])]
    assert store.store_versions(again, "b") == ["same", "kept"]
    assert len(fsynced) == 5
    listed = json.loads((store.folder / "history.json").read_text())
    assert [(e[0], e[3]) for e in listed] == [(1, "a"), (2, "a"), (1, "b"), (2, "b")]
    monkeypatch.setattr(tally.forums.cache, "MAX_VERSIONS", 5)
    last = [(1, b"[4]", at[2]), (2, b"[5]", at[2]), (3, b"[6]", at[2])]
    assert store.store_versions(last, "c") == ["kept", "full"]  # page 3 never tried
    assert [(p, d) for p, _, d in store.versions()][-1] == (1, b"[4]")
    assert len(store.versions()) == 5


def test_a_thread_folder_reads_its_index_once_and_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most folders a run opens are asked for their history, post ids or roles alone."""
    import tally.forums.cache
    from tally.forums import resolve_url

    now = datetime(2024, 5, 9, 13, 30, tzinfo=UTC)
    store = Cache(tmp_path).thread("discuz", "bbs.example.com", "7")
    store.put("https://bbs.example.com/p1", b"<html>1</html>", now, {})
    store.set_page_count(1)
    store.store_version(1, b"[]", now, "a")
    read: list[Path] = []
    real = tally.forums.cache._read_index
    monkeypatch.setattr(tally.forums.cache, "_read_index", lambda p: read.append(p) or real(p))
    _, ref = resolve_url("https://bbs.example.com/forum.php?mod=viewthread&tid=7")
    assert len(Cache(tmp_path).history(ref).versions) == 1
    again = Cache(tmp_path).thread("discuz", "bbs.example.com", "7")
    assert again.post_ids() == frozenset() and again.roles() is None and read == []
    assert again.page_count == 1 and again.get("https://bbs.example.com/p1") is not None
    assert read == [again.folder / "index.json"]


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates Jinja compiled from their text."""
    from jinja2 import Environment

    names: list[str] = []
    real = Environment.compile

    def compile(self: Environment, source: str, name: str | None = None, *args: object) -> object:
        names.append(name or "")
        return real(self, source, name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Environment, "compile", compile)
    return names


def test_a_template_is_compiled_once_whichever_folder_holds_it(
    tmp_path: Path, compiled: list[str]
) -> None:
    """Each run (each test) makes its own environment for its folder; neither the built-in
    templates behind the folder nor a copy of the same text in another folder are compiled
    by Jinja again."""
    from tally.outputs.written.announce import check_templates

    text = f"早上好 {{{{ day }}}} {tmp_path.name}\n"  # a text no other test compiled
    for n in range(3):
        folder = tmp_path / f"house{n}"
        folder.mkdir()
        (folder / "morning.text.j2").write_text(text, encoding="utf-8")
        check_templates("morning", folder)
    assert compiled.count("morning.text.j2") == 1
    assert compiled.count("morning.bbcode.j2") <= 1  # the built-in one, maybe compiled before


def test_a_copy_of_a_template_that_fails_names_its_own_file_and_line(tmp_path: Path) -> None:
    from tally.errors import InputError
    from tally.outputs.written import templating

    text = "第{{ day }}天\n{{ 1 // 0 }}\n"
    for n in range(2):
        folder = tmp_path / f"house{n}"
        folder.mkdir()
        (folder / "morning.text.j2").write_text(text, encoding="utf-8")
        with pytest.raises(
            InputError, match=re.escape(f"{folder / 'morning.text.j2'}, line 2: the template failed")
        ) as failed:
            templating.template_text("morning.text.j2", {"day": 2}, folder, finalize=None)
        assert f"{folder / 'morning.text.j2'}, line 2" in str(failed.value)


def test_a_template_whose_text_changed_is_compiled_again_whatever_its_mtime(
    tmp_path: Path,
) -> None:
    from tally.outputs.written import templating

    path = tmp_path / "morning.text.j2"
    path.write_text("第{{ day }}天，早上好\n", encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    text = templating.template_text("morning.text.j2", {"day": 2}, tmp_path, finalize=None)
    assert text == "第2天，早上好\n"
    path.write_text("第{{ day }}天，晚上好\n", encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))
    templating._jinja.cache_clear()  # the next run in the same process: a new environment
    text = templating.template_text("morning.text.j2", {"day": 2}, tmp_path, finalize=None)
    assert text == "第2天，晚上好\n"


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "discuz"


def test_a_page_read_again_is_parsed_once_and_a_changed_one_afresh() -> None:
    """The memo of parse_page is keyed by the whole text and every other argument: one byte
    changed, another zone, another source (its origin) or other board profiles read anew."""
    from zoneinfo import ZoneInfo

    from tally.forums.base import forget_parsed
    from tally.forums.boards import Boards, built_in
    from tally.forums.discuz import DiscuzPages

    china, hong_kong = ZoneInfo("Asia/Shanghai"), ZoneInfo("Asia/Hong_Kong")
    text = (FIXTURES / "vote-p1.html").read_text(encoding="utf-8")
    pages = DiscuzPages()
    forget_parsed()
    url = "http://bbs.example.com/forum.php?mod=viewthread&tid=23&page=1"
    first = pages.parse_page(text, china, source=url)
    assert pages.parse_page(text, china, source=url) is first
    forget_parsed()
    fresh = pages.parse_page(text, china, source=url)
    assert fresh == first and fresh is not first  # the memo only skips work, same result

    changed = text.replace("投票", "投 票", 1)
    assert changed != text
    assert pages.parse_page(changed, china, source=url) is not first
    in_hong_kong = pages.parse_page(text, hong_kong, source=url)
    # Parsed again for another zone; its footer's GMT+8 is Hong Kong's too, and the times
    # are read at the footer's offset (issue 49 q), the same moments.
    assert in_hong_kong is not first and in_hong_kong.posts[0].time == first.posts[0].time
    other = pages.parse_page(text, china, source="http://other.example.org/forum.php")
    assert other.origin != first.origin
    profiles = Boards(built_in())
    again = pages.parse_page(text, china, source=url, boards=profiles)
    assert again == first
    assert pages.parse_page(text, china, source=url, boards=Boards(built_in())) is again


def test_a_page_that_fails_fails_every_time() -> None:
    from zoneinfo import ZoneInfo

    from tally.errors import TallyError
    from tally.forums.discuz import DiscuzPages

    text = (FIXTURES / "vote-p1.html").read_text(encoding="utf-8")
    cut = text[: len(text) // 2]
    for _ in range(2):
        with pytest.raises(TallyError, match="ends before the forum finished the page"):
            DiscuzPages().parse_page(cut, ZoneInfo("Asia/Shanghai"), source="cut.html")


def test_a_stored_version_read_again_is_the_same_posts_a_damaged_one_fails() -> None:
    from zoneinfo import ZoneInfo

    from tally.forums.discuz import DiscuzPages
    from tally.forums.history import page_data, page_posts

    text = (FIXTURES / "vote-p1.html").read_text(encoding="utf-8")
    posts = DiscuzPages().parse_page(text, ZoneInfo("Asia/Shanghai"), source="vote-p1.html").posts
    data = page_data(posts)
    assert page_posts(data) == posts
    assert page_posts(bytes(bytearray(data))) is page_posts(data)  # kept by the bytes
    damaged = data[:-2]
    for _ in range(2):
        with pytest.raises(ValueError, match="Expecting ',' delimiter"):
            page_posts(damaged)


@pytest.mark.slow  # python in another process
def test_a_command_that_reads_no_forum_does_not_import_the_http_client() -> None:
    """Every command makes an Environment (its HttpOptions come from tally.forums.http), and
    a read makes the run's Http (what it learns of each board is kept there); httpx and
    tenacity, a fifth of a second of every start, wait for the first request."""
    import subprocess
    import sys

    from .conftest import child_env

    code = (
        "import sys\n"
        "from tally.environment import Environment\n"
        "from tally.forums.http import Http\n"
        "env = Environment()\n"
        "print('httpx' in sys.modules, 'tenacity' in sys.modules)\n"
        "Http(env.http).close()\n"
        "print('httpx' in sys.modules)\n"
        "http = Http(env.http)\n"
        "http._client\n"
        "print('httpx' in sys.modules)\n"
        "http.close()\n"
        "try:\n"
        "    http.get('http://127.0.0.1:9/')\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "False False", "False", "True", "Cannot send a request, as the client has been closed."
    ]  # fmt: skip


@pytest.mark.slow  # python in another process
def test_a_read_imports_httpx_without_its_command_line_tool() -> None:
    """httpx/__init__.py imports httpx._main (click, pygments, rich.syntax) for its own
    ``httpx`` command: tally's first request imports httpx without it, reads the page as
    ever, and leaves ``httpx.main`` httpx's command, imported when it runs."""
    import subprocess
    import sys

    from .conftest import child_env

    code = (
        "import contextlib, io, sys\n"
        "from tally.demo import sample_page\n"
        "from tally.demo.localforum import LocalForum\n"
        "from tally.forums.http import Http\n"
        "heavy = ('httpx', 'httpx._main', 'click', 'pygments', 'rich.syntax')\n"
        "with LocalForum() as forum, Http() as http:\n"
        "    forum.add_discuz_page('23', 1, sample_page('vote', 1))\n"
        "    got = http.get(forum.base + 'thread-23-1-1.html')\n"
        "print(got.status, got.body == sample_page('vote', 1))\n"
        "print(*[m for m in heavy if m in sys.modules])\n"
        "import httpx\n"
        "shown = io.StringIO()\n"
        "with contextlib.redirect_stdout(shown):\n"
        "    done = httpx.main(['--help'], standalone_mode=False)\n"
        "print(done, 'Usage: httpx <URL> [OPTIONS]' in shown.getvalue())\n"
        "print(*[m for m in heavy if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=child_env(COLUMNS="80"), capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "200 True", "httpx", "0 True", "httpx httpx._main click pygments rich.syntax"
    ]  # fmt: skip


# Runs of tally one after another in a process of their own, which says after each which of
# the modules named in its first argument are imported by then: what a run imports stays
# imported, so a run after which none of them is imported imported none, and the first run
# after which one is, imported it (one interpreter for several runs: each is ~0.4 s of CPU).
SAYS_IMPORTS = """
import sys
heavy, runs = sys.argv[1].split(","), [a.split("\x1f") for a in sys.argv[2:]]
from tally.cli import main
for args in runs:
    sys.argv = ["tally", *args]
    try:
        main()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    print("imported:", *[m for m in heavy if m in sys.modules], file=sys.stderr)
"""


def imports_of(runs: list[list[str]], heavy: list[str], cwd: Path) -> list[list[str]]:
    """Which of ``heavy`` are imported after each of ``runs`` (``tally ARGS``), made one
    after another in one fresh process."""
    import subprocess
    import sys

    from .conftest import child_env

    done = subprocess.run(
        [sys.executable, "-c", SAYS_IMPORTS, ",".join(heavy), *("\x1f".join(r) for r in runs)],
        env=child_env(NO_COLOR="1"), cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("imported:")]


@pytest.fixture
def sample_cached(forum: LocalForum, tmp_path: Path) -> tuple[str, list[str]]:
    """The sample game's threads served and read once into a cache of the test's own: the
    vote thread's URL and the options every run after it takes (``--offline`` among them)."""
    from tally.cli import app
    from tally.demo import SAMPLE_THREADS, sample_game_text, sample_page

    from .conftest import Runner

    for tid, (stem, pages) in SAMPLE_THREADS.items():
        for page in range(1, pages + 1):
            forum.add_discuz_page(tid, page, sample_page(stem, page))
    game = tmp_path / "game.toml"
    game.write_text(sample_game_text(forum.base), encoding="utf-8")
    common = ["--game", str(game), "--cache-dir", str(tmp_path / "cache")]
    vote = f"{forum.base}thread-23-1-1.html"
    for args in (["votes", vote, *common], ["lurkers", "--day", "2", *common]):
        done = Runner().invoke(app, [*args, "-q"])
        assert done.exit_code == 0, done.output
    return vote, [*common, "--offline"]


@pytest.mark.slow  # python in other processes
def test_a_command_that_counts_from_the_cache_does_not_import_the_http_client(
    sample_cached: tuple[str, list[str]], tmp_path: Path
) -> None:
    """--offline reads every page from the cache: the run's Http makes no client, and httpx
    (with its command-line tool: click, pygments), tenacity and certifi stay out, and ssl and
    http.cookiejar (urllib.request with it) with no request made and no cookie file."""
    vote, offline = sample_cached
    heavy = ["httpx", "tenacity", "certifi", "ssl", "http.cookiejar"]
    runs = [["votes", vote, *offline], ["votes", vote, "--json", *offline],
            ["lurkers", "--day", "2", *offline], ["announce", "--day", "2", *offline]]  # fmt: skip
    assert imports_of(runs, heavy, tmp_path) == [[], [], [], []]
    assert imports_of([["votes", vote, *offline[:-1]]], heavy, tmp_path) == [heavy]  # the forum


@pytest.mark.slow  # python in other processes
def test_an_archive_written_or_read_imports_no_pandas(
    sample_cached: tuple[str, list[str]], tmp_path: Path
) -> None:
    """sqlite_utils imports pandas and numpy whenever they are installed (~0.35 s); tally's
    rows need neither, so writing the SQLite archive and reading it back import neither."""
    from tally.cli import app

    from .conftest import Runner

    vote, offline = sample_cached
    heavy = ["pandas", "numpy", "sqlite_utils"]
    db, csv = str(tmp_path / "games.sqlite"), str(tmp_path / "posts.csv")
    game = offline[:2]
    # The CSV file first, written here: read with the standard library's csv, it imports none.
    done = Runner().invoke(app, ["archive", *offline, "-o", csv, "-q"])
    assert done.exit_code == 0, done.output
    runs = [["votes", vote, *game, "--archive", csv, "--json"],
            ["archive", *offline, "-o", csv, "--db", db, "-q"],
            ["votes", vote, *game, "--archive", db, "--json"]]  # fmt: skip
    assert imports_of(runs, heavy, tmp_path) == [[], ["sqlite_utils"], ["sqlite_utils"]]


@pytest.mark.slow  # python in another process
def test_pandas_kept_out_of_sqlite_utils_is_imported_as_ever_after_it() -> None:
    """The Database tally opens is sqlite_utils's own; pandas and numpy, kept out while
    sqlite_utils is imported, import as ever afterwards, and a process that imported pandas
    first (a program that embeds tally) gives it to sqlite_utils as before."""
    import subprocess
    import sys

    from .conftest import child_env

    code = (
        "import sys, tempfile\n"
        "from pathlib import Path\n"
        "if sys.argv[1] == 'first':\n"
        "    import pandas\n"
        "from tally.records import database\n"
        "with tempfile.TemporaryDirectory() as folder:\n"
        "    db = database(Path(folder) / 'a.sqlite')\n"
        "    db['t'].insert({'n': 1, 's': 'x'})\n"
        "    print(list(db['t'].rows), type(db).__module__)\n"
        "    db.close()\n"
        "print('pandas' in sys.modules, 'numpy' in sys.modules)\n"
        "import sqlite_utils.db, pandas, numpy\n"
        "print(sqlite_utils.db.pd is pandas, sqlite_utils.db.np is numpy)\n"
    )
    outs = {}
    for when in ("after", "first"):
        done = subprocess.run(
            [sys.executable, "-c", code, when], env=child_env(), capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outs[when] = done.stdout.splitlines()
    rows = "[{'n': 1, 's': 'x'}] sqlite_utils.db"
    assert outs["after"] == [rows, "False False", "False False"]
    assert outs["first"] == [rows, "True True", "True True"]


def test_a_library_is_imported_without_a_part_it_does_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tally.imports: the part fails to import while the library is imported, as a missing
    one would, and imports as ever afterwards; a part imported already is the library's."""
    import importlib
    import sys

    from tally.imports import import_without

    name = f"lib_{tmp_path.name.replace('-', '_')}"  # a name no other test imported
    for suffix in ("", "_other"):
        (tmp_path / f"{name}{suffix}.py").write_text(
            f"try:\n    import {name}_part as part\nexcept ImportError:\n    part = None\n"
        )
    (tmp_path / f"{name}_part.py").write_text("PART = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in (name, f"{name}_other", f"{name}_part"):  # out of sys.modules at the end
        monkeypatch.setitem(sys.modules, module, None)  # type: ignore[arg-type]
        monkeypatch.delitem(sys.modules, module)
    assert import_without(name, [f"{name}_part"]) is True
    assert sys.modules[name].part is None and f"{name}_part" not in sys.modules
    assert import_without(name, [f"{name}_part"]) is False  # imported already: as it is
    part = importlib.import_module(f"{name}_part")
    assert part.PART == 1
    assert import_without(f"{name}_other", [f"{name}_part"]) is True
    assert sys.modules[f"{name}_other"].part is part


def test_a_part_kept_out_of_a_library_imports_in_another_thread_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tally.imports keeps the part out of the library's own import alone: another thread
    of the process (a program that embeds tally, or tally's own pool) importing it while
    the library is imported imports it, as it would a moment before or after."""
    import importlib
    import sys
    import threading
    import types

    from tally.imports import import_without

    name = f"lib_{tmp_path.name.replace('-', '_')}"  # a name no other test imported
    sync = types.ModuleType(f"{name}_sync")
    sync.inside, sync.go = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    (tmp_path / f"{name}.py").write_text(
        f"try:\n    import {name}_part as part\nexcept ImportError:\n    part = None\n"
        f"import {name}_sync as sync\nsync.inside.set()\nsync.go.wait(10)\n"
    )
    (tmp_path / f"{name}_part.py").write_text("PART = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in (name, f"{name}_part"):  # out of sys.modules at the end
        monkeypatch.setitem(sys.modules, module, None)  # type: ignore[arg-type]
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, sync.__name__, sync)
    library = threading.Thread(target=import_without, args=(name, [f"{name}_part"]))
    library.start()
    try:
        assert sync.inside.wait(10)  # type: ignore[attr-defined]
        part = importlib.import_module(f"{name}_part")  # while the library is imported
    finally:
        sync.go.set()  # type: ignore[attr-defined]
        library.join(10)
    assert part.PART == 1 and sys.modules[f"{name}_part"] is part
    assert sys.modules[name].part is None  # kept out of the library's import all the same


def test_a_threads_writings_are_made_once_and_it_holds_its_fields_alone() -> None:
    """Thread.writings is walked a few dozen times a count: made once a thread, kept apart
    from it (its ``__dict__`` is its fields, so ``Thread(**vars(t))`` is still a copy)."""
    import dataclasses
    from zoneinfo import ZoneInfo

    from tally.forums.built import read_saved_thread_files
    from tally.model import Thread

    [thread] = read_saved_thread_files(sorted(FIXTURES.glob("vote-p*.html")), ZoneInfo("Asia/Shanghai"))
    first = list(thread.writings())
    assert len(first) == len(thread.posts) + sum(len(p.comments) for p in thread.posts) > 16
    assert all(a is b for a, b in zip(first, thread.writings(), strict=True))
    floors = list(thread.writings(comments=False))
    assert [w.item_id for w in floors] == [p.post_id for p in thread.posts]
    assert [w for w in first if w.comment_index is None] == floors
    assert set(vars(thread)) == {f.name for f in dataclasses.fields(thread)}
    copy = Thread(**vars(thread))
    assert copy == thread and list(copy.writings()) == first
    assert not any(a is b for a, b in zip(first, copy.writings(), strict=True))


def test_came_in_walks_a_watchs_history_a_few_times_not_once_a_read() -> None:
    """A watch counts at each poll, its history the pages of hundreds of reads (each poll
    reads the last page, the rest held). A floor merged in that none of those reads showed
    (it stands on a page they held) made ``came_in_since`` walk the history's versions for
    every page of every read after it: 517 walks for these 250 reads, 11 now (1,079 reads
    of a 500-floor thread: 179 ms a count, 8 now)."""
    from collections.abc import Iterator
    from dataclasses import replace as swap
    from datetime import timedelta

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    class Walked(tuple[Version, ...]):
        walks = 0

        def __iter__(self) -> Iterator[Version]:
            Walked.walks += 1
            return super().__iter__()

    t = T()
    for i in range(99):
        t.post(["甲", "乙", "丙", "丁"][i % 4], "08 09:31", vote("甲"))
    posts = tuple(swap(p, time=at("08 09:31") + timedelta(minutes=4 * i), page=i // 20 + 1)
                  if p.floor > 1 else p for i, p in enumerate(t.posts))  # fmt: skip
    merged = swap(posts[39], post_id="900", floor=40, time=posts[39].time + timedelta(seconds=9))
    now = (*posts[:40], merged, *(swap(p, floor=p.floor + 1) for p in posts[40:]))
    polls = [at("08 09:31") + timedelta(minutes=2 * k) for k in range(250)]
    reads = [Version(max(p.page for p in posts if p.time <= when), when, (), f"r{k}")
             for k, when in enumerate(polls)]  # fmt: skip
    reads = [swap(v, posts=tuple(p for p in posts if p.page == v.page and p.time <= v.read_at))
             for v in reads]  # fmt: skip
    last = at("09 21:40")
    final = [Version(n, last, tuple(p for p in now if (p.floor - 1) // 20 + 1 == n), "end")
             for n in range(1, 6)]  # fmt: skip
    history = History(Walked((*reads, *final)))
    thread = swap(t.thread(), posts=now, history=history, read_at=last)
    tally_day(thread, game(), 2)
    assert Walked.walks < 40
