"""The thread as the forum changes it (issue 31), on pages a real Discuz! X3.5 rendered.

fixtures/discuz-x35-changes holds one vote thread read at each step of what a board does to
it during a day (a 屏蔽, a delete, a silent edit, an edit with its mark), as a guest and as
the director (an admin, who is shown what the forum hides), and a thread with 回帖仅作者可见
read by a guest, its author and a player. The pages are served over loopback HTTP, as the
forum served them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.environment import Environment, HttpOptions
from tally.errors import ParseError

from .conftest import FIXTURES, FakeClock, Runner
from .gamefiles import day, write_game

CHANGES = FIXTURES / "discuz-x35-changes"
CHINA = ZoneInfo("Asia/Shanghai")
runner = Runner()


PLAYERS = ["alice", "bob", "carol", "dave", "eve"]
# The players with their account ids (uids 2 to 6), and the director's (uid 1).
WITH_IDS = [{"name": n, "id": i} for i, n in enumerate(PLAYERS, start=2)]
ADMIN = {"name": "admin", "id": 1}


def page(name: str) -> bytes:
    return (CHANGES / f"{name}.html").read_bytes()


def game_file(
    tmp_path: Path, url: str, closes: str = "17:05:00", rulings: Sequence[Mapping] = ()
) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = write_game(
        tmp_path / "game.toml", day(2, url, "2026-12-01T09:00:00", f"2026-12-01T{closes}"),
        name="issue31", ruleset="M126", directors=["admin"], players=PLAYERS, rulings=rulings,
    )  # fmt: skip
    return str(path)


def at(clock: str) -> FakeClock:
    # In UTC, as the computer's clock gives it: what tally says is in the forum's clock.
    start = datetime.fromisoformat(f"2026-12-01 {clock}").replace(tzinfo=CHINA)
    return FakeClock(start.astimezone(UTC))


def env(clock: FakeClock) -> Environment:
    return clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]


def votes(forum, tmp_path, clock, *args: str, closes: str = "17:05:00",
          rulings: Sequence[Mapping] = ()):  # fmt: skip
    url = forum.url("forum.php?mod=viewthread&tid=1")
    game = game_file(tmp_path, url, closes, rulings)
    cache = str(tmp_path / "cache")
    result = runner.invoke(
        app, ["votes", url, "--game", game, "--cache-dir", cache, *args], obj=env(clock)
    )
    return result


def rows(result) -> list[tuple[int, str | None, str | None, str]]:
    data = json.loads(result.stdout)
    return [(b["floor"], b["author"], b["target"], b["status"]) for b in data["ballots"]]


# -- the director's posts, and @name ---------------------------------------------------------


@pytest.mark.rules("V1", "V7", "V8")
def test_the_directors_reminder_is_no_row_and_a_mention_is_its_target(forum, tmp_path):
    """Floor 3 (bob) votes `@carol`; floor 7 is the director's 催票 showing the format."""
    forum.add_discuz_page("1", 1, page("vote-1-guest"))
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    assert rows(result) == [
        (2, "alice", "carol", "counted"),
        (3, "bob", "carol", "counted"),
        (4, "carol", "dave", "counted"),
        (5, "dave", "carol", "counted"),
        (6, "eve", "dave", "counted"),
    ]
    assert json.loads(result.stdout)["outcome"]["player"] == "carol"


# -- 屏蔽 ---------------------------------------------------------------------------------------


@pytest.mark.rules("V7")
@pytest.mark.parametrize("reader", ["guest", "admin"])
def test_a_banned_post_is_a_banned_row_whoever_reads(forum, tmp_path, reader):
    """dave's ballot 屏蔽ed by a moderator: a guest is shown 该帖被管理员或版主屏蔽, the admin
    its words under the same notice. Both count it as a banned row, never a ballot."""
    forum.add_discuz_page("1", 1, page(f"vote-2-banned-{reader}"))
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert rows(result) == [
        (2, "alice", "carol", "counted"),
        (3, "bob", "carol", "counted"),
        (4, "carol", "dave", "counted"),
        (5, "dave", None, "banned"),
        (6, "eve", "dave", "counted"),
    ]
    [banned] = [b for b in data["ballots"] if b["status"] == "banned"]
    assert banned["note"] == "屏蔽ed by a moderator: never counted, whoever's cookies read it"
    assert banned["words"] == "被屏蔽"
    assert data["not_voted"] == ["dave"]
    assert [t["player"] for t in data["totals"]][:1] == ["carol"]


@pytest.mark.rules("V7")
def test_a_banned_post_is_the_same_for_guest_and_director(forum, tmp_path):
    outputs = []
    for reader in ("guest", "admin"):
        forum.add_discuz_page("1", 1, page(f"vote-2-banned-{reader}"))
        result = votes(forum, tmp_path / reader, at("17:10:00"), "--json", "--fresh")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        data.pop("as_of", None)
        data.pop("read_at", None)
        outputs.append(data)
    assert outputs[0]["ballots"] == outputs[1]["ballots"]
    assert outputs[0]["outcome"] == outputs[1]["outcome"]


@pytest.mark.rules("V7")
def test_a_banned_post_is_listed_in_the_closing_post(forum, tmp_path):
    forum.add_discuz_page("1", 1, page("vote-2-banned-admin"))
    result = votes(forum, tmp_path, at("17:10:00"), "--announce", "--format", "text")
    assert result.exit_code == 0, result.output
    assert "5楼：被屏蔽" in result.stdout  # M126 names no voter (C7)
    assert "dave也投carol" not in result.stdout  # what the forum hides stays unsaid


# -- the thread's history: versions, deletions, the close --------------------------------------


def read_at(forum, tmp_path, clock: str, name: str, *args: str, closes: str = "17:05:00"):
    """One run of `tally votes --json` at ``clock`` while the forum serves page ``name``; the
    cache (and so the history) is the test's, shared by its runs."""
    forum.add_discuz_page("1", 1, page(name))
    return votes(forum, tmp_path, at(clock), "--json", *args, closes=closes)


def test_every_read_is_kept_and_an_unchanged_page_costs_no_stored_version(forum, tmp_path):
    """Each content of a page is listed with its first read and its last (an unchanged
    page points at the version kept: no new file; a third unchanged read moves the last
    on): that a read after the close found a page unchanged is what shows its posts stood
    then, and a watch polling all day stays far from the history's cap."""
    from tally.forums.cache import Cache

    for clock in ("17:04:50", "17:04:52", "17:04:54"):
        assert read_at(forum, tmp_path, clock, "vote-1-guest").exit_code == 0
    read_at(forum, tmp_path, "17:10:00", "vote-2-banned-guest")
    [folder] = (tmp_path / "cache").iterdir()
    store = Cache(tmp_path / "cache").thread("discuz", folder.name.split("-", 1)[1].rsplit("-", 1)[0], "1")
    kept = store.versions()
    assert [(n, when.astimezone(CHINA).strftime("%H:%M:%S")) for n, when, _ in kept] == [
        (1, "17:04:50"),
        (1, "17:04:54"),
        (1, "17:10:00"),
    ]
    assert len(list((folder / "versions").iterdir())) == 2


@pytest.mark.rules("V7")
def test_a_post_deleted_between_two_reads_is_a_deleted_row(forum, tmp_path):
    """bob's ballot (pid 3) deleted by a moderator: carol's post is floor 3 now. The row is
    bob's, by post id, with what tally last read of it, and a flag names it."""
    assert read_at(forum, tmp_path, "17:04:50", "vote-2-banned-guest").exit_code == 0
    result = read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(b["floor"], b["post_id"], b["author"], b["status"]) for b in data["ballots"]] == [
        (2, "2", "alice", "counted"),
        (3, "4", "carol", "counted"),
        (3, "3", "bob", "deleted"),
        (4, "5", "dave", "banned"),
        (5, "6", "eve", "counted"),
    ]
    [flag] = [f for f in data["flags"] if f["rule"] == "deleted"]
    assert flag["post_id"] == "3" and flag["player"] == "bob"
    assert flag["note"] == (
        "floor 3 (bob) was deleted: gone from the thread since tally read it 12-01 17:04; it "
        "said “投票对象：@carol 投票理由：bob跟alice一起”"
    )
    assert data["not_voted"] == ["bob", "dave"]


