"""Hostile and unlucky input, part 3: archives that mix two boards or two games up, archives
edited or cut, a post longer than the csv module reads by default, a database written
before the keys it has now. Each case failed on the main of issue 24 (a wrong result with
exit 0, or a traceback) and is an exact result or one sentence now."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tally.cli import app
from tally.errors import InputError
from tally.forums.archived import archive_kind, read_archive

from . import test_archive_record
from .conftest import read_csv
from .discuzgen import P
from .localforums import local_forum
from .test_archive_record import columns, env_after_close, resave, run, runner
from .test_counting_whole_day import game_file, vote_thread

# The fixture of test_archive_record: day 2 archived to a CSV, and its count from the forum.
archived = test_archive_record.archived


def game_in(folder: Path, url: str) -> str:
    folder.mkdir()
    return game_file(folder, url)


def refused(env, source: Path, game: str, says: str) -> None:
    result = runner.invoke(app, ["votes", str(source), "--game", game, "--json"], obj=env)
    assert result.exit_code == 2, result.output
    assert says in result.stderr and result.stderr.count("\n") == 1, result.stderr


def csv_lines(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8-sig").split("\r\n")


# -- two boards, two games ----------------------------------------------------------------


def test_thread_23_of_two_boards_are_two_threads_in_the_database(forum, tmp_path):
    """The same thread id on two boards: the database keeps both, each re-tallies to its own
    board's result (the second used to overwrite the first, or mark its posts gone)."""
    env = env_after_close(tmp_path)
    db = tmp_path / "games.sqlite"
    first = vote_thread()
    url_a = first.serve(forum)
    with local_forum() as other:
        second = vote_thread()
        # Board B: 冷月's ballot names 长夜, not 白桃.
        second.posts[1] = P("冷月", "2024-05-08 10:01:00", "投票对象：长夜\n投票理由：换人")
        url_b = second.serve(other)
        game_a, game_b = game_in(tmp_path / "a", url_a), game_in(tmp_path / "b", url_b)
        live_a = run(env, "votes", url_a, "--game", game_a, "--json", "-q")
        live_b = run(env, "votes", url_b, "--game", game_b, "--json", "-q")
        run(env, "archive", "--game", game_a, "--db", str(db), "-q")
        run(env, "archive", "--game", game_b, "--db", str(db), "-q")
    assert live_a != live_b
    with sqlite3.connect(db) as conn:
        origins = {r[0] for r in conn.execute("select origin from threads")}
        assert len(origins) == 2 and conn.execute("select count(*) from games").fetchone()[0] == 2
    forum.routes.clear()  # from the database alone
    assert run(env, "votes", str(db), "--game", game_a, "--json") == live_a
    assert run(env, "votes", str(db), "--game", game_b, "--json") == live_b


def test_two_games_of_one_name_are_two_records(forum, tmp_path):
    env = env_after_close(tmp_path)
    db = tmp_path / "games.sqlite"
    url = vote_thread().serve(forum)
    one = game_in(tmp_path / "a", url)
    two = Path(game_in(tmp_path / "b", url))
    two.write_text(two.read_text("utf-8").replace('name = "测试局"', 'name = "测试局"\nid = "rematch"'), "utf-8")
    run(env, "archive", "--game", one, "--db", str(db), "-q")
    run(env, "archive", "--game", str(two), "--db", str(db), "-q")
    with sqlite3.connect(db) as conn:
        games = conn.execute("select game_id, game from games order by game_id").fetchall()
        assert [name for _, name in games] == ["测试局", "测试局"]
        assert "rematch" in {gid for gid, _ in games}
        days = conn.execute("select count(distinct game_id) from days").fetchone()[0]
        assert days == 2


def test_a_database_of_the_last_version_is_brought_up_to_its_keys(forum, tmp_path):
    """A database written before origin and game_id: migrated on the next write, its
    rows kept, the game's rows taken over by the game's own id."""
    env = env_after_close(tmp_path)
    db = tmp_path / "old.sqlite"
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    run(env, "archive", "--game", game, "--db", str(db), "-q")
    # Make it what the last version wrote: no origin, games keyed by name.
    with sqlite3.connect(db) as conn:
        for table in ("threads", "posts"):
            cols = [r[1] for r in conn.execute(f"pragma table_info({table})") if r[1] != "origin"]
            conn.execute(f"create table {table}_old as select {', '.join(chr(34) + c + chr(34) for c in cols)} from {table}")
            conn.execute(f"drop table {table}")
            conn.execute(f"alter table {table}_old rename to {table}")
        for table in ("games", "days", "ballots", "totals"):
            cols = [r[1] for r in conn.execute(f"pragma table_info({table})") if r[1] != "game_id"]
            conn.execute(f"create table {table}_old as select {', '.join(chr(34) + c + chr(34) for c in cols)} from {table}")
            conn.execute(f"drop table {table}")
            conn.execute(f"alter table {table}_old rename to {table}")
        before = conn.execute("select count(*) from posts").fetchone()[0]
    assert "origin" not in columns(db, "posts")
    run(env, "archive", "--game", game, "--db", str(db), "-q")
    assert "origin" in columns(db, "posts") and "game_id" in columns(db, "ballots")
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from posts").fetchone()[0] == before
        [(origin,)] = conn.execute("select distinct origin from threads").fetchall()
        assert origin.startswith("127.0.0.1:")
        ids = {r[0] for r in conn.execute("select game_id from ballots")}
        assert len(ids) == 1 and ids != {"测试局"}  # the game's own id now
        assert conn.execute("select count(*) from games").fetchone()[0] == 1


