"""What a three-day game on a real Discuz! X3.5 showed tally getting wrong, each as it
happened there, made again on loopback pages (tests/discuzgen.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.commands.post import hidden_from_players
from tally.commands.watch import Schedule, read_polls
from tally.demo.localforum import Reply
from tally.environment import HttpOptions
from tally.forums.reader import Reader, Reading
from tally.rules.game.gamefile import load_game
from tally.rules.judging.ballot_text import read_ballot
from tally.rules.verdicts import VoidReason

from .conftest import FIXTURES, FakeClock, Runner
from .discuzgen import P, Thread
from .gamefiles import day, write_game

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")
SUSPECTS = ["alice", "bob", "carol", "dave"]
PLAYERS = [*SUSPECTS, "heidi", "ivan"]


def _election_game(
    forum, tmp_path: Path, *, void_vote: bool = False, rulings: Sequence[Mapping] = ()
) -> Path:
    talk = Thread("701", "【T01】测试村 第一天讨论帖", {}, first_pid=7000)
    talk.add(P("admin", "2026-12-01 21:48:00", "开门：12月1日 21:48\n关门：12月1日 22:10"))
    for i in range(5):
        for n, p in enumerate(PLAYERS):
            talk.add(P(p, f"2026-12-01 21:5{i}:{10 + n:02d}", f"第一天发言第{i + 1}条，我是{p}"))
    vote = Thread("702", "【T01】测试村 第一天 警长竞选投票帖", {}, first_pid=7100)
    vote.add(P("admin", "2026-12-01 21:48:30", "投票截止：12月1日 22:10"))
    vote.add(P("alice", "2026-12-01 21:58:00", "投票对象：carol\n投票理由：好人"))
    vote.add(P("bob", "2026-12-01 21:58:10", "投票对象：dave\n投票理由：稳"))
    vote.add(P("carol", "2026-12-01 21:58:20", "投票对象：dave\n投票理由：稳"))
    vote.add(P("dave", "2026-12-01 21:58:30", "投票对象：carol\n投票理由：好"))
    # heidi is no 嫌疑人: she may not vote in the election (V12), and tries.
    vote.add(P("heidi", "2026-12-01 21:58:40", "投票对象：carol\n投票理由：支持"))
    if void_vote:  # a 嫌疑人 who votes for one who may not be elected (V12)
        vote.add(P("dave", "2026-12-01 21:58:50", "投票对象：heidi\n投票理由：想让她当"))
    roles = dict.fromkeys(SUSPECTS, "嫌疑人") | {"heidi": "证人", "ivan": "证人"}
    return write_game(
        tmp_path / "game.toml",
        day(1, vote.serve(forum), "2026-12-01T21:48:00", "2026-12-01T22:10:00",
            discussion=talk.serve(forum)),
        name="测试村", ruleset="000", directors=["admin"], players=PLAYERS, roles=roles,
        rules={"election_voters": ["嫌疑人"]}, rulings=rulings,
    )  # fmt: skip


@pytest.mark.rules("V12", "L3")
def test_L3_no_card_for_not_voting_in_an_election_one_may_not_vote_in(forum, tmp_path):
    """Real X3.5, day 1 of the check game: heidi (no 嫌疑人) posted a ballot, void as
    not_elector, and ivan (no 嫌疑人) posted none; `tally lurkers` gave both a yellow card
    "第1天未投票". V12 takes the vote from them that day, so L3 has nothing to card."""
    game = _election_game(forum, tmp_path)
    args = ["lurkers", "--game", str(game), "--day", "1", "--json", "-q", "--no-write"]
    result = runner.invoke(app, args, obj=FakeClock("2026-12-02 10:00:00", CHINA).env())
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(c["player"], c["rule"]) for c in data["cards"]] == []
    voted = {p["player"]: p["voted"] for p in data["players"]}
    assert voted["carol"] is True and voted["heidi"] is None and voted["ivan"] is None


def test_a_watch_that_cannot_read_is_not_told_to_add_offline(forum, tmp_path):
    """Real X3.5 stopped (down.sh) under `tally watch`: each failing poll said "… The cache
    holds every page of this thread as read before the close: add --offline to count from
    it." — watch takes no --offline (it never counts from the cache), so the advice is one it
    cannot follow. The poll says the forum failed, and nothing about --offline."""
    game = load_game(_election_game(forum, tmp_path))
    clock = FakeClock("2026-12-01 21:59:00", CHINA)
    reader = Reader(
        clock.env(http=HttpOptions(host_delay=0, attempts=1)),
        Reading(cache_dir=tmp_path / "cache"),
    )
    polls = read_polls(game, game.day(1).vote or "", schedule=Schedule(every=60), reader=reader)
    assert next(polls).ok
    forum.hook = lambda path: Reply(503, b"busy", {})
    failed = next(polls)
    assert not failed.ok and "503" in (failed.error or "")
    assert "--offline" not in (failed.error or "")


@pytest.mark.rules("V12")
def test_V12_who_may_not_elect_is_not_listed_as_not_voted(forum, tmp_path):
    """Real X3.5, day 1: the closing post said 尚未投票：frank、heidi、grace; heidi is no 嫌疑人
    and may not vote in the election (V12), so she has no vote to be missing."""
    game = _election_game(forum, tmp_path)
    args = ["votes", str(load_game(game).day(1).vote), "--game", str(game), "--json", "-q"]
    result = runner.invoke(app, args, obj=FakeClock("2026-12-02 10:00:00", CHINA).env())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["not_voted"] == []


@pytest.mark.rules("V6", "V1")
def test_two_targets_under_one_reason_are_several_ballots_not_a_missing_reason():
    """Real X3.5, day 2, floor 13 (grace): "投票对象：bob / 投票对象：eve / 投票理由：两个都可疑"
    was void as format, "no 投票理由", though the post has one; it holds two ballots (V6)."""
    reading = read_ballot("投票对象：bob\n投票对象：eve\n投票理由：两个都可疑")
    assert reading.problem is not None
    assert reading.problem.code is VoidReason.SEVERAL_BALLOTS
    assert [b.target for b in reading.ballots] == ["bob", "eve"]
    # One target without its reason is still the format's fault (V1).
    alone = read_ballot("投票对象：bob")
    assert alone.problem is not None and alone.problem.code is VoidReason.FORMAT


def test_init_leaves_out_look_alike_accounts_so_its_file_loads(forum, tmp_path):
    """Real X3.5, day 1: `tally init` wrote bob。 (uid 10) and admin! (uid 11) as players
    beside bob and the director admin, and tally then refused its own file: "'bob。' and
    'bob' (a player) are one name to tally". They are left out, said so, and the file
    counts them as the look-alikes they are."""
    uids = {"admin": 1, "alice": 2, "bob": 3, "carol": 4, "bob。": 10, "admin!": 11}
    talk = Thread("711", "【T01】测试村 第一天讨论帖", uids, first_pid=7200)
    talk.add(P("admin", "2026-12-01 21:48:00", "开门：12月1日 21:48\n关门：12月1日 22:10"))
    vote = Thread("712", "【T01】测试村 第一天投票帖", uids, first_pid=7300)
    vote.add(P("admin", "2026-12-01 21:48:30", "投票截止：12月1日 22:10"))
    vote.add(P("alice", "2026-12-01 21:50:00", "投票对象：carol\n投票理由：好人"))
    vote.add(P("bob", "2026-12-01 21:50:10", "投票对象：carol\n投票理由：稳"))
    vote.add(P("carol", "2026-12-01 21:50:20", "投票对象：bob\n投票理由：稳"))
    vote.add(P("bob。", "2026-12-01 21:50:30", "投票对象：carol\n投票理由：我是bob"))
    vote.add(P("admin!", "2026-12-01 21:50:40", "代投：alice\n投票对象：bob\n投票理由：代投"))
    urls = [talk.serve(forum), vote.serve(forum)]
    game = tmp_path / "game.toml"
    env = FakeClock("2026-12-02 10:00:00", CHINA).env()
    made = runner.invoke(app, ["init", *urls, "-o", str(game), "--ruleset", "M126", "--name", "T"], obj=env)
    assert made.exit_code == 0, made.output
    assert "look-alikes (bob。、admin!)" in made.output
    text = game.read_text("utf-8")
    assert '# left out: { name = "bob。", id = 10 } reads as bob to tally' in text
    assert '# left out: { name = "admin!", id = 11 } reads as admin to tally' in text
    counted = runner.invoke(app, ["votes", urls[1], "--game", str(game), "--json", "-q"], obj=env)
    assert counted.exit_code == 0, counted.output
    rows = {b["floor"]: (b["status"], b["reason"]) for b in json.loads(counted.stdout)["ballots"]}
    assert rows[5] == ("void", "not_a_player") and rows[6] == ("void", "not_a_player")


@pytest.mark.rules("V5")
def test_an_edit_with_no_mark_is_not_said_to_be_after_the_close(forum, tmp_path):
    """Real X3.5, day 2, floor 2: the administrator changed alice's ballot at 22:29:30, three
    minutes before the close, and X3.5 wrote no mark; tally's next full read came after the
    close, and its flag said "changed after the close" — which nothing showed. Here the
    fixture's silent edit (fixtures/discuz-x35-changes): the flag says what is known."""
    changes = FIXTURES / "discuz-x35-changes"
    url = forum.url("forum.php?mod=viewthread&tid=1")
    game = write_game(
        tmp_path / "game.toml", day(2, url, "2026-12-01T09:00:00", "2026-12-01T17:05:00"),
        name="t", ruleset="M126", directors=["admin"],
        players=["alice", "bob", "carol", "dave", "eve"],
    )  # fmt: skip
    notes = []
    for clock, name in (("17:04:55", "vote-1-guest"), ("17:10:00", "vote-4-silent-edit-guest")):
        forum.add_discuz_page("1", 1, (changes / f"{name}.html").read_bytes())
        env = FakeClock(f"2026-12-01 {clock}", CHINA).env(http=HttpOptions(host_delay=0))
        args = ["votes", url, "--game", str(game), "--cache-dir", str(tmp_path / "c"), "--json"]
        result = runner.invoke(app, args, obj=env)
        assert result.exit_code == 0, result.output
        notes = [f["note"] for f in json.loads(result.stdout)["flags"] if f["rule"] == "edited"]
    [note] = notes
    assert note.startswith("changed after tally's last read before the close, and no edit mark")
    assert "after the close:" not in note