def test_a_deleted_row_says_its_floor_is_the_one_it_had(forum, tmp_path):
    """Floor 3 is carol's now and was bob's: the console's table and the JSON showed two
    rows of floor 3 and did not say that bob's number is the one it had before the deletion
    (the closing post did: 已删除（删除前在3楼）)."""
    assert read_at(forum, tmp_path, "17:04:50", "vote-2-banned-guest").exit_code == 0
    result = read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest")
    [row] = [b for b in json.loads(result.stdout)["ballots"] if b["status"] == "deleted"]
    assert row["note"].startswith("floor 3 before it was deleted; gone from the thread since")
    forum.add_discuz_page("1", 1, page("vote-3-deleted-guest"))
    table = votes(forum, tmp_path, at("17:10:00"))
    assert table.exit_code == 0, table.output
    assert "floor 3 before it was deleted" in " ".join(table.stdout.split())


@pytest.mark.rules("V7")
def test_a_deleted_row_in_the_closing_post_says_the_floor_was_its_own_before(forum, tmp_path):
    """Floor 3 is carol's now and was bob's before the moderator deleted it: the closing post
    lists both, and the deleted one says its number is the one it had (found on a real X3.5,
    where "6楼 frank：被屏蔽" and "6楼 eve：已删除" stood one above the other)."""
    assert read_at(forum, tmp_path, "17:04:50", "vote-2-banned-guest").exit_code == 0
    forum.add_discuz_page("1", 1, page("vote-3-deleted-guest"))
    result = votes(forum, tmp_path, at("17:10:00"), "--announce", "--format", "text")
    assert result.exit_code == 0, result.output
    assert "3楼：已删除（删除前在3楼）" in result.stdout
    assert "4楼：被屏蔽" in result.stdout and "被屏蔽（" not in result.stdout


@pytest.mark.rules("S2", "V6")
def test_a_ballot_deleted_or_banned_after_the_close_counts_as_it_stood(forum, tmp_path):
    """tally read the thread at 17:10, after the 17:05 close: every ballot stood. Then a
    moderator 屏蔽s dave's ballot, and (another thread of events) bob's is deleted — on the
    real X3.5 an author deletes their own ballot from the edit form, no moderator needed,
    and the result turned. The day is counted as it stood at the close, each one flagged."""
    assert read_at(forum, tmp_path, "17:10:00", "vote-1-guest").exit_code == 0
    banned = read_at(forum, tmp_path, "17:20:00", "vote-2-banned-guest")
    assert banned.exit_code == 0, banned.output
    data = json.loads(banned.stdout)
    assert rows(banned) == [
        (2, "alice", "carol", "counted"),
        (3, "bob", "carol", "counted"),
        (4, "carol", "dave", "counted"),
        (5, "dave", "carol", "counted"),
        (6, "eve", "dave", "counted"),
    ]
    [flag] = [f for f in data["flags"] if f["rule"] == "banned"]
    assert flag["post_id"] == "5" and flag["note"].startswith(
        "floor 5 (dave) was 屏蔽ed (or its author banned) after the close; counted as it "
        "stood at the close (S2), as tally read it 12-01 17:10")
    assert data["not_voted"] == []
    gone = tmp_path / "b"
    assert read_at(forum, gone, "17:10:00", "vote-1-guest").exit_code == 0
    deleted = read_at(forum, gone, "17:20:00", "vote-3-deleted-guest")
    data = json.loads(deleted.stdout)
    assert sorted((b["post_id"], b["author"], b["status"]) for b in data["ballots"]) == [
        ("2", "alice", "counted"),
        ("3", "bob", "counted"),
        ("4", "carol", "counted"),
        ("5", "dave", "counted"),
        ("6", "eve", "counted"),
    ]
    notes = [f["note"] for f in data["flags"] if f["rule"] in ("deleted", "banned")]
    assert "floor 3 (bob, its number before the delete) was deleted after the close; counted "\
        "as it stood at the close (S2), as tally read it 12-01 17:10: “投票对象：@carol 投票理由："\
        "bob跟alice一起”" in notes
    # and dave's, 屏蔽ed at the step before, by the floor it has now (4: bob's went)
    assert next(n for n in notes if "dave" in n).startswith("floor 4 (dave) was 屏蔽ed")
    assert len(notes) == 2
    assert data["not_voted"] == []


