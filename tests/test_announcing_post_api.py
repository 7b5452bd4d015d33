"""`--post` through Discuz!'s mobile interface (issue 50, items 6 and 7): where the board serves
it (``api/mobile/index.php``, on as X3.5 ships it), the reply goes through ``module=sendreply``
with the form hash and member its ``viewthread`` gives the director's cookies, in the board's
charset; the answer's key decides (the new pid, read back; held for a moderator; each refusal
one sentence; the 503 a stale form hash; anything else looked for in the thread). Where the
interface is off, the web form, said once. The session's secrets every answer echoes are never
printed, logged, kept or cached. On the loopback board (tests/discuzboard.py, tests/discuzapi.py)
and on the real X3.5's answers themselves (fixtures/discuz-api-post).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tally.demo.localforum import Reply
from tally.errors import HeldPost, MaybePosted, PostError
from tally.forums import resolve_url
from tally.forums.discuz.mobile_reply import interface_form, read_sent
from tally.forums.http import Response
from tally.forums.replies import INTERFACE, ReplyForm, Unserved
from tally.journal import Journal, journal_path

from . import discuzapi, discuzboard
from .conftest import CHINA, FOLDERS, FakeClock
from .discuzapi import CLOSED, PLUGIN_OFF, captured
from .discuzboard import Board
from .test_announcing_post import NOT_POSTED, after_close, announce, setup, watch

OFF_WARNING = ("tally: warning: the board does not serve Discuz!'s mobile interface "
               "(api/mobile/index.php: {}): tally posts through the thread page's reply form.")  # fmt: skip


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def states(game: str) -> list[tuple[str, str | None]]:
    return [(e.state, e.pid) for e in Journal(journal_path(Path(game))).entries()]


def api_requests(board: Board) -> list[str]:
    """The interface's modules asked, in order; version 1's viewthread (the edit marks version
    4 hides) as viewthread/1."""
    return [r.split("module=")[1].split("&")[0] + ("/1" if "version=1" in r else "")
            for r in board.forum.requests if "/api/mobile/" in r]  # fmt: skip


# -- posted through the interface --------------------------------------------------------------


def test_posted_through_the_interface_and_read_back(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board), "--yes", "--json")
    assert result.exit_code == 0, result.stderr
    posted = json.loads(result.stdout)["posted"]
    # The pid the answer gave, the floor the thread shows it on, read back as sent.
    assert (posted["pid"], posted["floor"], posted["read_back"], posted["via"]) == ("2020", 20, True, "api")
    assert board.threads["102"].pid(20) == 2020 and board.threads["102"].posts[-1].author == "导演A"
    # The thread read through the interface (its probe, the thread's first floor; the count
    # with the edit marks version 4 hides asked of version 1 once; the read inside the lock,
    # which knows them), then the post: the form (a page of one post, its version 4 asked of
    # it, no module=check before it), secure, sendreply; the read back.
    assert api_requests(board) == ["viewthread", "viewthread", "viewthread/1", "viewthread",
                                   "viewthread", "secure", "sendreply",
                                   "viewthread"]  # fmt: skip
    # No page of the thread was asked for its form: the pages read are the thread's reads.
    [form] = board.forms
    assert "mobiletype" not in form and form["smileyoff"] == "1"
    assert form["message"] == board.replies[0][2]
    assert states(game) == [("posted", "2020")]
    assert "does not serve" not in result.stderr


def test_a_redirect_before_the_json_is_asked_again_once(board, tmp_path):
    """The first request after a deletion or a held reply answers a 302 to the touch page
    (the forum renumbers the thread): asked again, the JSON."""
    _, game, cookies = setup(board, tmp_path)
    board.moved.add("102")
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    asked = api_requests(board)
    # The first request (the probe, the thread's first floor) answered the redirect and was
    # asked again once; the read and the post went through the interface.
    assert asked[:4] == ["viewthread", "viewthread", "viewthread", "viewthread/1"]
    assert "sendreply" in asked
    assert len([r for r in board.forum.requests
                if "version=4&module=viewthread&tid=102&page=1&ppp=1&" in r]) == 2  # fmt: skip
    assert "does not serve" not in result.stderr


def test_a_gbk_board_gets_the_message_in_gbk(forum, tmp_path):
    """The board reads the form as GBK (its answer's Charset): the text arrives whole. Sent
    as UTF-8, it would read as mojibake, and the read back would say so."""
    board = Board(forum, charset="gbk")
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    assert board.replies[0][2] == result.stdout
    assert "read back: the forum shows what was sent" in result.stderr
    assert api_requests(board)[-2:] == ["sendreply", "viewthread"]  # sent, then read back
    gbk = [h for h in board.forum.request_headers if "charset=gbk" in h.get("Content-Type", "")]
    assert len(gbk) == 1


# -- what the interface answers ----------------------------------------------------------------


def _no_formhash(board: Board) -> None:
    """X3.4 (no 503 for it) and a form that lost its hash: Discuz!'s submitcheck refuses."""
    board.version = "X3.4"
    original = board._reply

    def without(query, headers, form, who):  # type: ignore[no-untyped-def]
        return original(query, headers, {k: v for k, v in form.items() if k != "formhash"}, who)

    board._reply = without  # type: ignore[method-assign]


def _logged_out(board: Board) -> None:
    """The session a guest's by the send, with a guest's form hash (what a real X3.5 answered
    a guest's session: sendreply_guest_session)."""
    original = board._reply

    def guest(query, headers, form, who):  # type: ignore[no-untyped-def]
        return original(query, headers, {**form, "formhash": discuzboard.GUEST_FORMHASH}, None)

    board._reply = guest  # type: ignore[method-assign]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda b: b.closed.add("102"), "the thread is closed to new replies (post_thread_closed); "
         "ask a moderator to open it, or post the result in another thread."),
        (lambda b: setattr(b, "minpostsize", 100000), "the forum finds the post too short "
         "(post_message_tooshort)."),
        (lambda b: setattr(b, "maxpostsize", 20), "the forum finds the post too long "
         "(post_message_toolong); shorten the template."),
        (lambda b: setattr(b, "banned", ("白桃",)), "the forum's word filter refused the post "
         "(word_banned); a name or reason in it is on the board's list: edit the text and post "
         "by hand."),
        (lambda b: setattr(b, "posts_per_hour", 0), "the forum's hourly limit refused it "
         "(post_flood_ctrl_posts_per_hour); post by hand later or from another director's account."),
        # A code asked at the send only (secure named none: the rule found it then).
        (lambda b: setattr(b, "seccode", True), "the forum wants a verification code (验证码) for "
         "this post (submit_seccode_invalid), which only a person can type: post by hand."),
        (_no_formhash, "the forum refused the form (submit_invalid): the formhash or the page it "
         "was sent from did not match the session; export the cookies again and post again."),
        (_logged_out, "the forum does not see tally as logged in (replyperm_login_nopermission): "
         "export the cookies again from a browser that is logged in as the director, and pass "
         "them with --cookies."),
    ],
)
def test_each_refusal_is_one_sentence(board, tmp_path, change: Callable[[Board], None], said):
    _, game, cookies = setup(board, tmp_path)
    change(board)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    assert result.stderr.strip().splitlines()[-1] == "tally: " + said
    assert len(board.answers) == 1 and api_requests(board)[-1] == "sendreply"
    assert states(game) == [("refused", None)]