@pytest.mark.rules("K2", "V9")
def test_a_player_sent_off_by_a_red_card_cannot_vote(forum, tmp_path):
    """Real X3.5: `tally lurkers --day 2` wrote grace's third yellow, made it red (K1) and
    printed "Sent off (red card, K2): grace"; on day 3 grace posted 投票对象：carol and
    `tally votes` counted it, in force, with no flag. A player sent off is out (K2)."""
    vote = Thread("721", "【T01】测试村 第二天投票帖", {}, first_pid=7400)
    vote.add(P("admin", "2026-12-01 22:12:00", "投票截止：12月1日 22:32"))
    vote.add(P("alice", "2026-12-01 22:13:00", "投票对象：carol\n投票理由：好人"))
    vote.add(P("heidi", "2026-12-01 22:14:00", "投票对象：carol\n投票理由：红牌了也投"))
    url = vote.serve(forum)
    game = write_game(
        tmp_path / "game.toml", day(2, url, "2026-12-01T22:12:00", "2026-12-01T22:32:00"),
        name="t", ruleset="M126", directors=["admin"], players=PLAYERS,
    )  # fmt: skip
    (tmp_path / "game.cards.csv").write_text(
        "\ufeffday,player,colour,rule,reason,source\r\n1,heidi,red,L8,刷屏,director\r\n",
        encoding="utf-8",
    )
    args = ["votes", url, "--game", str(game), "--json", "-q"]
    result = runner.invoke(app, args, obj=FakeClock("2026-12-02 10:00:00", CHINA).env())
    assert result.exit_code == 0, result.output
    [heidi] = [b for b in json.loads(result.stdout)["ballots"] if b["voter"] == "heidi"]
    assert heidi["status"] != "counted"