@pytest.mark.rules("S2")
def test_a_read_after_the_close_that_found_the_page_unchanged_shows_what_stood(forum, tmp_path):
    """A read before the close, one after it that found the page as it was (it kept no new
    version, and left no trace), then bob deletes his ballot: it stood at the close, and is
    counted (a cold read found it lost: the usual day, watch before the close)."""
    assert read_at(forum, tmp_path, "17:00:00", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:10:00", "vote-1-guest").exit_code == 0
    data = json.loads(read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest").stdout)
    assert ("3", "bob", "counted") in [(b["post_id"], b["author"], b["status"])
                                        for b in data["ballots"]]  # fmt: skip


@pytest.mark.rules("S2", "V7")
def test_a_post_banned_at_the_close_and_shown_since_stays_as_it_stood(forum, tmp_path):
    assert read_at(forum, tmp_path, "17:10:00", "vote-2-banned-guest").exit_code == 0
    data = json.loads(read_at(forum, tmp_path, "17:20:00", "vote-1-guest").stdout)
    assert (5, "dave", None, "banned") in [(b["floor"], b["author"], b["target"], b["status"])
                                            for b in data["ballots"]]  # fmt: skip
    [flag] = [f for f in data["flags"] if f["rule"] == "banned"]
    assert flag["note"].startswith("floor 5 (dave) was 屏蔽ed when tally read it and is shown "
                                   "after the close; counted as it stood")  # fmt: skip


def test_without_an_earlier_read_a_deleted_post_is_only_a_gap(forum, tmp_path):
    result = read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest")
    assert result.exit_code == 0, result.output
    assert "deleted" not in [b["status"] for b in json.loads(result.stdout)["ballots"]]


@pytest.mark.rules("V5")
def test_an_edit_in_the_closing_minute_counts_as_read_before_the_close(forum, tmp_path):
    """alice's edit mark says 17:05, the close is 17:05: the edit may be after it. tally read
    the thread at 17:04:55, so her ballot counts as it stood then (carol), with both texts."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    result = read_at(forum, tmp_path, "17:10:00", "vote-5-edited-guest")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [alice] = [b for b in data["ballots"] if b["author"] == "alice"]
    assert (alice["target"], alice["status"]) == ("carol", "counted")
    [flag] = [f for f in data["flags"] if f["rule"] == "edited"]
    assert flag["floor"] == 2 and flag["player"] == "alice"
    assert flag["note"] == (
        "changed after the close (edit mark 12-01 17:05): counted as tally read it 12-01 17:04, "
        "“投票对象：carol 投票理由：alice觉得carol发言有问题”, not as it reads now, "
        "“投票对象：eve 投票理由：alice再次改主意”"
    )
    assert data["provisional"] is False


@pytest.mark.rules("V5")
def test_an_edit_after_the_close_counts_as_read_before_it(forum, tmp_path):
    """The close at 17:04:56, the mark 17:05: after it for certain."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-admin", closes="17:04:56").exit_code == 0
    result = read_at(forum, tmp_path, "17:10:00", "vote-5-edited-admin", closes="17:04:56")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [alice] = [b for b in data["ballots"] if b["author"] == "alice"]
    assert (alice["target"], alice["status"]) == ("carol", "counted")


@pytest.mark.rules("V5")
def test_a_silent_edit_is_seen_by_its_words(forum, tmp_path):
    """X3.5 writes no edit mark within a minute of posting: alice's ballot reads dave now,
    carol before the close. The words differ from the read before the close: carol counts."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    result = read_at(forum, tmp_path, "17:10:00", "vote-4-silent-edit-guest")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [alice] = [b for b in data["ballots"] if b["author"] == "alice"]
    assert alice["target"] == "carol"
    [flag] = [f for f in data["flags"] if f["rule"] == "edited"]
    assert flag["note"].startswith(
        "changed after tally's last read before the close, and no edit mark says when: "
        "counted as tally read it 12-01 17:04"
    )
    assert "“投票对象：dave 投票理由：alice改主意了”" in flag["note"]


@pytest.mark.rules("V5")
@pytest.mark.parametrize("reader", ["guest", "admin"])
def test_an_edit_at_the_close_never_read_before_it_stops_the_count(forum, tmp_path, reader):
    result = read_at(forum, tmp_path, "17:10:00", f"vote-5-edited-{reader}")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] + "\n" == (
        "tally: floor 2 (alice) was edited 12-01 17:05, at or after the close 12-01 17:05 (an "
        "edit mark says minutes only), and tally never read the thread before the close: what "
        "it said at the close is not known. Rule on it in the game file ([[rulings]] day = 2, "
        'floor = 2, action = "accept" or "void"), or count it as edited with --as-edited.\n'
    )


@pytest.mark.rules("V5")
def test_as_edited_or_a_ruling_counts_the_edit(forum, tmp_path):
    result = read_at(forum, tmp_path, "17:10:00", "vote-5-edited-guest", "--as-edited")
    assert result.exit_code == 0, result.output
    [alice] = [b for b in json.loads(result.stdout)["ballots"] if b["author"] == "alice"]
    assert alice["target"] == "eve"
    assert alice["flags"] == ["edited in the closing minute, 12-01 17:05: perhaps after the close"]
    # The director's choice is seen in the count, not only in the command that was run.
    flags = [(f["rule"], f["floor"], f["note"]) for f in json.loads(result.stdout)["flags"]]
    assert ("edited", 2, "edited (edit mark 12-01 17:05) at or after the close, and no read "
            "before the close shows it: counted as it reads now, as --as-edited says") in flags
    ruling = {"day": 2, "floor": 2, "action": "void", "note": "edited after the close"}
    forum.add_discuz_page("1", 1, page("vote-5-edited-guest"))
    result = votes(forum, tmp_path / "ruled", at("17:10:00"), "--json", rulings=[ruling])
    assert result.exit_code == 0, result.output
    [alice] = [b for b in json.loads(result.stdout)["ballots"] if b["author"] == "alice"]
    assert (alice["status"], alice["reason"]) == ("void", "ruling")


def test_a_count_as_edited_is_never_posted(forum, tmp_path):
    url = forum.url("forum.php?mod=viewthread&tid=1")
    forum.add_discuz_page("1", 1, page("vote-5-edited-admin"))
    game = game_file(tmp_path, url)
    args = ["announce", "--game", game, "--day", "2", "--as-edited", "--post", "--yes"]
    result = runner.invoke(app, [*args, "--cache-dir", str(tmp_path / "c")], obj=env(at("17:10:00")))
    assert result.exit_code == 7
    assert "a count taken --as-edited is never posted" in result.stderr
    assert not any("action=reply" in r for r in forum.requests)


# -- --as-of -------------------------------------------------------------------------------------


def test_as_of_a_time_and_a_floor_counts_the_thread_as_it_stood(forum, tmp_path):
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest").exit_code == 0
    then = read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest", "--as-of", "17:04:58")
    assert then.exit_code == 0, then.output
    data = json.loads(then.stdout)
    assert (data["provisional"], data["as_of"]) == (True, "2026-12-01T17:04:58+08:00")
    assert [(b["floor"], b["author"], b["status"]) for b in data["ballots"]] == [
        (2, "alice", "counted"),
        (3, "bob", "counted"),
        (4, "carol", "counted"),
        (5, "dave", "counted"),
        (6, "eve", "counted"),
    ]
    now = read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest", "--as-of", "2026-12-01 17:15")
    assert [b["status"] for b in json.loads(now.stdout)["ballots"]] == [
        "counted", "counted", "deleted", "banned", "counted",
    ]  # fmt: skip
    floor = read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest", "--as-of", "3")
    assert floor.exit_code == 0, floor.output
    # Floor 3 is carol's now (bob's was deleted): the thread as it stood when she posted,
    # bob's ballot still there, numbered as it was then.
    assert [b["author"] for b in json.loads(floor.stdout)["ballots"]] == ["alice", "bob", "carol"]


def test_as_of_before_the_first_read_or_without_history_is_refused(forum, tmp_path):
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    early = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "2026-12-01 10:00")
    assert early.exit_code == 2
    assert "nothing of it is known then" in early.stderr
    game = game_file(tmp_path / "saved", "https://bbs.example.com/forum.php?mod=viewthread&tid=1")
    saved = runner.invoke(
        app, ["votes", str(CHANGES / "vote-1-guest.html"), "--game", game, "--as-of", "17:00"]
    )
    assert saved.exit_code == 2 and "has no history in the cache" in saved.stderr


# -- hidden replies (回帖仅作者可见) ---------------------------------------------------------------


def hidden(forum, tmp_path, reader: str):
    url = forum.url("forum.php?mod=viewthread&tid=2")
    forum.add_discuz_page("2", 1, page(f"hidden-{reader}"))
    game = game_file(tmp_path, url, closes="17:30:00")
    return runner.invoke(app, ["votes", url, "--game", game, "--json"], obj=env(at("17:40:00")))


@pytest.mark.parametrize("reader,floors", [("guest", "floors 2, 3 and 4"), ("player", "floors 3 and 4")])
def test_hidden_replies_read_by_a_guest_or_a_player_stop(forum, tmp_path, reader, floors):
    result = hidden(forum, tmp_path, reader)
    assert result.exit_code == 4
    assert result.stderr.splitlines()[-1] + "\n" == (
        "tally: thread 2's replies are hidden (回帖仅作者可见): the forum showed "
        f"{floors} only as 此帖仅作者可见 to the cookies that read it; only their authors, the "
        "thread's author admin and moderators can read them: read the thread with admin's or "
        "a moderator's cookies (--cookies FILE).\n"
    )


def test_hidden_replies_read_by_the_author_are_counted_and_said(forum, tmp_path):
    result = hidden(forum, tmp_path, "author")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(b["author"], b["target"], b["status"]) for b in data["ballots"]] == [
        ("alice", "carol", "counted"),
        ("bob", "carol", "counted"),
        ("carol", "bob", "counted"),
    ]
    assert (
        "thread 2's replies are hidden from the players (回帖仅作者可见); these cookies read all "
        "3 of them, and all are counted." in result.stderr
    )


# -- an edit in the final hour (V5), on the post model ---------------------------------------------


@pytest.mark.rules("V5")
@pytest.mark.parametrize("ruleset,target", [("000", "甲"), ("M126", "丙")])
def test_an_edit_in_the_final_hour_that_changes_the_target_follows_V5(ruleset, target):
    """乙 voted 甲 at 10:00 (read at 20:00) and edited it to 丙 at 21:00, inside the final hour
    of a 21:30 close: a change then is void where the ruleset forbids it (000), and counts
    where changes are free (M126)."""
    from dataclasses import replace as swap

    from tally.model import Edit, History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    before = T().post("乙", "08 10:00", vote("甲"))
    after = T().post("乙", "08 10:00", vote("丙"))
    edited = swap(after.posts[1], edited=Edit("乙", at("09 21:00")))
    history = History((Version(1, at("09 20:00"), tuple(before.posts)),))
    thread = swap(after.thread(), posts=(after.posts[0], edited), history=history,
                  read_at=at("09 21:40"))  # fmt: skip
    result = tally_day(thread, game(ruleset), 2)
    [ballot] = result.ballots
    assert (ballot.target, ballot.status) == (target, "counted")
    edits = [f.note for f in result.flags if f.rule == "edited"]
    if ruleset == "000":
        assert edits == [
            "changed in the last 60 minutes before the close (V5) (edit mark 05-09 21:00): counted as tally read it "
            "05-09 20:00, “投票对象：甲 投票理由：理由”, not as it reads now, “投票对象：丙 投票理由：理由”"
        ]


def test_as_of_any_minute_of_a_thread_watch_read(forum, tmp_path):
    """`tally watch` reads the thread every minute while the forum changes it; `votes --as-of`
    then gives the count at any of those minutes."""
    from tally.commands.watch import Schedule
    from tally.rules.game.gamefile import load_game

    from .test_watch import watching

    url = forum.url("forum.php?mod=viewthread&tid=1")
    game = load_game(Path(game_file(tmp_path, url, closes="17:30:00")))
    clock = at("17:04:50")
    polls = watching(game, url, clock, tmp_path, Schedule(every=60, full_every=0))
    for name in ("vote-1-guest", "vote-2-banned-guest", "vote-3-deleted-guest"):
        forum.add_discuz_page("1", 1, page(name))
        assert next(polls).ok
    statuses = {}
    for minute in ("17:05:30", "17:06:30", "17:07:30"):
        result = read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest", "--as-of", minute,
                         closes="17:30:00")  # fmt: skip
        assert result.exit_code == 0, result.output
        statuses[minute] = [(b["author"], b["status"]) for b in json.loads(result.stdout)["ballots"]]
    assert statuses["17:05:30"] == [(a, "counted") for a in ("alice", "bob", "carol", "dave", "eve")]
    assert ("dave", "banned") in statuses["17:06:30"] and ("bob", "counted") in statuses["17:06:30"]
    assert ("bob", "deleted") in statuses["17:07:30"]


@pytest.mark.slow
def test_the_report_as_of_a_moment_and_its_rows(forum, tmp_path):
    """The report draws deleted and banned rows; --as-of counts each day as it stood then."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest").exit_code == 0
    game = str(tmp_path / "game.toml")
    pages = {}
    for name, extra in (("now", []), ("then", ["--as-of", "2026-12-01 17:05:30"])):
        out = tmp_path / f"{name}.html"
        result = runner.invoke(
            app,
            ["report", "--game", game, "-o", str(out), "--cache-dir", str(tmp_path / "cache"), *extra],
            obj=env(at("17:20:00")),
        )
        assert result.exit_code == 0, result.output
        pages[name] = out.read_text(encoding="utf-8")
    assert "已删除" in pages["now"] and "被屏蔽" in pages["now"]
    assert "已删除" not in pages["then"] and "被屏蔽" not in pages["then"]
    wrong = runner.invoke(app, ["report", "--game", game, "--as-of", "3"], obj=env(at("17:20:00")))
    assert wrong.exit_code == 2 and "the report takes a date and time" in wrong.stderr