def test_flood_control_is_said_and_not_retried(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    board.last_post[7] = clock.now().timestamp() - 3
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == NOT_POSTED
    assert result.stderr.endswith(
        "tally: the forum's flood control refused it (post_flood_ctrl); tally does not try "
        "again on its own: post again after that wait.\n"
    )
    assert len(board.answers) == 1


def test_a_stale_form_hash_is_the_503_page_in_one_sentence_never_sent_again(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    original = board._reply

    def stale(query, headers, form, who):  # type: ignore[no-untyped-def]
        return original(query, headers, {**form, "formhash": "deadbeef"}, who)

    board._reply = stale  # type: ignore[method-assign]
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    assert result.stderr.strip().splitlines()[-1] == (
        "tally: the forum refused the form as a System Error (HTTP 503, 含有非法字符): it did "
        "not accept the session's formhash; log in again in the browser, export the cookies "
        "again and post again."
    )
    assert [status for status, _ in board.answers] == [503]  # once: a 503 of a post is never retried
    assert states(game) == [("refused", None)]


UNKNOWN_ANSWERS = [
    (Reply(200, b'{"Version":"4","Variables":{"pid":"0"},"Message":{"messageval":"post_newthing"}}',
           {"Content-type": "application/json"}), "the forum answered post_newthing (HTTP 200) and "
     "neither a new post nor a reason tally knows"),
    (Reply(200, "<!DOCTYPE html><html><body>提示信息</body></html>".encode()),
     "the forum answered an HTML page and neither a new post nor a reason tally knows"),
    (Reply(502, b"<html>bad gateway</html>"), "got no answer (HTTP 502)"),
]  # fmt: skip


@pytest.mark.parametrize(("answer", "said"), UNKNOWN_ANSWERS)
def test_an_answer_tally_does_not_know_after_the_post_is_made_finds_it(board, tmp_path, answer, said):
    """The forum took the post and answered something else: the thread read again holds it,
    so it is the post, recorded and read back; never sent twice."""
    _, game, cookies = setup(board, tmp_path)
    original = board._reply

    def took_it(query, headers, form, who):  # type: ignore[no-untyped-def]
        original(query, headers, form, who)
        return answer

    board._reply = took_it  # type: ignore[method-assign]
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    assert len(board.replies) == 1 and states(game) == [("posted", "2020")]
    assert "posted as 导演A, floor 20" in result.stderr


@pytest.mark.parametrize(("answer", "said"), UNKNOWN_ANSWERS)
def test_an_answer_tally_does_not_know_says_to_look_at_the_thread(board, tmp_path, answer, said):
    _, game, cookies = setup(board, tmp_path)
    board._reply = lambda query, headers, form, who: answer  # type: ignore[method-assign]
    clock = after_close(board)
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == NOT_POSTED
    last = result.stderr.strip().splitlines()[-1]
    assert said in last and "the thread read again shows no post of it" in last
    assert "paste" not in last and states(game) == [("unknown", None)]
    again = announce(game, cookies, clock, "--yes")  # never sent blindly again
    assert again.exit_code == NOT_POSTED and "never heard the forum's answer" in again.stderr
    assert api_requests(board).count("sendreply") == 1


# -- the interface off: the web form, said once ------------------------------------------------


@pytest.mark.parametrize(
    ("off", "why"),
    [
        (CLOSED, 'its viewthread answers {"error": mobile_is_closed}'),
        (PLUGIN_OFF, "its viewthread answers an HTML page"),
    ],
)
def test_the_interface_off_posts_through_the_web_form_said_once(board, tmp_path, off, why):
    url, game, cookies = setup(board, tmp_path)
    board.interface = off
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    # watch --post asks for the form at its start and again at the close: said once.
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count(OFF_WARNING.format(why)) == 1
    assert "sendreply" not in api_requests(board)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    [posted] = [line["posted"] for line in lines if "posted" in line]
    assert (posted["floor"], posted["via"], posted["read_back"]) == (20, "form", True)
    # The fast-reply form as a browser sends it.
    sent = [h for h in board.forum.request_headers if h.get("Content-Type", "").startswith(
        "application/x-www-form-urlencoded")]  # fmt: skip
    assert len(sent) == 1 and sent[0]["Referer"].endswith("tid=102&page=2")


# -- secrets -----------------------------------------------------------------------------------


def test_no_secret_an_answer_echoes_is_printed_logged_kept_or_cached(board, tmp_path, caplog):
    """auth, saltkey and formhash come back in every answer of the interface: nowhere in what
    tally prints (plain and --json), logs, keeps (the journal, the text kept to paste) or
    caches, through a refusal, the 503, an answer tally does not know (which echoes them
    too) and the post."""
    url, game, cookies = setup(board, tmp_path)
    [member] = board.members.values()
    secrets = {"auth": member.auth, "saltkey": "ab12CD34", "formhash": member.formhash}
    clock = after_close(board)
    caplog.set_level(logging.DEBUG)
    original = board._reply

    def unknown(query, headers, form, who):  # type: ignore[no-untyped-def]
        return discuzapi.sendreply(board, who, discuzboard._cookies(headers), "102", "post_newthing", None)

    said = []
    for change in (
        lambda: setattr(board, "minpostsize", 100000),  # refused
        lambda: setattr(board, "_reply", lambda q, h, f, w: original(q, h, {**f, "formhash": "0"}, w)),
        lambda: setattr(board, "_reply", unknown),  # not known: looked for, said
        lambda: journal_path(Path(game)).unlink(),  # looked at by hand: posted at last
    ):
        board.minpostsize, board._reply = 10, original  # type: ignore[method-assign]
        change()
        for run in (lambda: announce(game, cookies, clock, "--yes"),
                    lambda: announce(game, cookies, clock, "--yes", "--json"),
                    lambda: watch(url, game, cookies, clock, "--post")):  # fmt: skip
            result = run()
            said += [result.stdout, result.stderr]
        clock.sleep(60)
    said.append(caplog.text)
    kept = [p.read_text("utf-8", "replace") for p in tmp_path.iterdir()
            if p.is_file() and p.name != "cookies.txt"]  # fmt: skip
    cached = [p.read_bytes().decode("utf-8", "replace") for p in FOLDERS.home.rglob("*") if p.is_file()]
    assert any("posted as 导演A" in s for s in said)  # the post went through in the end
    assert any(name.endswith(".close.txt") for name in (p.name for p in tmp_path.iterdir()))
    assert sum(f'"auth":"{member.auth}"' in a for _, a in board.answers) >= 4  # echoed each time
    for name, value in secrets.items():
        assert not [s for s in said if value in s], name
        assert not [k for k in kept if value in k], name
    # The interface's answers tally read the thread from are cached, scrubbed of all three.
    assert any('"Variables"' in c for c in cached)
    assert not [c for c in cached if any(value in c for value in secrets.values())]


# -- the real X3.5's answers, read ---------------------------------------------------------------


def link(pid: str) -> str:
    return f"http://127.0.0.1:8900/forum.php?mod=redirect&goto=findpost&ptid=1&pid={pid}"


def test_the_real_answers_of_sendreply():
    def read(name: str):  # type: ignore[no-untyped-def]
        got = captured(name)
        return read_sent(got.status, got.body, link)

    accepted = read("sendreply_success_bob")
    assert (accepted.pid, accepted.url) == ("26", link("26"))
    with pytest.raises(HeldPost, match=r"for a moderator to approve \(回复需要审核\)"):
        read("sendreply_moderated_carol")
    keys = {"flood_bob": "post_flood_ctrl", "closed_bob": "post_thread_closed",
            "tooshort_carol": "post_message_tooshort", "guest_session": "replyperm_login_nopermission",
            "noformhash_dave": "submit_invalid", "toolong_dave": "post_message_toolong",
            "banned_dave": "word_banned", "hourly_dave": "post_flood_ctrl_posts_per_hour",
            "seccode_dave": "submit_seccode_invalid"}  # fmt: skip
    for name, key in keys.items():
        with pytest.raises(PostError, match=re.escape(f"({key})")) as info:
            read(f"sendreply_{name}")
        assert not isinstance(info.value, MaybePosted) and f"({key})" in str(info.value), name
    for name in ("wrongformhash_dave", "guest", "noformhash_paren_eve"):  # read by explain
        from tally.forums.discuz.reply import system_error

        got = captured(f"sendreply_{name}")
        assert got.status == 503
        assert "System Error (HTTP 503" in str(system_error(got.status, got.body.decode()))


def asking(answers: dict[str, str]) -> Callable[[str], Response]:
    """The board as the captures answered it: each module by its captured answer."""

    def ask(url: str) -> Response:
        module = url.split("module=")[1].split("&")[0]
        got = captured(answers[module])
        return Response(url, got.status, got.headers, got.body)

    return ask


def test_the_real_answers_give_the_form_or_say_the_interface_is_off():
    ref = resolve_url("http://127.0.0.1:8900/forum.php?mod=viewthread&tid=1")[1]
    form = interface_form(ref, asking({"viewthread": "vt_t1_p1_alice",
                                       "secure": "secure_post_off_dave"}))  # fmt: skip
    assert isinstance(form, ReplyForm) and form.via == INTERFACE
    assert (form.uid, form.member, form.charset, form.asks) == ("2", "alice", "utf-8", "")
    assert form.action == "http://127.0.0.1:8900/api/mobile/index.php?version=4&module=sendreply&tid=1&replysubmit=yes"
    assert dict(form.fields) == {"formhash": "SCRUBBED"} and "SCRUBBED" not in repr(form)
    asks = interface_form(ref, asking({"viewthread": "vt_t1_p1_alice",
                                       "secure": "secure_post_seccode_dave"}))  # fmt: skip
    assert isinstance(asks, ReplyForm) and asks.asks == "验证码"
    guest = interface_form(ref, asking({"viewthread": "vt_t1_p1_guest",
                                        "secure": "secure_post_off_dave"}))  # fmt: skip
    assert isinstance(guest, ReplyForm) and (guest.uid, guest.member) == ("0", "")
    closed = interface_form(ref, asking({"viewthread": "off_allowmobile0_viewthread"}))
    assert closed == Unserved("the board does not serve Discuz!'s mobile interface "
                              '(api/mobile/index.php: its viewthread answers {"error": mobile_is_closed})')
    # An answer of another version than the 4 asked for (the real answer, its Version
    # changed): its fields may mean other things, so the form is the page's.
    four = captured("vt_t1_p1_alice")
    other = json.loads(four.body)
    other["Version"] = "1"
    older = interface_form(ref, lambda url: Response(url, four.status, four.headers,
                                                     json.dumps(other).encode()))
    assert isinstance(older, Unserved) and older.why.endswith("its viewthread answers no version 4)")
    touch = interface_form(ref, asking({"viewthread": "off_plugin_disabled_viewthread"}))
    assert isinstance(touch, Unserved) and touch.why.endswith("its viewthread answers an HTML page)")
