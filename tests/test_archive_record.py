"""Archives as sources, and the SQLite archive: a game archived from a loopback forum
re-tallies from the CSV and from the database exactly as from the forum; a second `--db`
run changes no row; a CSV a spreadsheet re-saved still reads, or fails with a sentence."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tally.cli import app
from tally.environment import Environment, HttpOptions

from . import test_cards_lurkers
from .conftest import FOLDERS, FakeClock, Runner, read_csv
from .discuzgen import Comment, P
from .localforums import local_forum
from .test_counting_whole_day import game_file, vote_thread

runner = Runner()


def env_after_close(tmp_path: Path, **folders: Path) -> Environment:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    # The forum is stopped in these tests: one attempt, no retries to wait for. The times of
    # the reads are compared to the second with the archive's: no politeness gap moves the
    # clock between them.
    now = datetime(2024, 5, 20, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    return FakeClock(now).env(http=HttpOptions(attempts=1, host_delay=0), **folders)


def run(env: Environment, *args: str) -> str:
    result = runner.invoke(app, list(args), obj=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def columns(db: Path, table: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[1] for r in conn.execute(f"pragma table_info({table})")]


def everything(db: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type='table'")]
        return {t: sorted(conn.execute(f"select * from {t}").fetchall(), key=repr) for t in tables}


@pytest.mark.slow
def test_a_four_day_game_re_tallies_from_its_archives(forum, tmp_path):
    game, _ledger = test_cards_lurkers.setup(forum, tmp_path)
    env = env_after_close(tmp_path)
    csv_path, db = tmp_path / "game.csv", tmp_path / "game.sqlite"
    run(env, "archive", "--game", str(game), "-o", str(csv_path), "--db", str(db), "-q")
    toml = game.read_text(encoding="utf-8")
    urls = {
        day: toml.split(f"day = {day}\n")[1].split('vote = "')[1].split('"')[0]
        for day in (1, 2, 3, 4)
    }
    from_forum = {
        day: run(env, "votes", urls[day], "--game", str(game), "--json", "-q") for day in urls
    }
    lurk_forum = {
        day: run(
            env, "lurkers", "--game", str(game), "--day", str(day), "--json", "--no-write", "-q"
        )
        for day in (3, 4)
    }
    # The forum is gone, and so is the cache: only the archives are left.
    forum.routes.clear()
    forum.requests.clear()
    shutil.rmtree(FOLDERS.cache)
    for day, url in urls.items():
        from_csv = run(
            env, "votes", str(csv_path), "--game", str(game), "--day", str(day), "--json"
        )
        from_db = run(env, "votes", url, "--game", str(game), "--archive", str(db), "--json")
        assert from_csv == from_forum[day] == from_db, day
    for day, expected in lurk_forum.items():
        args = ["lurkers", "--game", str(game), "--day", str(day), "--json", "--no-write"]
        assert run(env, *args, "--archive", str(csv_path)) == expected
        assert run(env, *args, "--archive", str(db)) == expected
    assert forum.requests == []


def test_a_rich_vote_thread_round_trips_ballot_for_ballot(forum, tmp_path):
    """点评 changes, quotes, reply links, an edit mark, a dead voter and a proxy vote."""
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    env = env_after_close(tmp_path)
    expected = run(env, "votes", url, "--game", game, "--json", "-q")
    csv_path, db = tmp_path / "day2.csv", tmp_path / "day2.sqlite"
    run(env, "archive", url, "-o", str(csv_path), "--db", str(db), "-q")
    forum.routes.clear()
    shutil.rmtree(FOLDERS.cache)
    assert run(env, "votes", str(csv_path), "--game", game, "--json") == expected
    assert run(env, "votes", str(db), "--game", game, "--json") == expected
    data = json.loads(expected)
    statuses = {b["status"] for b in data["ballots"]}
    assert statuses == {"counted", "superseded", "void", "not_a_ballot"}
    # The announcement from the archive links the same floors.
    text = run(env, "announce", "--game", game, "--day", "2", "--archive", str(csv_path))
    assert "[url=" in text and "长夜" in text


def test_a_second_db_run_changes_no_row_and_a_grown_thread_adds_only_the_new(forum, tmp_path):
    t = vote_thread()
    url = t.serve(forum)
    game = game_file(tmp_path, url)
    env = env_after_close(tmp_path)
    db = tmp_path / "games.sqlite"
    first = runner.invoke(app, ["archive", "--game", game, "--db", str(db)], obj=env)
    assert first.exit_code == 0, first.output
    assert not (tmp_path / "posts.csv").exists()  # --db alone writes no CSV
    assert "ballots of day(s) 2" in first.stderr
    before = everything(db)
    again = runner.invoke(app, ["archive", "--game", game, "--db", str(db), "--fresh"], obj=env)
    assert "0 rows added, 0 updated, 0 posts gone from the forum" in again.stderr
    assert everything(db) == before

    t.add(P("白桃", "2024-05-10 09:00:00", "复盘：我是好人"))  # 20
    t.posts[1].comments.append(Comment("冷月", "2024-05-10 09:05", "复盘"))
    t.serve(forum)
    grown = runner.invoke(app, ["archive", "--game", game, "--db", str(db), "--fresh"], obj=env)
    assert grown.exit_code == 0, grown.output
    after = everything(db)
    post_id = columns(db, "posts").index("post_id")
    new_posts = {r[post_id] for r in after["posts"]} - {r[post_id] for r in before["posts"]}
    assert new_posts == {"2020", "2002.1"}  # the floor, the 点评
    # Floor 2 has a 点评 more (its comments count); every other row is as it was.
    changed = set(before["posts"]) - set(after["posts"])
    assert {r[post_id] for r in changed} == {"2002"}
    # Nothing after the close counts: the two new posts are listed as no ballot, and every
    # ballot is as it was.
    ballot_id, status = (columns(db, "ballots").index(c) for c in ("post_id", "status"))
    added = set(after["ballots"]) - set(before["ballots"])
    assert {(r[ballot_id], r[status]) for r in added} == {
        ("2020", "not_a_ballot"), ("2002.1", "not_a_ballot"),
    }  # fmt: skip
    assert set(before["ballots"]) <= set(after["ballots"])

    with sqlite3.connect(db) as conn:
        whom = conn.execute(
            "select voter, target from ballots where day = 2 and status = 'counted' "
            "and kind != 'abstain' order by floor"
        ).fetchall()
        assert ("冷月", "白桃") in whom and ("白桃", "长夜") in whom  # the proxy for 白桃
        [(title, pages)] = conn.execute("select title, pages from threads").fetchall()
        assert title == "[测试局] 第二天投票帖" and pages == 2


def test_a_post_the_forum_deleted_stays_in_the_record_marked_gone(forum, tmp_path):
    t = vote_thread()
    url = t.serve(forum)
    env = env_after_close(tmp_path)
    db = tmp_path / "games.sqlite"
    run(env, "archive", url, "--db", str(db), "-q")
    del t.posts[12]  # floor 13 (Mika's quote) is deleted: the floors after it move up
    t.serve(forum)
    run(env, "archive", url, "--db", str(db), "-q", "--fresh")
    with sqlite3.connect(db) as conn:
        gone = conn.execute("select post_id from posts where gone_at is not null").fetchall()
    # Generated pages number posts by floor: every floor from 13 on has a new post id now.
    assert ("2019",) in gone


def resave(path: Path, text: str, encoding: str = "utf-8-sig", name: str = "resaved.csv") -> Path:
    out = path.with_name(name)
    out.write_bytes(text.encode(encoding))
    return out


@pytest.fixture(scope="module")
def archived(tmp_path_factory):
    """Day 2's vote thread archived to a CSV, with its count and URL, made once a module for
    the tests that read the CSV back: each writes its changed copy beside it (``resave``),
    never the CSV nor the game file; the run's folders are the module's own."""
    tmp_path = tmp_path_factory.mktemp("archived")
    with local_forum() as forum:
        url = vote_thread().serve(forum)
        game = game_file(tmp_path, url)
        env = env_after_close(tmp_path, config_dir=tmp_path / "config", cache_dir=tmp_path / "cache")
        csv_path = tmp_path / "day2.csv"
        run(env, "archive", url, "-o", str(csv_path), "-q")
        expected = run(env, "votes", url, "--game", game, "--json", "-q")
        yield csv_path, game, env, expected, url


def test_a_csv_a_spreadsheet_re_saved_still_reads(archived):
    csv_path, game, env, expected, _ = archived
    text = csv_path.read_bytes().decode("utf-8-sig")
    # Excel's "CSV" in a Chinese locale: GB18030, no byte-order mark, every cell quoted.
    rows = read_csv(csv_path)
    columns = list(rows[0])
    import csv as stdcsv
    import io

    buffer = io.StringIO()
    writer = stdcsv.DictWriter(buffer, fieldnames=columns[::-1], quoting=stdcsv.QUOTE_ALL)
    writer.writeheader()
    writer.writerows(rows)
    # Each in a file of its own: one name for both, and the second overwrote the first
    # before either was read (the GB18030 copy was never counted).
    for variant in (
        resave(csv_path, buffer.getvalue(), "gb18030", "excel-gb18030.csv"),
        resave(csv_path, text, "utf-8", "no-bom.csv"),
    ):
        assert run(env, "votes", str(variant), "--game", game, "--json") == expected


@pytest.mark.parametrize(
    "edit,says",
    [
        (
            lambda t: t.replace("2024-05-08T10:01:00+08:00", "2024/5/8 10:01", 1),
            "row 3: time is '2024/5/8 10:01', not the time tally wrote",
        ),
        (
            lambda t: t.replace(",2002,", ",2.0E+03,", 1),
            "row 3: post_id is '2.0E+03', a number a spreadsheet shortened",
        ),
        (
            lambda t: t.replace(",thread_missing", ",missing_what", 1),
            "lacks the column(s) thread_missing",
        ),
    ],
)
def test_a_csv_that_cannot_be_read_back_is_one_sentence(archived, edit, says):
    csv_path, game, env, _, _ = archived
    broken = resave(csv_path, edit(csv_path.read_bytes().decode("utf-8-sig")))
    result = runner.invoke(app, ["votes", str(broken), "--game", game, "--json"], obj=env)
    assert result.exit_code == 2, result.output
    assert says in result.stderr and result.stderr.count("\n") == 1


def test_an_archive_lacking_what_the_day_needs_names_it(archived):
    csv_path, game, env, _, url = archived
    text = csv_path.read_bytes().decode("utf-8-sig")
    lines = text.split("\r\n")
    # Drop the rows of page 2 (floors 11-19): the archive is incomplete.
    kept = [line for line in lines if ",2,0," not in line and ",2,1," not in line]
    assert len(kept) < len(lines)
    partial = resave(csv_path, "\r\n".join(kept))
    result = runner.invoke(app, ["votes", str(partial), "--game", game], obj=env)
    assert result.exit_code == 2 and "holds no post of page(s) 2 of thread 102" in result.stderr
    other = url.replace("tid=102", "tid=999")  # the same forum's thread 999
    result = runner.invoke(
        app, ["votes", other, "--game", game, "--day", "2", "--archive", str(csv_path)], obj=env
    )
    assert result.exit_code == 2 and "holds no thread 999" in result.stderr