@pytest.mark.rules("V8")
def test_tallys_own_reminder_on_the_real_board_is_no_row(forum, tmp_path):
    """The 催票 `announce --kind reminder --post` put on the real X3.5 (floor 4: its line
    "改票请在自己的投票楼层下点评…" read as a broken ballot, listed as 4楼 导演帖 under 废票)."""
    url = forum.url("forum.php?mod=viewthread&tid=17")
    forum.add_discuz_page("17", 1, page("reminder-guest"))
    game = game_file(tmp_path, url, closes="19:00:00")
    result = runner.invoke(app, ["votes", url, "--game", game, "--json"], obj=env(at("17:40:00")))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(b["floor"], b["target"], b["status"]) for b in data["ballots"]] == [
        (2, "carol", "counted"),
        (3, "carol", "counted"),
    ]
    args = ["announce", "--game", game, "--day", "2", "--provisional", "--format", "text"]
    posted = runner.invoke(app, args, obj=env(at("17:40:00")))
    assert posted.exit_code == 0, posted.output
    assert "导演帖" not in posted.stdout and "4楼" not in posted.stdout


@pytest.mark.rules("V7")
def test_a_mention_the_forum_linked_is_its_target(forum, tmp_path):
    """Where the board turns @name into a link (allowat), the text read is still @carol."""
    body = page("vote-1-guest").replace(
        "投票对象：@carol".encode(),
        '投票对象：<a href="home.php?mod=space&amp;username=carol" target="_blank">@carol</a>'.encode(),
    )
    forum.add_discuz_page("1", 1, body)
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    [bob] = [b for b in json.loads(result.stdout)["ballots"] if b["author"] == "bob"]
    assert (bob["target"], bob["status"]) == ("carol", "counted")


