"""`tally archive`: the CSV of shared CONTRACT.md, through the real CLI and real HTTP."""

from __future__ import annotations

import pytest

from tally.cli import app
from tally.csvfile import neutralise, restore
from tally.records import COLUMNS

from .conftest import CONTRACT_COLUMNS, DISCUZ, Runner, read, read_csv

runner = Runner()


def test_archive_vote_thread(forum, tmp_path):
    forum.add_discuz_thread("23", DISCUZ, "vote")
    out = tmp_path / "posts.csv"
    result = runner.invoke(
        app, ["archive", forum.url("forum.php?mod=viewthread&tid=23"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "wrote 18 rows from 1 thread(s), 2 page(s)" in result.stderr
    rows = read_csv(out)
    assert list(rows[0].keys())[:10] == CONTRACT_COLUMNS
    assert list(rows[0].keys()) == list(COLUMNS)
    assert len(rows) == 16 + 2
    first = rows[0]
    assert (
        first["platform"] == "discuz" and first["thread_id"] == "23" and first["post_id"] == "952"
    )
    assert first["time"] == "2023-03-14T09:30:00+08:00" and first["parent_post_id"] == ""
    # The 点评 under floor 5 follow it, oldest first, with the floor's post id as parent.
    floor5 = [r for r in rows if r["floor"] == "5"]
    assert [(r["kind"], r["author"], r["parent_post_id"], r["time"]) for r in floor5] == [
        ("post", "小鹿", "", "2023-03-14T12:00:00+08:00"),
        ("comment", "小鹿", "956", "2023-03-14T15:00:00+08:00"),
        ("comment", "阿澈", "956", "2023-03-14T15:10:00+08:00"),
    ]
    quote_reply = next(r for r in rows if r["post_id"] == "961")
    assert quote_reply["text"] == "改票对象：白桃\n改票理由：被说服了"
    assert quote_reply["quotes"] == "954"
    edited = next(r for r in rows if r["post_id"] == "959")
    assert (edited["edited_at"], edited["edited_by"]) == ("2023-03-15T21:05:00+08:00", "阿澈")
    red = next(r for r in rows if r["post_id"] == "960")
    assert red["red_font"] == "1"
    # pandas, as a director's script would read it (imported here: the one test that does)
    import pandas as pd

    frame = pd.read_csv(out, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    assert frame.shape == (18, len(COLUMNS))
    assert (
        frame.loc[frame.post_id == "963", "text"].item()
        == "投票对象：月 影\n投票理由：名字中间有空格"
    )


def test_the_archive_and_the_ledger_are_the_bytes_pandas_wrote(forum, tmp_path):
    """pandas wrote these files until the standard library's csv took over (a third of a
    second of every run that writes one): the archive of the sample game's two threads,
    their 点评 with them, and a ledger, byte for byte as pandas' to_csv writes them from the
    same rows after the same cleaning. But one thing: pandas made a column holding blanks
    beside whole numbers a column of floats, and so wrote a floor's count of 点评 as "2.0"
    in a thread with 点评 (a 点评's own row leaves it blank) and as "2" in one without; it
    is "2" in both now (tally reads either back)."""
    import pandas as pd

    from tally.forums.archived import read_archive
    from tally.outputs.written.archive import to_csv_bytes
    from tally.outputs.written.cardfile import save
    from tally.records import rows
    from tally.rules.cards.ledger import Card, Colour
    from tally.sanitise import one_line, text_block

    def by_pandas(table: list[dict[str, object]], columns: list[str], multiline=()) -> bytes:
        frame = pd.DataFrame(table, columns=columns, dtype=object)
        for column in frame.columns:
            clean = text_block if column in multiline else one_line
            frame[column] = frame[column].map(
                lambda v, clean=clean: neutralise(clean(v)) if isinstance(v, str) else v
            )
        return ("\ufeff" + frame.to_csv(index=False, lineterminator="\r\n")).encode("utf-8")

    forum.add_discuz_thread("23", DISCUZ, "vote")
    forum.add_discuz_thread("24", DISCUZ, "talk")
    threads = read([forum.url(f"forum.php?mod=viewthread&tid={t}") for t in ("23", "24")])
    table = rows(threads)
    assert len(table) > 30 and any(r["kind"] == "comment" for r in table)
    blanks = [{k: "" if v is None else v for k, v in row.items()} for row in table]
    assert to_csv_bytes(threads) == by_pandas(blanks, list(COLUMNS), ("text",))
    (tmp_path / "posts.csv").write_bytes(to_csv_bytes(threads))
    counts = {r["comments"] for r in read_csv(tmp_path / "posts.csv") if r["kind"] == "post"}
    assert "2" in counts and not any("." in c for c in counts)
    # An archive an earlier tally wrote ("2.0") reads back as the same threads.
    (tmp_path / "old.csv").write_bytes(by_pandas(table, list(COLUMNS), ("text",)))
    old = {r["comments"] for r in read_csv(tmp_path / "old.csv") if r["kind"] == "post"}
    assert "2.0" in old and "0.0" in old
    assert read_archive(tmp_path / "old.csv") == read_archive(tmp_path / "posts.csv")
    assert [t.posts for t in read_archive(tmp_path / "posts.csv")] == [t.posts for t in threads]

    cards = [Card(2, "白桃", Colour.YELLOW, "L1", "=第2天发言3条"),
             Card(3, "Mika🐺", Colour.RED, "K1", '三张黄牌, "合并"\n下一行', "director")]  # fmt: skip
    save(tmp_path / "g.cards.csv", cards)
    ledger = [{"day": c.day, "player": c.player, "colour": c.colour, "rule": c.rule,
               "reason": c.reason, "source": c.source} for c in cards]  # fmt: skip
    columns = ["day", "player", "colour", "rule", "reason", "source"]
    assert (tmp_path / "g.cards.csv").read_bytes() == by_pandas(ledger, columns)


def test_archive_whole_game(tmp_path):
    from tally.demo import sample_game, sample_game_text

    out = tmp_path / "game.csv"
    with sample_game() as (_game, _forum):
        game_file = tmp_path / "game.toml"
        game_file.write_text(sample_game_text(_forum.base), encoding="utf-8")
        result = runner.invoke(app, ["archive", "--game", str(game_file), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = read_csv(out)
    assert {r["thread_id"] for r in rows} == {"23", "24"}
    assert len(rows) == (16 + 2) + (65 + 1)


def test_formula_cells_are_neutralised(forum, tmp_path):
    body = (DISCUZ / "progress-p1.html").read_text(encoding="utf-8")
    body = body.replace("申请加速+1", '=HYPERLINK("http://evil")').replace("申请加速<", "＋1<", 1)
    body = body.replace(">月影</a>", ">@月影</a>")
    forum.add_discuz_page("26", 1, body.encode())
    out = tmp_path / "p.csv"
    result = runner.invoke(app, ["archive", forum.url("thread-26-1-1.html"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = read_csv(out)
    texts = [r["text"] for r in rows]
    assert '\'=HYPERLINK("http://evil")' in texts
    assert "'＋1" in texts  # full-width plus is a plus after NFKC
    assert "'@月影" in {r["author"] for r in rows}
    assert "需要加速请在本帖回复。" in texts


@pytest.mark.parametrize(
    "value,expected",
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("＝1", "'＝1"),
        ("＠x", "'＠x"),
        ("投票", "投票"),
        ("", ""),
        ("a=1", "a=1"),
        ("'=1", "''=1"),  # the apostrophe itself: one more, so that restore tells them apart
        ("'x", "''x"),
    ],
)
def test_neutralise(value, expected):
    assert neutralise(value) == expected
    assert restore(expected) == value


def test_failed_run_leaves_old_file_and_no_partial(forum, tmp_path):
    forum.add_discuz_thread("24", DISCUZ, "talk")
    del forum.routes["discuz:24:6"]
    out = tmp_path / "posts.csv"
    out.write_text("old", encoding="utf-8")
    result = runner.invoke(app, ["archive", forum.url("thread-24-1-1.html"), "-o", str(out)])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and "page=6 answered HTTP 404" in result.stderr
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["posts.csv"]


def test_an_output_folder_that_does_not_exist_stops_before_any_download(forum, tmp_path):
    forum.add_discuz_thread("23", DISCUZ, "vote")
    out = tmp_path / "no-such-folder" / "posts.csv"
    result = runner.invoke(app, ["archive", forum.url("thread-23-1-1.html"), "-o", str(out)])
    assert result.exit_code == 2
    assert "the folder" in result.stderr and "does not exist" in result.stderr
    assert not out.parent.exists()
    assert forum.page_requests == []  # checked before anything was fetched


def test_write_failure_is_one_sentence(forum, tmp_path):
    forum.add_discuz_thread("23", DISCUZ, "vote")
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / "posts.csv"
    out.mkdir()  # a folder where the file should go: the write itself fails
    from tally.atomic import write_atomic
    from tally.errors import OutputError

    with pytest.raises(
        OutputError, match=r"^cannot write .*posts\.csv \(Is a directory\)\.$"
    ) as info:
        write_atomic(out, b"x")
    assert info.value.exit_code == 6  # type: ignore[attr-defined]


def test_archive_without_sources():
    result = runner.invoke(app, ["archive", "-o", "x.csv"])
    assert result.exit_code == 2
    assert "give at least one thread URL" in result.stderr


def test_archive_saved_files(tmp_path):
    out = tmp_path / "saved.csv"
    result = runner.invoke(
        app, ["archive", str(DISCUZ / "vote-p1.html"), str(DISCUZ / "vote-p2.html"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert len(read_csv(out)) == 18


@pytest.mark.slow
def test_times_are_in_the_forums_zone_everywhere(forum, tmp_path):
    """The run's clock is UTC (as the system's is); what tally writes of it (when a thread
    was read, when a post went missing, when the report was made) is in the forum's zone,
    as the posts' own times are: S2."""
    import json
    import sqlite3
    from datetime import UTC, datetime

    from .conftest import FakeClock
    from .test_counting_whole_day import game_file, vote_thread

    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    clock = FakeClock(datetime(2024, 5, 9, 14, 0, tzinfo=UTC))  # 22:00 in China
    out, db = tmp_path / "posts.csv", tmp_path / "game.sqlite"
    result = runner.invoke(app, ["archive", url, "-o", str(out), "--db", str(db), "--game", game],
                           obj=clock.env())  # fmt: skip
    assert result.exit_code == 0, result.output
    read = {r["thread_read_at"] for r in read_csv(out)}
    assert read == {"2024-05-09T22:00:00+08:00"}
    with sqlite3.connect(db) as con:
        [(when,)] = con.execute("select read_at from threads").fetchall()
    assert when == "2024-05-09T22:00:00+08:00"
    votes = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"], obj=clock.env())
    assert json.loads(votes.stdout)["as_of"] == "2024-05-09T22:00:00+08:00"
    report = tmp_path / "report.html"
    made = runner.invoke(app, ["report", "--game", game, "-o", str(report)], obj=clock.env())
    assert made.exit_code == 0, made.output
    assert "生成于 2024-05-09 22:00" in report.read_text(encoding="utf-8")