@pytest.mark.rules("L3", "V12")
def test_an_L3_card_for_a_void_ballot_names_it(forum, tmp_path):
    """Real X3.5, day 1: frank's only ballot was void (not_electable, floor 7) and his L3
    card said "第1天未投票", as if he had posted none, while grace's named her post that was
    no ballot. The card names the void ballot and why, for the director to judge."""
    # The director voids dave's first ballot: all he has left are void ones.
    ruling = {"day": 1, "floor": 5, "action": "void"}
    game = _election_game(forum, tmp_path, void_vote=True, rulings=[ruling])
    args = ["lurkers", "--game", str(game), "--day", "1", "--json", "-q", "--no-write"]
    result = runner.invoke(app, args, obj=FakeClock("2026-12-02 10:00:00", CHINA).env())
    assert result.exit_code == 0, result.output
    reasons = {c["player"]: c["reason"] for c in json.loads(result.stdout)["cards"]}
    assert reasons == {"dave": "第1天未投票（投票帖5楼的票作废：导演裁定作废；7楼的票作废：不可当选警长）"}


@pytest.mark.parametrize(("name", "hidden"), [("hidden-author", True), ("vote-1-admin", False)])
def test_a_post_in_a_thread_of_hidden_replies_says_the_players_will_not_see_it(
    forum, tmp_path, name, hidden
):
    """Real X3.5, day 3: the vote thread had 回帖仅作者可见; `tally watch --post` replied the
    result there as admin, read it back ("read back: true"), and said nothing: alice's page
    and a guest's show that floor only as 此帖仅作者可见. Read as its author (an admin: the
    page marks every hidden reply), the thread is said to hide the post from the players."""
    tid = "2" if hidden else "1"
    forum.add_discuz_page(tid, 1, (FIXTURES / "discuz-x35-changes" / f"{name}.html").read_bytes())
    reader = Reader(FakeClock("2026-12-01 17:10:00", CHINA).env(), Reading(use_cache=False))
    with reader:
        thread = reader.thread(forum.url(f"forum.php?mod=viewthread&tid={tid}"), CHINA)
    said = hidden_from_players(thread)
    if not hidden:
        assert said is None
        return
    assert said == (
        f"thread {thread.thread_id}'s replies are hidden from the players (回帖仅作者可见), and so "
        "is this post: they see it only as 此帖仅作者可见; post the result where they can read it "
        "too (the discussion thread)."
    )