def test_the_history_is_capped_with_a_sentence(forum, tmp_path, monkeypatch):
    import tally.forums.cache
    import tally.forums.fetch

    monkeypatch.setattr(tally.forums.cache, "MAX_VERSIONS", 2)
    monkeypatch.setattr(tally.forums.fetch, "MAX_VERSIONS", 2)
    assert read_at(forum, tmp_path, "17:04:50", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:04:52", "vote-2-banned-guest").exit_code == 0
    third = read_at(forum, tmp_path, "17:04:54", "vote-3-deleted-guest")
    assert third.exit_code == 0, third.output
    assert "thread 1's history holds 2 versions, as many as tally keeps: this read is not kept" in (
        third.stderr
    )
    again = read_at(forum, tmp_path, "17:04:56", "vote-2-banned-guest")  # the page as kept
    assert "history holds" not in again.stderr


def test_a_read_that_could_not_see_a_reply_is_no_version_of_it(forum, tmp_path):
    """The same cache read by a guest (every reply 此帖仅作者可见, the count stopped) and
    then by the author: the guest's read holds no words to count the replies from."""
    url = forum.url("forum.php?mod=viewthread&tid=2")
    game = game_file(tmp_path, url, closes="17:30:00")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    forum.add_discuz_page("2", 1, page("hidden-guest"))
    guest = runner.invoke(app, ["votes", url, "--game", game, *cache], obj=env(at("17:20:00")))
    assert guest.exit_code == 4
    forum.add_discuz_page("2", 1, page("hidden-author"))
    args = ["votes", url, "--game", game, "--json", *cache]
    author = runner.invoke(app, args, obj=env(at("17:40:00")))
    assert author.exit_code == 0, author.output
    data = json.loads(author.stdout)
    assert [b["target"] for b in data["ballots"]] == ["carol", "carol", "bob"]
    assert not [f for f in data["flags"] if f["rule"] == "edited"]


@pytest.mark.rules("V5")
def test_V5_a_ballot_first_read_inside_the_final_hour_and_edited_there_is_taken_back():
    """Posted at 20:40 and first read at 20:45, both inside 000's last hour, then edited to
    another target at 21:00: a change in the final hour, counted as first read."""
    from dataclasses import replace as swap

    from tally.model import Edit, History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    before = T().post("乙", "09 20:40", vote("甲"))
    after = T().post("乙", "09 20:40", vote("丙"))
    edited = swap(after.posts[1], edited=Edit("乙", at("09 21:00")))
    history = History((Version(1, at("09 20:45"), tuple(before.posts)),))
    thread = swap(after.thread(), posts=(after.posts[0], edited), history=history,
                  read_at=at("09 21:40"))  # fmt: skip
    [ballot] = tally_day(thread, game("000"), 2).ballots
    assert (ballot.target, ballot.status) == ("甲", "counted")


def test_as_of_past_the_last_read_is_as_of_that_read():
    """--as-of 23:00 with the last read at 20:30 (say --offline): the thread is known up to
    20:30 only, so the count is as of 20:30 and provisional before a 21:30 close."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.judging.as_of import thread_as_of

    from .votekit import T, at, vote

    t = T().post("乙", "09 20:00", vote("甲"))
    history = History((Version(1, at("09 20:30"), tuple(t.posts)),))
    thread = swap(t.thread(), history=history, read_at=at("09 20:30"))
    assert thread_as_of(thread, at("09 23:00")).read_at == at("09 20:30")
    assert thread_as_of(thread, at("09 20:10")).read_at == at("09 20:10")


@pytest.mark.rules("V5")
def test_a_mark_older_than_the_read_does_not_date_a_later_change():
    """乙 edited at 19:50 (the mark), tally read 甲 at 20:00, then a moderator changed it to 丙
    with no new mark: the words changed after that read, which the old mark cannot date, so
    the flag does not say "after the close" (a cold read found it)."""
    from dataclasses import replace as swap

    from tally.model import Edit, History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    mark = Edit("乙", at("09 19:50"))
    before = T().post("乙", "08 10:00", vote("甲"))
    after = T().post("乙", "08 10:00", vote("丙"))
    read = swap(before.posts[1], edited=mark)
    history = History((Version(1, at("09 20:00"), (before.posts[0], read)),))
    thread = swap(after.thread(), posts=(after.posts[0], swap(after.posts[1], edited=mark)),
                  history=history, read_at=at("09 21:40"))  # fmt: skip
    result = tally_day(thread, game("000"), 2)
    [ballot] = result.ballots
    assert ballot.target == "甲"  # as tally read it before the close
    [note] = [f.note for f in result.flags if f.rule == "edited"]
    assert note.startswith("changed after tally's last read before the close, and no edit mark")
    assert "after the close (edit mark" not in note


# -- [hide] (回复可见) ------------------------------------------------------------------------


def _hide_game(tmp_path: Path, url: str) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "hide.toml"
    players = [{"name": n, "id": i} for n, i in
               (("alice", 2), ("bob", 3), ("carol_new", 4), ("dave", 5), ("eve", 6))]  # fmt: skip
    write_game(path, day(2, url, "2026-12-02T03:57:58", "2026-12-02T04:11:00", sheriff="none"),
               ruleset="000", directors=[ADMIN], players=players)  # fmt: skip
    return str(path)


@pytest.mark.rules("V1", "V6")
def test_a_ballot_behind_hide_stops_a_read_that_cannot_see_it_and_counts_for_one_that_can(
    forum, tmp_path
):
    """alice's ballot is inside [hide]: a guest (or a member who has not replied) is shown
    游客，如果您要查看本帖隐藏内容请回复. tally read it as no ballot and carded alice L3; and a count
    with the director's cookies after that read kept the placeholder as the ballot as it
    stood. Now the guest's read stops with one sentence, and the director's counts it."""
    url = forum.url("forum.php?mod=viewthread&tid=24")
    game = _hide_game(tmp_path, url)
    cache = str(tmp_path / "cache")

    def run(name: str, clock: str):  # type: ignore[no-untyped-def]
        forum.add_discuz_page("24", 1, page(name))
        when = datetime.fromisoformat(f"2026-12-02 {clock}").replace(tzinfo=CHINA)
        return runner.invoke(app, ["votes", url, "--game", game, "--cache-dir", cache, "--json"],
                             obj=env(FakeClock(when.astimezone(UTC))))  # fmt: skip

    guest = run("hide-guest", "04:20:00")
    assert guest.exit_code == 4, guest.output
    said = " ".join(guest.stderr.split())
    assert "3楼 hide what they hold ([hide], 回复可见)" in said and "--cookies" in said
    director = run("hide-admin", "04:30:00")
    assert director.exit_code == 0, director.output
    [alice] = [b for b in json.loads(director.stdout)["ballots"] if b["voter"] == "alice"]
    assert (alice["floor"], alice["target"], alice["status"]) == (3, "bob", "counted")


def test_a_stuck_reply_is_read_once_on_its_own_floor(forum):
    """A moderator's 置顶回复 shows dave's floor 12 at the top of page 1, labelled "顶 来自 12#":
    tally stopped, "floor label tally cannot number" (real X3.5)."""
    from .conftest import read_one

    for n in (1, 2):
        forum.add_discuz_page("24", n, page(f"stick-p{n}"))
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=24"))
    assert [p.floor for p in thread.posts] == list(range(1, 13))
    [stuck] = [p for p in thread.posts if p.post_id == "292"]
    assert (stuck.floor, stuck.author) == (12, "dave")


def _stick_game(tmp_path: Path, url: str) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "stick.toml"
    write_game(path, day(3, url, "2026-12-02T06:24:40", "2026-12-02T06:25:20", sheriff="none"),
               ruleset="M126", directors=[ADMIN], players=WITH_IDS)  # fmt: skip
    return str(path)


# Thread 2 as the forum numbers its floors once carol's post 20 (floor 4) is deleted, the
# reply unstuck: post id -> floor (pages stick-deleted-p1/p2; floor 6 is carol's post 23).
_FLOORS_AFTER_DELETE = {
    "17": 1, "18": 2, "19": 3, "21": 4, "22": 5, "23": 6, "24": 7, "25": 8, "26": 9,
    "27": 10, "28": 11, "29": 12, "30": 13, "31": 14, "32": 15,
}  # fmt: skip


def _stick_deleted(forum, clock: tuple[str, str] | None = None) -> None:  # type: ignore[no-untyped-def]
    for n in (1, 2):
        body = page(f"stick-deleted-p{n}").decode("utf-8")
        if clock is not None:
            body = body.replace(*clock)
        forum.add_discuz_page("2", n, body.encode("utf-8"))


@pytest.mark.rules("V4", "V6")
def test_a_stuck_reply_after_a_delete_is_counted_on_its_own_floor(forum, tmp_path):
    """Once a post of a thread is deleted, X3.5 numbers the floors by their place on the
    page: carol's post 23 (floor 6), stuck to the top of page 1, is labelled "顶 来自 2#" and
    the four floors before its own one too many each. tally stopped, "a 12-hour clock
    without AM/PM" (the times ran backwards against those numbers; real X3.5)."""
    url = forum.url("forum.php?mod=viewthread&tid=2")
    _stick_deleted(forum)
    when = datetime.fromisoformat("2026-12-02 06:40:00").replace(tzinfo=CHINA)
    result = runner.invoke(app, ["votes", url, "--game", _stick_game(tmp_path, url),
                                 "--cache-dir", str(tmp_path / "cache"), "--json"],
                           obj=env(FakeClock(when.astimezone(UTC))))  # fmt: skip
    assert result.exit_code == 0, result.output
    ballots = json.loads(result.stdout)["ballots"]
    assert {b["post_id"]: b["floor"] for b in ballots} == {
        k: v for k, v in _FLOORS_AFTER_DELETE.items() if k not in ("17", "26")
    }  # the director's posts are no ballots
    counted = {b["voter"]: (b["target"], b["floor"]) for b in ballots if b["status"] == "counted"}
    assert counted == {"alice": ("carol", 7), "bob": ("carol", 3), "carol": ("dave", 6),
                       "dave": ("eve", 12), "eve": ("carol", 5)}  # fmt: skip


def test_a_stuck_reply_after_a_delete_is_on_its_own_floor_whatever_the_hour(forum):
    """The same pages in the afternoon: no time on them looks like a 12-hour clock, and
    tally read them without a word, post 23 on floor 2 and floors 2-5 one too many each."""
    from .conftest import read_one

    _stick_deleted(forum, ("2026-12-2 06:", "2026-12-2 18:"))
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=2"))
    assert {p.post_id: p.floor for p in thread.posts} == _FLOORS_AFTER_DELETE
    assert thread.gaps == ()


def test_a_stuck_reply_does_not_hide_a_twelve_hour_clock(forum):
    """A board that prints a 12-hour clock without its marker still stops the read: the
    stuck reply is put back by its post id, and the times run backwards against the floors
    (12:24 for the floors before post 22, 01:24 from it on, as 12:24 and 13:24 print)."""
    from .conftest import read_one

    for n in (1, 2):
        body = page(f"stick-deleted-p{n}").decode("utf-8")
        body = body.replace("2026-12-2 06:24:4", "2026-12-2 12:24:4")
        body = body.replace("2026-12-2 06:24:5", "2026-12-2 01:24:5")
        forum.add_discuz_page("2", n, body.encode("utf-8"))
    with pytest.raises(ParseError, match="12-hour clock without AM/PM"):
        read_one(forum.url("forum.php?mod=viewthread&tid=2"))


def _later_by_a_second(n: int, body: str) -> str:
    """Post 23 (stuck) at 06:24:51, after posts 24 and 25 (06:24:50), as two posts sent at
    once make it: the forum orders a page by time, then position, not by post id."""
    if n == 1:
        body = body.replace(
            'id="authorposton23">发表于 <span title="2026-12-2 06:24:50"',
            'id="authorposton23">发表于 <span title="2026-12-2 06:24:51"',
        )
    return body


@pytest.mark.parametrize("hour", ["06", "18"])
def test_a_stuck_reply_goes_back_by_its_time_before_its_id(forum, hour):
    """From the cold read: put back by id alone, post 23 stood on floor 6 where the forum
    has post 24 (afternoon: three floors wrong without a word; morning: a false 12-hour
    stop). By time, it is floor 8, as the forum numbers it."""
    from .conftest import read_one

    for n in (1, 2):
        body = _later_by_a_second(n, page(f"stick-deleted-p{n}").decode("utf-8"))
        forum.add_discuz_page("2", n, body.replace("2026-12-2 06:", f"2026-12-2 {hour}:").encode())
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=2"))
    got = {p.post_id: p.floor for p in thread.posts if p.post_id in ("22", "23", "24", "25", "26")}
    assert got == {"22": 5, "24": 6, "25": 7, "23": 8, "26": 9}


def test_a_stuck_reply_among_posts_of_its_second_out_of_id_order_stops(forum):
    """Within a second the forum orders posts by position, which their ids follow unless two
    were sent at once: where those of the stuck reply's second do not follow their ids,
    its place among them cannot be told."""
    from .conftest import read_one

    for n in (1, 2):
        body = page(f"stick-deleted-p{n}").decode("utf-8")
        if n == 1:  # posts 24 and 25 (06:24:50, beside post 23) shown the other way round
            head, rest = body.split('<div id="post_24"', 1)
            p24, rest = rest.split('<div id="post_25"', 1)
            p25, tail = rest.split('<div id="post_26"', 1)
            p24, p25 = p24.replace("<em>7</em>", "<em>8</em>"), p25.replace("<em>8</em>", "<em>7</em>")
            body = head + '<div id="post_25"' + p25 + '<div id="post_24"' + p24 + '<div id="post_26"' + tail
        forum.add_discuz_page("2", n, body.encode("utf-8"))
    with pytest.raises(ParseError, match=r"post 23 is stuck to the top of page 1 .*its second"):
        read_one(forum.url("forum.php?mod=viewthread&tid=2"))


def test_a_stuck_reply_from_a_later_page_is_read_on_its_own_page(forum):
    """After a delete, a reply stuck from page 2 is shown at the top of page 1 as "顶 来自 #",
    without a number: tally stopped, "floor label tally cannot number" (real X3.5, read by a
    guest). It is dave's post 13, floor 12 on page 2."""
    from .conftest import read_one

    for n in (1, 2):
        forum.add_discuz_page("1", n, page(f"stick-later-p{n}"))
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=1"))
    assert [p.floor for p in thread.posts] == list(range(1, 16))
    [stuck] = [p for p in thread.posts if p.post_id == "13"]
    assert (stuck.floor, stuck.author, stuck.page) == (12, "dave", 2)
    doctor = runner.invoke(app, ["doctor", str(CHANGES / "stick-later-p1.html")])
    assert doctor.exit_code == 0 and "tally can read this page" in doctor.output, doctor.output


def test_a_stuck_reply_from_a_later_page_not_on_it_stops(forum):
    """A page 2 read at another moment that no longer holds the reply page 1 shows stuck
    without its number: the pages disagree, and the read stops rather than drop it."""
    import re

    from .conftest import read_one

    forum.add_discuz_page("1", 1, page("stick-later-p1"))
    body = page("stick-later-p2").decode("utf-8")
    gone = re.sub(r'<div id="post_13" >.*?(?=<div id="post_14")', "", body, flags=re.S)
    assert gone != body
    forum.add_discuz_page("1", 2, gone.encode("utf-8"))
    with pytest.raises(ParseError, match="置顶回复"):
        read_one(forum.url("forum.php?mod=viewthread&tid=1"))


def _serve(forum, tid: str, stem: str) -> str:  # type: ignore[no-untyped-def]
    for n in (1, 2):
        forum.add_discuz_page(tid, n, page(f"{stem}-p{n}"))
    return forum.url(f"forum.php?mod=viewthread&tid={tid}")


def _floors(thread) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {p.post_id: p.floor for p in thread.posts}


# Thread 2 ("[H1] 热门局 第二天 投票帖"): post id -> floor, as the forum numbers them unstuck.
_HOT_FLOORS = {str(pid): pid - 13 for pid in range(14, 28)}


@pytest.mark.rules("V4", "V6")
def test_hot_replies_are_counted_once_on_their_own_floors(forum, tmp_path):
    """With 热门回复 on (threadhotreplies), X3.5 shows the replies members 支持ed again above
    page 1's others, labelled 推荐 without a floor, and leaves those of page 1 out of their
    own places (carol's ballot, pid 17, floor 4; alice's pid 20, floor 7); eve's 改票 (pid
    27, floor 14) is shown on page 2 as well. tally stopped, "floor label tally cannot
    number ('推荐')" (real X3.5, read by a guest)."""
    from .conftest import read_one

    url = _serve(forum, "2", "hot")
    thread = read_one(url)
    assert _floors(thread) == _HOT_FLOORS
    by_pid = {p.post_id: p for p in thread.posts}
    assert (by_pid["17"].author, by_pid["17"].page) == ("carol", 1)
    assert (by_pid["27"].author, by_pid["27"].page) == ("eve", 2)
    doctor = runner.invoke(app, ["doctor", str(CHANGES / "hot-p1.html")])
    assert doctor.exit_code == 0 and "tally can read this page" in doctor.output, doctor.output
    path = tmp_path / "hot.toml"
    write_game(path, day(2, url, "2026-12-02T06:30:00", "2026-12-02T06:40:00", sheriff="none"),
               ruleset="M126", directors=[ADMIN], players=WITH_IDS)  # fmt: skip
    when = datetime.fromisoformat("2026-12-02 06:50:00").replace(tzinfo=CHINA)
    result = runner.invoke(app, ["votes", url, "--game", str(path), "--cache-dir",
                                 str(tmp_path / "cache"), "--json"],
                           obj=env(FakeClock(when.astimezone(UTC))))  # fmt: skip
    assert result.exit_code == 0, result.output
    ballots = json.loads(result.stdout)["ballots"]
    assert sorted(b["floor"] for b in ballots) == list(range(2, 15))  # each post once
    counted = {b["voter"]: (b["target"], b["floor"]) for b in ballots if b["status"] == "counted"}
    assert counted == {"alice": ("carol", 2), "bob": ("carol", 3), "carol": ("dave", 4),
                       "dave": ("eve", 5), "eve": ("dave", 14)}  # fmt: skip


def test_a_hot_reply_on_the_last_place_of_page_1_is_put_there(forum):
    """dave's post 23 (floor 10, the last of page 1) 支持ed as well: page 1 ends at floor 9
    and page 2 starts at 11; it is put on floor 10, between the two pages."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "2", "hot-last"))
    assert _floors(thread) == _HOT_FLOORS
    assert thread.gaps == ()


def test_hot_replies_after_a_delete_are_on_their_floors_by_place(forum):
    """Once bob's post 16 is deleted, X3.5 numbers the floors by their place and skips the
    numbers of the three 热门回复 of page 1 right after floor 1: alice's post 15 (floor 2)
    is labelled 5#, and every floor of page 1 before a 热门回复's own is one to three too
    many. tally read them in the order of their post ids (real X3.5, read by a guest)."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "2", "hot-deleted"))
    pids = [str(p) for p in (14, 15, *range(17, 28))]
    assert _floors(thread) == {pid: floor for floor, pid in enumerate(pids, start=1)}


def test_hot_replies_that_no_floor_is_left_for_stop(forum):
    """The same page numbered by place, with eve's post 19 (labelled 7#) taken out of page
    1: the floors left do not account for the 热门回复 shown, and the read stops."""
    import re

    from .conftest import read_one

    body = page("hot-deleted-p1").decode("utf-8")
    cut = re.sub(r'<div id="post_19" >.*?(?=<div id="post_21")', "", body, flags=re.S)
    assert cut != body
    forum.add_discuz_page("2", 1, cut.encode("utf-8"))
    forum.add_discuz_page("2", 2, page("hot-deleted-p2"))
    with pytest.raises(ParseError, match="热门回复"):
        read_one(forum.url("forum.php?mod=viewthread&tid=2"))


def test_stuck_and_hot_replies_together_are_on_their_floors(forum):
    """Thread 5: eve's ballot (pid 74, floor 6) and eve's post 79 (floor 11, page 2) stuck,
    bob's ballot (pid 71, floor 3) and alice's post 80 (floor 12) 支持ed: page 1 shows
    "顶 来自 6#", "顶 来自 11#", then both as 推荐 (real X3.5, read by a guest)."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "5", "hot-stick"))
    assert _floors(thread) == {str(pid): pid - 68 for pid in range(69, 82)}


def test_stuck_and_hot_replies_after_a_delete_are_on_their_floors(forum):
    """The same once bob's post 76 (floor 8) is deleted: numbered by place, X3.5 numbers
    the two stuck replies 2# and 3#, skips 4 for the 热门回复 standing on page 1 (post 71),
    and numbers alice's post 70 (floor 2) 5#: tally stopped, "a 12-hour clock without
    AM/PM" (the times ran backwards against those numbers)."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "5", "hot-stick-deleted"))
    pids = [str(p) for p in (*range(69, 76), *range(77, 82))]
    assert _floors(thread) == {pid: floor for floor, pid in enumerate(pids, start=1)}