# -- archives edited or damaged ------------------------------------------------------------


def test_a_ballot_row_deleted_is_refused_as_a_live_read_would_be(archived):
    """Floor 2's ballot gone from the CSV: the thread's reply count says a floor is missing
    (it used to be tallied, naming another player)."""
    csv_path, game, env, _, _ = archived
    lines = csv_lines(csv_path)
    kept = [line for line in lines if not line.startswith("discuz,102,2002,,")]
    assert len(kept) == len(lines) - 1
    refused(env, resave(csv_path, "\r\n".join(kept)), game, "says it has 20 replies but the archive holds 17")


def test_a_comment_row_deleted_is_refused(archived):
    csv_path, game, env, _, _ = archived
    lines = csv_lines(csv_path)
    kept = [line for line in lines if not line.startswith("discuz,102,2004.1,")]
    assert len(kept) == len(lines) - 1
    refused(env, resave(csv_path, "\r\n".join(kept)), game, "had 1 点评/楼中楼 when archived, the archive holds 0")


def test_a_comment_relabelled_as_a_post_is_refused(archived):
    csv_path, game, env, _, _ = archived
    text = "\r\n".join(csv_lines(csv_path))
    start = text.index("discuz,102,2004.1,2004,")
    line_end = text.index("\r\n", start)
    line = text[start:line_end].replace("discuz,102,2004.1,2004,", "discuz,102,2004.1,,", 1)
    line = line.replace(",comment,", ",post,", 1)
    edited = resave(csv_path, text[:start] + line + text[line_end:])
    refused(env, edited, game, "both claim floor 4")


def test_a_csv_cut_in_its_last_row_is_refused(archived):
    csv_path, game, env, _, _ = archived
    text = csv_path.read_bytes().decode("utf-8-sig").rstrip("\r\n")
    cut = resave(csv_path, text[: text.rindex(",", 0, len(text) - 40)])
    refused(env, cut, game, "fewer cells than columns")


def test_a_csv_whose_last_row_is_gone_is_refused(archived):
    csv_path, game, env, _, _ = archived
    lines = [line for line in csv_lines(csv_path) if line]
    refused(env, resave(csv_path, "\r\n".join(lines[:-1])), game, "the archive holds")


def test_a_csv_with_its_columns_in_any_order_reads(archived):
    """A script that wrote the columns sorted: still tally's archive, still the same count."""
    csv_path, game, env, expected, _ = archived
    rows = read_csv(csv_path)
    import csv as stdcsv
    import io

    buffer = io.StringIO()
    writer = stdcsv.DictWriter(buffer, fieldnames=sorted(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    moved = resave(csv_path, buffer.getvalue())
    assert archive_kind(moved) == "csv"
    assert run(env, "votes", str(moved), "--game", game, "--json") == expected


def test_a_post_longer_than_128_kib_goes_and_comes_back(forum, tmp_path):
    """What the writer writes, the reader reads: a 200,000-character post (the csv module
    refuses cells over 131,072 characters unless told)."""
    t = vote_thread()
    long_text = "长" * 200_000
    t.posts[12] = P("小鹿", "2024-05-08 16:30:00", long_text)
    url = t.serve(forum)
    env = env_after_close(tmp_path)
    csv_path = tmp_path / "long.csv"
    run(env, "archive", url, "-o", str(csv_path), "-q")
    [thread] = read_archive(csv_path)
    assert thread.posts[12].text == long_text


def test_rows_of_one_thread_that_disagree_are_refused(archived):
    csv_path, game, env, _, _ = archived
    lines = csv_lines(csv_path)
    # One row's thread title edited: two threads under one key, or a hand edit.
    lines[3] = lines[3].replace("[测试局] 第二天投票帖", "[测试局] 第三天投票帖")
    refused(env, resave(csv_path, "\r\n".join(lines)), game, "disagree on thread_title")


def test_an_archive_read_as_a_library_call_is_checked_too(archived):
    csv_path, *_ = archived
    lines = [line for line in csv_lines(csv_path) if not line.startswith("discuz,102,2002,,")]
    with pytest.raises(InputError, match="the archive holds 17"):
        read_archive(resave(csv_path, "\r\n".join(lines)))