def test_a_reverse_order_thread_is_read_floor_by_floor(forum):
    """A thread posted with 回帖倒序排列 (ordertype=1, the thread's own flag): the plain page
    URL tally asks for shows floor 1, then floors 13 down to 5 on page 1, and 4 down to 2 on
    page 2 (real X3.5)."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "3", "reverse"))
    assert [p.floor for p in thread.posts] == list(range(1, 14))
    assert {p.floor for p in thread.posts if p.page == 2} == {2, 3, 4}
    assert [int(p.post_id) for p in thread.posts] == list(range(28, 41))


def test_a_reverse_order_thread_after_a_delete_is_read_floor_by_floor(forum):
    """A reverse-order thread once carol's ballot (pid 47, floor 4) is deleted: numbered by
    place, X3.5 adds the opening post to page 1 after numbering the page and prints it no
    number (`<em></em><sup>#</sup>`): tally stopped, "a floor label tally cannot number
    ('#')" (exit 5, real X3.5, read by a guest)."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "4", "reverse-deleted"))
    pids = [str(p) for p in (44, 45, 46, *range(48, 57))]
    assert _floors(thread) == {pid: floor for floor, pid in enumerate(pids, start=1)}
    assert thread.gaps == ()


def test_hot_replies_of_a_reverse_order_thread_are_on_their_floors(forum):
    """The reverse-order thread with two 热门回复: bob's post 35 (floor 8, on page 1) and
    bob's post 30 (floor 3, on page 2), both shown above page 1's others as 推荐."""
    from .conftest import read_one

    thread = read_one(_serve(forum, "3", "reverse-hot"))
    assert _floors(thread) == {str(pid): pid - 27 for pid in range(28, 41)}


def test_a_reverse_order_thread_read_again_from_the_cache_has_its_new_floors(forum, tmp_path):
    """In a reverse-order thread new posts land on page 1: a read that takes the earlier
    pages from the cache (tally watch's polls, a day before the one decided) read only the
    last page, and missed dave's and carol's 改票 (floors 14 and 15, real X3.5: a watch's
    second poll showed 14 posts where the thread had 16)."""
    from .conftest import read_one

    url = _serve(forum, "3", "reverse-hot")
    cache = tmp_path / "cache"
    assert len(read_one(url, cache_dir=cache).posts) == 13
    for n in (1, 2):
        forum.add_discuz_page("3", n, page(f"reverse-new-p{n}"))
    thread = read_one(url, cache_dir=cache)
    assert _floors(thread) == {str(pid): pid - 27 for pid in range(28, 43)}


def test_a_stuck_reply_that_drops_a_post_from_page_1_stops(forum):
    """A 置顶回复 whose post id is smaller than the replies a page shows (bob's post 3, on a
    new board) makes X3.5 leave dave's ballot (floor 5, post 5) out of page 1 ($sticklist +
    $postarr, keyed by post id and by place): tally stopped, "says it has 12 replies but
    tally read 11 … Run again with --fresh", which changes nothing; it names the floor the
    forum left out, and why (real X3.5, read by a guest)."""
    from .conftest import read_one

    url = _serve(forum, "1", "stick-dropped")
    with pytest.raises(ParseError, match=r"post\(s\) 3 above .* floor\(s\) 5: .*解除置顶"):
        read_one(url)


def test_a_stuck_reply_that_drops_the_last_post_of_page_1_says_why(forum):
    """The same thread with post 8 stuck instead (and eve's 点评 under floor 2): X3.5 leaves
    out the last reply of page 1 (floor 10), so page 1 ends at 9# and page 2 starts at 11#.
    The reply count stops the read, as before; it now says why, and that reading again (the
    advice it gave, "Run again with --fresh") changes nothing (real X3.5, read by a guest)."""
    from tally.errors import FetchError

    from .conftest import read_one

    url = _serve(forum, "1", "stick-dropped-last")
    with pytest.raises(FetchError, match=r"post\(s\) 8 above .*floor\(s\) 10 not read.*解除置顶"):
        read_one(url)


def test_a_ballot_in_a_replys_own_subject_is_read(forum):
    """A reply's 标题 stands above its message (`<h2>` in div.pcb): a ballot written there
    was no ballot, and its voter carded L3 (real X3.5)."""
    from .conftest import read_one

    forum.add_discuz_page("44", 1, page("subject"))
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=44"))
    [reply] = [p for p in thread.posts if p.post_id == "343"]
    assert reply.text.splitlines()[0] == "投票对象：bob 投票理由：写在标题"
    assert reply.text.splitlines()[-1] == "如题，票在标题里"
    assert [p.text.splitlines()[0] for p in thread.posts][1] == "投票对象：dave 投票理由：跟随投票对象：bob的那些人"


def test_a_hide_ballot_deleted_after_a_guest_read_is_not_put_back_as_the_placeholder(
    forum, tmp_path
):
    """A guest's read after the close saw alice's [hide] ballot as the placeholder; alice then
    deletes it, and the director reads: nothing readable stood, so nothing is put back (the
    count stopped for good, asking for cookies the director was using)."""
    import re

    url = forum.url("forum.php?mod=viewthread&tid=24")
    game = _hide_game(tmp_path, url)
    cache = str(tmp_path / "cache")

    def run(body: bytes, clock: str):  # type: ignore[no-untyped-def]
        forum.add_discuz_page("24", 1, body)
        when = datetime.fromisoformat(f"2026-12-02 {clock}").replace(tzinfo=CHINA)
        return runner.invoke(app, ["votes", url, "--game", game, "--cache-dir", cache, "--json"],
                             obj=env(FakeClock(when.astimezone(UTC))))  # fmt: skip

    assert run(page("hide-guest"), "04:20:00").exit_code == 4
    admin = page("hide-admin").decode("utf-8")
    gone = re.sub(r'<div id="post_262" >.*?(?=</div><div id="post_263")', "", admin, flags=re.S)
    gone = gone.replace('回复:</span> <span class="xi1">5</span>',
                        '回复:</span> <span class="xi1">4</span>')  # fmt: skip
    assert gone != admin
    result = run(gone.encode("utf-8"), "04:30:00")
    assert result.exit_code == 0, result.output
    assert "alice" in json.loads(result.stdout)["not_voted"]


def test_a_ballot_behind_hide_for_credits_stops_too(forum, tmp_path):
    """[hide=N]: "本帖隐藏的内容需要积分高于 N 才可浏览" (the template's words, in its place)."""
    url = forum.url("forum.php?mod=viewthread&tid=24")
    game = _hide_game(tmp_path, url)
    body = page("hide-guest").decode("utf-8")
    old = ('游客，如果您要查看本帖隐藏内容请<a href="forum.php?mod=post&amp;action=reply&amp;fid=3&amp;'
           "tid=24\" onclick=\"showWindow('reply', this.href)\">回复</a>")
    assert old in body
    forum.add_discuz_page("24", 1, body.replace(old, "游客，本帖隐藏的内容需要积分高于 100 才可浏览，"
                                                     "您当前积分为 0").encode("utf-8"))  # fmt: skip
    when = datetime.fromisoformat("2026-12-02 04:20:00").replace(tzinfo=CHINA)
    result = runner.invoke(app, ["votes", url, "--game", game, "--cache-dir",
                                 str(tmp_path / "c"), "--json"],
                           obj=env(FakeClock(when.astimezone(UTC))))  # fmt: skip
    assert result.exit_code == 4 and "[hide]" in result.stderr


def _merge_game(tmp_path: Path, discussion: str, vote: str) -> str:
    path = write_game(
        tmp_path / "merge.toml",
        day(2, vote, "2026-12-02T06:00:00", "2026-12-02T12:00:00", discussion=discussion),
        name="合并局", ruleset="default", directors=["admin"], players=WITH_IDS,
    )  # fmt: skip
    return str(path)


@pytest.mark.rules("S2", "C5")
def test_posts_merged_in_from_the_discussion_thread_are_no_ballots(forum, tmp_path):
    """A moderator merged the day's discussion thread into the vote thread (real X3.5):
    carol's and dave's 投票对象 lines posted there became floors of the vote thread, and
    alice was out with 3 votes, posted unattended by `watch --post`. tally had read them in
    the discussion thread (its post ids are the board's): they are rows of their own, moved
    in, never counted, and the tie stands (C5)."""
    discussion = forum.url("forum.php?mod=viewthread&tid=7")
    vote = forum.url("forum.php?mod=viewthread&tid=8")
    game = _merge_game(tmp_path, discussion, vote)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    clock = env(FakeClock(datetime(2026, 12, 2, 12, 5, tzinfo=CHINA).astimezone(UTC)))
    forum.add_discuz_page("7", 1, page("merge-discussion-guest"))
    forum.add_discuz_page("8", 1, page("merge-vote-before-guest"))
    before = runner.invoke(app, ["lurkers", "--game", game, "--day", "2", "--no-write", *cache],
                           obj=clock)  # fmt: skip
    assert before.exit_code == 0, before.output
    forum.routes.clear()  # merged: thread 7 is gone, thread 8 holds its posts
    forum.add_discuz_page("8", 1, page("merge-vote-guest"))
    result = runner.invoke(app, ["votes", vote, "--game", game, "--json", *cache], obj=clock)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    moved = [(b["floor"], b["author"]) for b in data["ballots"] if b["status"] == "moved_in"]
    assert moved == [(2, "carol"), (3, "dave"), (4, "eve")]
    assert {b["voter"] for b in data["ballots"] if b["status"] == "counted"} == {"alice", "bob"}
    assert data["outcome"]["result"] == "none"
    assert sorted(data["not_voted"]) == ["carol", "dave", "eve"]
    assert [f["floor"] for f in data["flags"] if f["rule"] == "moved in"] == [2, 3, 4]


def _merged(forum, tmp_path):  # type: ignore[no-untyped-def]
    """Threads 7 (discussion) and 8 (vote) read by `tally lurkers`, then 7 merged into 8."""
    discussion = forum.url("forum.php?mod=viewthread&tid=7")
    vote = forum.url("forum.php?mod=viewthread&tid=8")
    game = _merge_game(tmp_path, discussion, vote)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    clock = env(FakeClock(datetime(2026, 12, 2, 12, 5, tzinfo=CHINA).astimezone(UTC)))
    forum.add_discuz_page("7", 1, page("merge-discussion-guest"))
    forum.add_discuz_page("8", 1, page("merge-vote-before-guest"))
    before = runner.invoke(app, ["lurkers", "--game", game, "--day", "2", "--no-write", *cache],
                           obj=clock)  # fmt: skip
    assert before.exit_code == 0, before.output
    forum.routes.clear()
    forum.add_discuz_page("8", 1, page("merge-vote-guest"))
    return vote, ["--game", game, "--json", *cache], clock


def _statuses(result) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return [(b["floor"], b["status"]) for b in json.loads(result.stdout)["ballots"]]


def test_posts_merged_in_stay_moved_in_on_every_run_after(forum, tmp_path):
    vote, args, clock = _merged(forum, tmp_path)
    first = _statuses(runner.invoke(app, ["votes", vote, *args], obj=clock))
    again = _statuses(runner.invoke(app, ["votes", vote, *args], obj=clock))
    assert first == again and [f for f, s in again if s == "moved_in"] == [2, 3, 4]


def test_a_cache_from_before_post_ids_were_kept_still_tells_merged_posts(forum, tmp_path):
    """From the second cold read: a discussion thread read by a tally that kept no
    posts.json (its history only) showed the merged posts nowhere."""
    vote, args, clock = _merged(forum, tmp_path)
    for kept in (tmp_path / "cache").glob("*/posts.json"):
        kept.unlink()  # as a cache written before this change
    for _ in range(2):  # and on the run after, which reads the post ids it kept
        rows = _statuses(runner.invoke(app, ["votes", vote, *args], obj=clock))
        assert [f for f, s in rows if s == "moved_in"] == [2, 3, 4]


def test_a_ballot_moved_out_and_back_is_its_threads_own(forum, tmp_path):
    """From the second cold read: a ballot read in the vote thread, split into thread 9 (read
    there), and moved back, was cast in the vote thread: it counts."""
    vote = forum.url("forum.php?mod=viewthread&tid=8")
    game = _merge_game(tmp_path, forum.url("forum.php?mod=viewthread&tid=7"), vote)
    args = ["--game", game, "--json", "--cache-dir", str(tmp_path / "cache")]
    clock = env(FakeClock(datetime(2026, 12, 2, 12, 5, tzinfo=CHINA).astimezone(UTC)))
    forum.add_discuz_page("8", 1, page("merge-vote-before-guest"))
    assert runner.invoke(app, ["votes", vote, *args], obj=clock).exit_code == 0
    own = next((tmp_path / "cache").glob("discuz-*-8"))
    nine = own.with_name(own.name[:-1] + "9")
    nine.mkdir()
    (nine / "posts.json").write_text(json.dumps(sorted(json.loads((own / "posts.json").read_text()))))
    rows = _statuses(runner.invoke(app, ["votes", vote, *args], obj=clock))
    assert "moved_in" not in {s for _, s in rows}


@pytest.mark.rules("V7")
def test_a_ban_where_a_player_moderates_the_board_is_flagged(forum, tmp_path):
    """Issue 48: a moderator who is also a player (bob, 版主 on the real X3.5) may 屏蔽 another's
    ballot, and the page never says who 屏蔽ed it: carol's floor is a 被屏蔽 row like any, and a
    flag names bob, his uid and his group, once."""
    url = forum.url("forum.php?mod=viewthread&tid=2")
    forum.add_discuz_page("2", 1, page("moderator-player-guest"))
    game = game_file(tmp_path, url).replace("2026-12-01T09:00:00", "2026-12-06T09:00:00")
    game_path = Path(game)
    game_path.write_text(game_path.read_text(encoding="utf-8").replace(
        "2026-12-01T17:05:00", "2026-12-06T21:00:00"), encoding="utf-8")  # fmt: skip
    clock = FakeClock(datetime(2026, 12, 6, 21, 30, tzinfo=CHINA).astimezone(UTC))
    result = runner.invoke(app, ["votes", url, "--game", game, "--json"], obj=env(clock))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(b["floor"], b["author"], b["status"]) for b in data["ballots"]] == [
        (2, "alice", "counted"), (3, "bob", "counted"), (4, "carol", "banned")]  # fmt: skip
    [flag] = [f for f in data["flags"] if f["rule"] == "moderator"]
    assert flag["player"] == "bob" and flag["floor"] == 4
    assert "bob (uid 3), a player of this game, is one of the board's moderators (版主)" in flag["note"]
    assert "管理中心 → 运行记录" in flag["note"]


@pytest.mark.rules("V7")
def test_a_ban_where_no_player_moderates_says_nothing_more(forum, tmp_path):
    """The director (admin, 管理员) moderates; no player does: no flag."""
    forum.add_discuz_page("1", 1, page("vote-2-banned-guest"))
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert any(b["status"] == "banned" for b in data["ballots"])
    assert not [f for f in data["flags"] if f["rule"] == "moderator"]


def test_the_history_a_read_hands_on_is_the_one_the_next_run_reads_back(tmp_path):
    """A read's own pages join its history as they are stored: a post's user group
    (``Post.moderator``), which the stored form leaves out, made a page this read found
    unchanged differ from that page read back, so the read before, whose listing of it had
    moved on to this one, was not whole. On a real X3.5 (the director an admin, floor 1 on
    page 1) a ballot merged into page 2 after that read (合并) went unflagged at the first
    count after the close, and was flagged as `came in` by the next."""
    from tally.forums import resolve_url
    from tally.forums.cache import Cache
    from tally.forums.fetch import store_versions
    from tally.forums.getting import FetchOptions, PageReader
    from tally.model import Page, Post

    platform, ref = resolve_url("https://bbs.example.com/forum.php?mod=viewthread&tid=7")
    cache = tmp_path / "cache"
    reader = PageReader(platform, ref, CHINA, None, Cache(cache).thread("discuz", "bbs.example.com", "7"),  # type: ignore[arg-type]
                        FetchOptions(cache_dir=cache))  # fmt: skip
    when = at("17:00:00").now()
    first = Post("discuz", "7", "11", 1, "admin", "1", when, "投票贴", moderator="管理员")
    page = Page("discuz", "7", 1, 1, (first,))
    known = store_versions(reader, [(1, page, when)], "thread 7")
    again = store_versions(reader, [(1, page, at("17:02:00").now())], "thread 7", known)
    assert [v.posts for v in again.versions] == [v.posts for v in Cache(cache).history(ref).versions]
