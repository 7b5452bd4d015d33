"""Discuz!'s JSON for its mobile clients read into tally's model (issue 50), on the answers a
real Discuz! X3.5 gave (fixtures/discuz-api): every case of the interface, and the same vote
thread read through its HTML pages and through the JSON, post by post.

The strictness over generated answers (cut, damaged, wrong types, huge numbers) and the
scrubbing of the session's secrets are in test_hostile_discuz_api.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest

from tally.errors import (
    ApiUnavailable,
    NotAThreadError,
    PageMismatchError,
    ParseError,
    ThreadGoneError,
)
from tally.forums.charset import decode_page
from tally.forums.discuz import Discuz
from tally.forums.discuz.api import (
    comment_total,
    comment_url,
    parse_comments,
    parse_thread,
    probe,
    probe_url,
    thread_url,
)
from tally.forums.discuz.api_comments import comment_time, display_clock, number_comments
from tally.forums.discuz.comment_items import numbered
from tally.forums.discuz.comments import parse_comment_answer
from tally.forums.timeparse import Printed
from tally.model import HIDE_CODE, UNKNOWN_EDIT, UNKNOWN_LARGE_FONT, Page, Post, Thread, ThreadRef
from tally.rules.judging.standing import HIDDEN_REPLY, hidden_replies

from .conftest import CHINA, FIXTURES
from .discuzapi import php_json

API = FIXTURES / "discuz-api"
INDEX: dict[str, dict] = json.loads((API / "index.json").read_text("utf-8"))


@dataclass(frozen=True)
class Answer:
    name: str
    url: str
    status: int
    body: bytes
    content_type: str | None
    at: datetime  # its Date header

    def query(self, key: str, default: str | None = None) -> str | None:
        return parse_qs(urlsplit(self.url).query).get(key, [default])[0]

    @property
    def ref(self) -> ThreadRef:
        return ThreadRef("discuz", self.query("tid") or "", self.url.split("api/mobile/")[0])


def answer(name: str, *, real: bool = False) -> Answer:
    """The answer ``name`` as the board gave it (``real``), else as the same board gives it
    with 人性化时间 off (``minutes_only``): a 点评 shown counted back from the answer tells no
    minute, and sends the thread to its pages (test_a_relative_点评_time_sends_the_thread_to_
    its_html_pages); what a test reads from a 点评 is read where its minute is printed."""
    entry = INDEX[name]
    body = (API / entry["file"]).read_bytes() if "file" in entry else b""
    headers = entry["headers"]
    at = parsedate_to_datetime(headers["date"]).astimezone(UTC)
    return Answer(
        name,
        entry["request"].split(" ", 1)[1],
        entry["status"],
        body if real else minutes_only(body, at),
        headers.get("content-type"),
        at,
    )


# The display strings counted back from the answer: a post's (its exact dbdateline beside
# it), and a 点评's, which tally reads no minute from.
_COUNTED_BACK = re.compile(r"^(?:刚刚|半小时前|\d+(?:&nbsp;|\s)*(?:秒|分钟|小时)前)$")
_NO_MINUTE = re.compile(r"^(?:刚刚|\d+(?:&nbsp;|\s)*(?:秒|分钟)前)$")
BOARD_CLOCK = timezone(timedelta(hours=8))  # the test board's (Asia/Shanghai)


def minutes_only(body: bytes, at: datetime) -> bytes:
    """A viewthread or viewcomment answer as the board gives it with 人性化时间 off, as
    captured/minutes-guest.json shows ("2026-12-6 11:16", on the board's clock): each post's
    time from its exact ``dbdateline``, each 点评 shown "刚刚", "N 秒前" or "N 分钟前" at the
    latest minute that allows (the answer's Date less N). Times shown otherwise ("昨天
    11:16", "2 小时前"), and answers that are not JSON, are left as the board gave them."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    variables = data.get("Variables") if isinstance(data, dict) else None
    if not isinstance(variables, dict):
        return body

    def shown(when: datetime) -> str:
        when = when.astimezone(BOARD_CLOCK)
        return f"{when.year}-{when.month}-{when.day} {when:%H:%M}"

    for post in variables.get("postlist") or ():
        if _COUNTED_BACK.match(post.get("dateline", "")) and post.get("dbdateline"):
            post["dateline"] = shown(datetime.fromtimestamp(int(post["dbdateline"]), UTC))
    for items in (variables.get("comments") or {}).values():
        for item in items:
            said = item.get("dateline", "")
            if _NO_MINUTE.match(said):
                n = int(re.sub(r"\D", "", said) or 0)
                item["dateline"] = shown(at - (timedelta(minutes=n) if "分钟" in said
                                               else timedelta(seconds=n)))  # fmt: skip
    return php_json(data)


def thread(name: str, *, ppp: int | None = None, tz=CHINA) -> Page:
    """An answer as ``parse_thread`` reads it, with the page and page size it asked."""
    a = answer(name)
    return parse_thread(
        a.body, a.content_type, source=name, ref=a.ref, tz=tz,
        asked_page=int(a.query("page", "1") or 1), ppp=ppp or int(a.query("ppp", "10") or 10),
        at=a.at,
    )  # fmt: skip


def by_pid(page: Page) -> dict[str, Post]:
    return {p.post_id: p for p in page.posts}


# -- the requests -----------------------------------------------------------------------------


def test_the_requests_ask_version_4_a_polite_page_oldest_first():
    ref = ThreadRef("discuz", "101", "https://bbs.example.com/bbs/")
    assert probe_url(ref) == (
        "https://bbs.example.com/bbs/api/mobile/index.php?version=4&module=viewthread&tid=101"
        "&page=1&ppp=1&ordertype=2"
    )
    assert thread_url(ref) == (
        "https://bbs.example.com/bbs/api/mobile/index.php?version=4&module=viewthread&tid=101"
        "&page=1&ppp=100&ordertype=2"
    )
    assert thread_url("https://bbs.example.com/bbs", "7", 3, 50).endswith(
        "index.php?version=4&module=viewthread&tid=7&page=3&ppp=50&ordertype=2"
    )
    assert comment_url(ref.base, "101", "2024", 2) == (
        "https://bbs.example.com/bbs/api/mobile/index.php?version=4&module=viewcomment&tid=101"
        "&pid=2024&page=2"
    )
    for page, ppp in ((1, 101), (1, 0), (0, 10)):
        with pytest.raises(
            ValueError, match=f"^page {page} of {ppp} posts is no page tally asks for$"
        ):
            thread_url(ref, page=page, ppp=ppp)


# -- is it there? -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("answers/vt_t1_p1_guest", None),
        # The forum's message in place of the thread: the interface's answer all the same.
        ("answers/vt_t4_membersonly_guest", None),
        ("captured/missing-guest.json", None),
        ("answers/off_allowmobile0_viewthread", "is switched off (开启手机版: mobile_is_closed)"),
        ("answers/off_plugin_disabled_viewthread", "the touch theme's page"),
        ("answers/vt_t1_v1_alice", "answered version '1', not 4"),
        ("answers/vt_t5_after_delete_guest_1st", "answered an empty body"),
        # module=check is no probe: 开启手机版 off, it says version 4 as before (real X3.5),
        # and its answer is no viewthread's.
        ("answers/off_allowmobile0_check", "answered JSON that names no version"),
    ],
)
def test_the_probe_says_whether_the_board_serves_version_4(name, said):
    """The probe is the thread's first floor through viewthread: what tally reads with."""
    a = answer(name, real=True)
    found = probe(a.body, a.content_type)
    assert found == said if said is None else said in found


@pytest.mark.parametrize(
    ("body", "content_type", "said"),
    [
        (b'{"error":"to_login"}', "application/json", "serves logged-in members only"),
        (b'{"error":"board_closed"}', "application/json", "the board is closed"),
        (b'{"error":{"x":1}}', "application/json", 'answered the error {"x": 1}'),
        (b'{"Version":"1","Charset":"gbk"}', "application/json", "answered version '1', not 4"),
        (b"<html><head><title>Just a moment...</title></head><body><script>var s=1;"
         b"</script>challenge-platform</body></html>", "text/html", "an anti-bot check"),
        (b"<html><body>hello</body></html>", "text/html", "a web page instead of JSON"),
        (b'{"Version":"4"', "application/json", "cut short"),
        (b"[1, 2]", "application/json", "JSON of another shape"),
        (b"OK", "text/plain", "text that is not JSON"),
    ],
)
def test_every_other_answer_to_the_probe_is_one_clause(body, content_type, said):
    found = probe(body, content_type)
    assert found is not None and said in found and "\n" not in found


# -- the thread ---------------------------------------------------------------------------------

# Thread 1 as every reader's page 1 gives it: pid, floor, author, uid, UNIX time.
T1 = [
    ("1", 1, "alice", "2", 1796516169), ("2", 2, "bob", "3", 1796516169),
    ("3", 3, "carol", "4", 1796516170), ("4", 4, "dave", "5", 1796516171),
    ("5", 5, "eve", "6", 1796516171), ("6", 6, "admin", "1", 1796516172),
    ("7", 7, "carol", "4", 1796516174), ("8", 8, "bob", "3", 1796516182),
    ("9", 9, "bob", "3", 1796516183), ("10", 10, "bob", "3", 1796516184),
]  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["answers/vt_t1_p1_guest", "answers/vt_t1_p1_alice", "answers/vt_t1_p1_admin",
     "answers/vt_t1_banpost_bob", "answers/vt_t1_24h_relative_tz-5_carol"],
)  # fmt: skip
def test_floors_authors_and_exact_times_whoever_reads_in_whatever_zone(name):
    page = thread(name)
    found = [(p.post_id, p.floor, p.author, p.author_id, p.time) for p in page.posts]
    assert found == [(i, f, a, u, datetime.fromtimestamp(t, CHINA)) for i, f, a, u, t in T1]
    assert page.title == "【第一局】白天投票帖" and page.page == 1 and page.origin == "127.0.0.1:8900/"
    assert not page.closed and page.forum_id == "3"
    assert all(p.time.utcoffset() == timedelta(hours=8) for p in page.posts)


def test_times_are_the_utc_seconds_read_in_the_zone_tally_reads_in():
    page = thread("answers/vt_t1_12h_tz-5_carol", tz=ZoneInfo("America/New_York"))
    assert [(p.post_id, p.time.isoformat()) for p in page.posts] == [
        ("11", "2026-12-05T19:16:38-05:00"), ("25", "2026-12-05T19:18:39-05:00")
    ]  # fmt: skip


def test_the_words_quotes_and_red_font_of_a_page():
    posts = by_pid(thread("answers/vt_t1_p1_guest"))
    assert posts["1"].text == "请在本帖投票，格式：投票 玩家名。截止 20:00"
    assert posts["2"].text == "投票 carol 理由：发言很怪" and posts["2"].red_font
    assert posts["3"].text == "投票 dave @alice 你怎么看"  # a smiley is no text
    # The quote cut from carol's change: bob's words, bob's post.
    assert posts["7"].text == "我反对，改票 投票 eve"
    assert [(q.text, q.post_id, q.author) for q in posts["7"].quotes] == [
        ("投票 carol 理由：发言很怪", "2", "bob")
    ]
    assert posts["6"].moderator == "管理员" and posts["2"].moderator is None


def test_every_post_says_its_edit_and_its_font_size_are_unknown():
    """Version 4 strips the edit mark and [size]: eve's post 5, edited three times, reads
    as any other; tally is told it cannot know (the HTML page's mark is the fallback)."""
    for post in thread("answers/vt_t1_p1_admin").posts:
        assert post.edited is None and post.edit_unknown
        assert post.unknown == {UNKNOWN_EDIT, UNKNOWN_LARGE_FONT}


def test_number_is_not_the_floor_position_is():
    """Thread 5 after pid 22 (floor 3) was deleted: ``number`` says 1–4, the floors are
    1, 2, 4, 5, as they stood; the page is page 1 of 1 and the last floor 5."""
    page = thread("answers/vt_t5_after_delete_guest_2nd")
    assert [(p.post_id, p.floor) for p in page.posts] == [("20", 1), ("21", 2), ("23", 4), ("24", 5)]
    assert page.reply_count == 3 and page.page_count == 1


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("answers/vt_t1_banpost_guest", ""),
        ("answers/vt_t1_banpost_alice", ""),
        ("answers/vt_t1_banpost_bob", ""),
        ("answers/vt_t1_banpost_admin", "水楼 2 这是一条凑字数的回复"),
    ],
)
def test_a_banpost_is_moderated_for_every_reader(name, words):
    post = by_pid(thread(name))["9"]
    assert (post.hidden, post.text) == ("moderated", words)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("answers/vt_t5_bannedmember_eve_guest", ""),
        ("answers/vt_t5_bannedmember_eve_alice", ""),
        ("answers/vt_t5_bannedmember_eve_admin", "投票测试 来自 eve 的一票"),
    ],
)
def test_a_banned_members_post_is_author_banned(name, words):
    post = by_pid(thread(name))["24"]
    assert (post.author, post.author_id, post.hidden, post.text) == ("eve", "6", "author_banned", words)


@pytest.mark.parametrize(
    ("name", "uid"),
    [
        ("answers/vt_t1_anonymous_guest", None),
        ("answers/vt_t1_anonymous_alice", None),
        ("answers/vt_t1_anonymous_carol", None),  # its poster too
        ("answers/vt_t1_anonymous_admin", "4"),  # a moderator is shown the account
    ],
)
def test_an_anonymous_post_is_匿名_with_the_uid_only_a_moderator_sees(name, uid):
    post = by_pid(thread(name))["25"]
    assert (post.floor, post.author, post.author_id) == (12, "匿名", uid)
    assert post.text == "匿名投票：投票 bob，我不说我是谁"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("answers/vt_t2_hidden_guest", {}),
        ("answers/vt_t2_hidden_bob", {"13": None}),  # his own, as any post
        ("answers/vt_t2_hidden_alice", {"13": HIDDEN_REPLY, "14": HIDDEN_REPLY, "15": HIDDEN_REPLY}),
        # The admin is shown the players' replies; his own reads as any post.
        ("answers/vt_t2_hidden_admin", {"13": HIDDEN_REPLY, "14": HIDDEN_REPLY, "15": None}),
    ],
)
def test_hidden_replies_are_the_hidden_reply_status_tally_stops_on(name, shown):
    page = thread(name)
    posts = by_pid(page)
    assert posts["12"].hidden is None and posts["12"].text == "本帖回帖仅楼主可见，请投票。"
    for pid in ("13", "14", "15"):
        if pid in shown:
            assert posts[pid].hidden == shown[pid] and posts[pid].text != "该帖仅作者可见"
        else:
            assert (posts[pid].hidden, posts[pid].text) == (HIDDEN_REPLY, "")
    read = Thread("discuz", "2", "u", page.title, 1, page.posts)
    if len(shown) == 3:  # the author and a moderator read every one: counted, said once
        assert "these cookies read all" in (hidden_replies(read) or "")
    else:
        with pytest.raises(NotAThreadError, match="read the thread with alice's"):
            hidden_replies(read)


def test_a_closed_thread_and_a_members_only_one():
    assert thread("answers/vt_t3_closed_guest").closed
    assert [p.author for p in thread("answers/vt_t4_membersonly_bob").posts] == ["alice", "bob"]
    with pytest.raises(
        NotAThreadError, match="does not let these cookies read this thread"
    ) as caught:
        thread("answers/vt_t4_membersonly_guest")
    said = str(caught.value)
    assert "viewperm_login_nopermission" in said and "--cookies FILE" in said
    assert not isinstance(caught.value, ThreadGoneError)
    with pytest.raises(ThreadGoneError, match="thread_nonexistence"):
        thread("captured/missing-guest.json", ppp=100)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("answers/off_allowmobile0_viewthread", "mobile_is_closed"),
        ("answers/off_plugin_disabled_viewthread", "the touch theme's page"),
        ("answers/vt_t1_pendingmod_guest_1st_302", "an empty body"),
        ("answers/vt_t5_after_delete_guest_1st", "an empty body"),
        ("answers/vt_t1_v1_alice", "version '1', not 4"),
    ],
)
def test_what_is_not_the_interfaces_answer_is_api_unavailable(name, said):
    with pytest.raises(ApiUnavailable, match=said):
        thread(name)


def test_pages_and_the_page_past_the_end():
    assert [p.floor for p in thread("answers/vt_t1_p1_ppp5_bob").posts] == [1, 2, 3, 4, 5]
    last = thread("answers/vt_t1_p3_ppp5_bob")
    assert (last.page, last.page_count, [p.floor for p in last.posts]) == (3, 3, [11])
    # Page 9 of 5 posts repeats page 3; page 4 of 4 repeats page 3 (floors 9 and 10).
    for name, ppp in (("answers/vt_t1_p9_ppp5_bob", 5), ("captured/vote-guest-p4-ppp4.json", 4)):
        with pytest.raises(PageMismatchError, match="past the thread's last floor"):
            thread(name, ppp=ppp)
    assert [p.floor for p in thread("captured/vote-guest-p2-ppp4.json").posts] == [5, 6, 7, 8]
    whole = thread("answers/vt_t1_ppp1000_guest")
    assert [p.floor for p in whole.posts] == list(range(1, 13)) and whole.page_count == 1


def test_held_replies_are_floors_never_shown():
    """Two replies held for moderation took positions 15 and 16 (maxposition 16): the page
    reads 11–14, as every reader sees them."""
    for who in ("guest", "carol", "admin"):
        page = thread(f"answers/vt_t1_pendingmod_{who}")
        # 13 replies and 9 点评, as the HTML page's header counts them.
        assert [p.floor for p in page.posts] == [11, 12, 13, 14] and page.reply_count == 22


def test_a_page_size_other_than_asked_or_floors_out_of_order_are_refused():
    # The board's mobile page size (5) where tally asked 10: not the floors tally thinks.
    with pytest.raises(ApiUnavailable, match="pages of 5 posts, not the 10 asked"):
        thread("answers/vt_t1_boardppp5_both_bob", ppp=10)
    assert [p.floor for p in thread("answers/vt_t1_boardppp5_both_bob", ppp=5).posts] == [6, 7, 8, 9, 10]
    # Newest first (ordertype=1, or a 回帖倒序 thread asked without ordertype=2).
    for name in ("answers/vt_t1_ordertype1_carol", "captured/reverse-guest.json"):
        with pytest.raises(ParseError, match="out of order"):
            thread(name, ppp=None if "answers" in name else 100)
    assert [p.floor for p in thread("captured/reverse-guest-asc.json").posts] == [1, 2, 3, 4]
    # bob's floors alone (authorid=3): page 1 without the opening post.
    with pytest.raises(ParseError, match="not the thread's opening post"):
        thread("answers/vt_t1_authorid3_carol")


# -- 点评 ----------------------------------------------------------------------------------------


def test_the_newest_five_点评_and_how_many_each_floor_has():
    """Posted at 08:16:52–54 (the answer, at 08:17:00, showed "6 秒前" to "8 秒前"): read in
    their minute as the board shows it with 人性化时间 off."""
    page = thread("answers/vt_t1_p1_guest")
    assert dict(page.comment_counts) == {"2": 8, "4": 1}
    floor2, floor4 = by_pid(page)["2"], by_pid(page)["4"]
    assert floor2.comments_cut and not floor4.comments_cut
    assert [(c.comment_id, c.author, c.author_id, c.text) for c in floor2.comments] == [
        (f"2.{i}", "eve", "6", f"第 {i + 1} 条点评凑数") for i in range(1, 6)
    ]
    minute = datetime(2026, 12, 6, 8, 16, tzinfo=CHINA)
    assert all(c.time == minute and c.to_the_minute for c in floor2.comments + floor4.comments)
    assert floor4.comments[0].text == "点评 dave：你投错了"


def test_every_点评_of_a_floor_from_viewcomment():
    """On the clock its thread's page shows (viewcomment's answer holds no post to tell it)."""
    clock = thread("answers/vt_t1_p1_guest").clock
    found = []
    for page in (1, 2):
        a = answer(f"answers/viewcomment_t1_pid2_p{page}_guest")
        found += parse_comments(a.body, a.content_type, source=a.name, tid="1", pid="2",
                                tz=CHINA, clock=clock, at=a.at)  # fmt: skip
        assert all(c.time == datetime(2026, 12, 6, 8, 16, tzinfo=CHINA) for c in found)
        assert comment_total(a.body, a.content_type, source=a.name) == 8
    assert [c.comment_id for c in found] == ["9", "8", "7", "6", "5", "4", "2", "1"]
    whole = number_comments("2", found)
    assert [(c.comment_id, c.author, c.text) for c in whole[:3]] == [
        ("2.1", "admin", "点评：bob 这票有道理"), ("2.2", "alice", "楼主点评：记下了 投票 carol"),
        ("2.3", "eve", "第 1 条点评凑数"),
    ]  # fmt: skip
    a = answer("answers/viewcomment_t1_pid2_p1_guest")
    with pytest.raises(ParseError, match="not of post 3"):
        parse_comments(a.body, a.content_type, source=a.name, tid="1", pid="3", tz=CHINA,
                       clock=clock, at=a.at)  # fmt: skip


def test_点评_shown_to_the_minute_are_read_on_the_clock_the_page_showed():
    """人性化时间 off: the page's posts show "2026-12-6 11:16" beside their exact times, so
    the clock is the board's, and the floor's other 点评 are read on it."""
    page = thread("captured/minutes-guest.json")
    assert page.clock is not None and page.clock.utcoffset(None) == timedelta(hours=8)
    a = answer("captured/minutes-comments-2-guest.json")
    found = parse_comments(a.body, a.content_type, source=a.name, tid="1", pid="2", tz=CHINA,
                           clock=page.clock, at=a.at)  # fmt: skip
    assert [(c.author, c.text, c.time.strftime("%m-%d %H:%M")) for c in found] == [
        ("carol", "点评二：不同意", "12-06 11:16"), ("bob", "点评一：同意", "12-06 11:16")
    ]  # fmt: skip
    # Without the clock, "2026-12-6 11:16" is a minute of no known zone.
    with pytest.raises(ApiUnavailable, match="in a zone its answer does not tell"):
        parse_comments(a.body, a.content_type, source=a.name, tid="1", pid="2", tz=CHINA,
                       clock=None, at=a.at)  # fmt: skip


def test_oldest_first_is_what_a_thread_gives_whether_asked_or_not():
    assert thread("captured/vote-guest-asc.json") == thread("captured/vote-guest.json")


AT = datetime(2026, 12, 6, 0, 17, 30, tzinfo=UTC)  # 08:17:30 in China


@pytest.mark.parametrize(
    ("shown", "clock", "read"),
    [
        ("2026-12-6 08:16", Printed(timedelta(hours=8), CHINA), "08:16"),
        ("2026-12-5 07:16 PM", Printed(timedelta(hours=-5), CHINA), "08:16"),
        ("昨天&nbsp;08:16", Printed(timedelta(hours=8), CHINA), "12-05 08:16"),
        ("前天 23:59", Printed(timedelta(hours=8), CHINA), "12-04 23:59"),
        # Read by a member whose own zone is UTC-5: yesterday there is 12-04.
        ("昨天 19:16", Printed(timedelta(hours=-5), CHINA), "12-05 08:16"),
    ],
)
def test_a_点评s_time_to_the_minute(shown, clock, read):
    when = comment_time(shown, CHINA, clock, AT, "a 点评")
    assert when.second == 0 and when <= AT
    assert when.strftime("%m-%d %H:%M" if "-" in read else "%H:%M") == read


@pytest.mark.parametrize(
    ("shown", "clock", "error", "said"),
    [
        # Counted back from the answer: no minute ("1 分钟前" at 08:17:30 is 08:15:30 to
        # 08:16:30), whatever the clock.
        ("刚刚", None, ApiUnavailable, "not to the minute"),
        ("6&nbsp;秒前", None, ApiUnavailable, "not to the minute"),
        ("45 秒前", Printed(timedelta(hours=8), CHINA), ApiUnavailable, "not to the minute"),
        ("1&nbsp;分钟前", None, ApiUnavailable, "not to the minute"),
        ("30 分钟前", Printed(timedelta(hours=8), CHINA), ApiUnavailable, "not to the minute"),
        ("3&nbsp;小时前", None, ApiUnavailable, "not to the minute"),
        ("半小时前", None, ApiUnavailable, "not to the minute"),
        ("3 天前", None, ApiUnavailable, "not to the minute"),
        ("昨天 08:16", None, ApiUnavailable, "in a zone its answer does not tell"),
        ("2026-12-6 08:16", None, ApiUnavailable, "in a zone its answer does not tell"),
        ("61 分钟前", None, ParseError, "cannot be"),
        ("5 mins ago", None, ParseError, "not a time tally can read"),
        ("", Printed(timedelta(hours=8), CHINA), ParseError, "not a date and time"),
        ("昨天 25:99", Printed(timedelta(hours=8), CHINA), ParseError, "not a real"),
    ],
)
def test_a_点评_time_that_cannot_be_read_to_the_minute_is_never_guessed(shown, clock, error, said):
    with pytest.raises(error, match=said):
        comment_time(shown, CHINA, clock, AT, "a 点评")


@pytest.mark.parametrize(
    ("name", "offset"),
    [
        ("answers/vt_t1_12h_noconvert_bob", 8),
        ("answers/vt_t1_12h_tz-5_carol", -5),  # carol's own zone
        ("captured/minutes-guest.json", 8),
        ("answers/vt_t1_p1_guest", None),  # every time relative: no clock shown
    ],
)
def test_the_clock_an_answer_shows_times_at_is_learnt_from_its_posts(name, offset):
    a = answer(name, real=True)
    posts = json.loads(a.body)["Variables"]["postlist"]
    clock = display_clock(posts, CHINA, a.at)
    assert (clock.utcoffset(None) if clock else None) == (
        timedelta(hours=offset) if offset is not None else None
    )


def test_a_clock_twelve_hours_off_or_two_clocks_are_no_clock():
    post = {"dbdateline": "1796516198", "dateline": "2026-12-6 08:16"}  # 08:16:38 in China
    offset = lambda clock: clock.utcoffset(None) if clock is not None else None  # noqa: E731
    assert offset(display_clock([post], CHINA, AT)) == timedelta(hours=8)
    # "08:16" read in New York (UTC-5): a member's own zone of UTC+8, or a 12-hour clock
    # printed without its marker (20:16 in New York's evening)? Not told: no clock.
    assert display_clock([post], ZoneInfo("America/New_York"), AT) is None
    # An hour past 12 is a 24-hour clock: a member's own zone, 4 hours behind UTC.
    assert offset(display_clock([{**post, "dateline": "2026-12-5 20:16"}], CHINA, AT)) == (
        timedelta(hours=-4)
    )
    # Two posts that disagree, or a time its exact time does not show as: no clock.
    other = {"dbdateline": "1796516198", "dateline": "2026-12-6 09:16"}
    assert display_clock([post, other], CHINA, AT) is None
    assert display_clock([{**post, "dateline": "2026-12-6 08:17"}], CHINA, AT) is None
    yesterday = {"dbdateline": str(1796516198 - 86400), "dateline": "昨天&nbsp;08:16"}
    assert offset(display_clock([yesterday], CHINA, AT)) == timedelta(hours=8)
    assert display_clock([{**yesterday, "dateline": "前天 08:16"}], CHINA, AT) is None


# -- the same thread through its HTML pages and through the JSON ---------------------------------


def html_page(name: str) -> Page:
    a = answer(name)
    url = a.url
    return Discuz().pages.parse_page(
        decode_page(a.body, a.content_type, source=url), CHINA, source=url,
        thread_id=a.query("tid"),
    )  # fmt: skip


def seen(post: Post) -> tuple:
    """What both readings must agree on."""
    quotes = tuple((q.text, q.post_id, q.author) for q in post.quotes)
    comments = tuple((c.comment_id, c.author, c.author_id, c.text, c.red_font, c.time)
                     for c in post.comments)  # fmt: skip
    return (post.post_id, post.floor, post.author, post.author_id, quotes, post.hidden,
            post.red_font, post.moderator, post.comments_cut, comments)  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["captured/vote-guest", "captured/vote-alice", "captured/vote-admin",
     "captured/minutes-guest", "captured/hidden-guest", "captured/hidden-bob",
     "captured/hidden-admin"],
)  # fmt: skip
def test_the_html_page_and_the_json_give_the_same_posts(name):
    """The same thread read both ways, a few seconds apart with the same cookies: ids,
    floors, authors, uids, quotes, statuses, red font, 点评 and times agree (to the second
    where the page shows seconds in its titles, to the minute where it shows minutes).
    What version 4 cannot say (the edit mark, [size]) it says it cannot; the words the
    forum writes in place of [hide] differ between its two renderers."""
    page, api = html_page(f"{name}.html"), thread(f"{name}.json")
    assert (api.title, api.page, api.page_count, api.reply_count, api.closed) == (
        page.title, page.page, page.page_count, page.reply_count, page.closed
    )
    assert [seen(p) for p in api.posts] == [seen(p) for p in page.posts]
    minutes = "minutes" in name
    for shown, read in zip(page.posts, api.posts, strict=True):
        assert read.time == shown.time if not minutes else read.time.replace(second=0) == shown.time
        if read.hidden == HIDE_CODE or shown.text.startswith("本帖隐藏的内容"):
            # [hide]: the HTML page words its notice 游客，如果…; the JSON 游客如果… (both the
            # forum's, neither a ballot); to one who may read it the page boxes the words.
            assert "回复可见的一票" in read.text and "回复可见的一票" in shown.text
            continue
        assert read.text == shown.text
        # What the JSON cannot know, it says; what the page shows, it shows.
        assert read.edited is None and read.edit_unknown and not shown.unknown
        if shown.large_font:
            assert not read.large_font and UNKNOWN_LARGE_FONT in read.unknown
    if name.startswith("captured/vote"):
        edited = by_pid(page)["2"].edited
        assert edited is not None and (edited.by, edited.at.strftime("%H:%M")) == ("alice", "11:17")
        assert by_pid(page)["3"].large_font


def test_every_点评_of_a_floor_read_both_ways():
    """The floor's seven 点评 from the HTML path's commentmore answers and from viewcomment
    (on the clock its thread's page shows)."""
    clock = thread("captured/vote-guest.json").clock
    html_items = []
    for n in (1, 2):
        a = answer(f"captured/comments-more-{n}-guest.xml")
        html_items += parse_comment_answer(decode_page(a.body, a.content_type), CHINA, a.url)[0]
    api_items = []
    for n in (1, 2):
        a = answer(f"captured/comments-{n}-guest.json")
        api_items += parse_comments(a.body, a.content_type, source=a.url, tid="1", pid="2",
                                    tz=CHINA, clock=clock, at=a.at)  # fmt: skip
    html_comments, api_comments = numbered(html_items, "2"), number_comments("2", api_items)
    assert [(c.comment_id, c.author, c.author_id, c.text, c.red_font, c.time)
            for c in api_comments] == [
        (c.comment_id, c.author, c.author_id, c.text, c.red_font, c.time) for c in html_comments
    ]  # fmt: skip
    assert [c.author for c in api_comments] == ["bob", "carol", "dave", "eve", "admin", "bob", "carol"]
    assert api_comments[5].red_font and api_comments[5].text == "改票 投票 eve"


def test_点评_of_yesterday_and_minutes_ago_read_against_the_html_page():
    """The same thread two days on (its posts dated back in the database): the posts show
    "前天 11:16" beside their exact times, which tells the clock; a 点评 "昨天 11:16" is read
    on it, to the minute the HTML page shows. The real answer's 点评 shown "5 分钟前" send it
    to its pages (test_a_relative_点评_time_sends_the_thread_to_its_html_pages); read here as
    the board with 人性化时间 off would show them, dated by ``minutes_only`` at the latest
    minute "5 分钟前" allows: the minute the page shows or the next."""
    page, api = html_page("captured/aged-guest.html"), thread("captured/aged-guest.json")
    assert api.clock is not None and api.clock.utcoffset(None) == timedelta(hours=8)
    assert [(p.post_id, p.time) for p in api.posts] == [(p.post_id, p.time) for p in page.posts]
    assert api.posts[0].time.strftime("%m-%d %H:%M") == "12-04 11:16"
    for shown, read in zip(page.posts, api.posts, strict=True):
        for c, d in zip(shown.comments, read.comments, strict=True):
            assert (d.comment_id, d.author, d.text) == (c.comment_id, c.author, c.text)
            assert d.time - c.time in (timedelta(0), timedelta(minutes=1))
            assert d.time == c.time or d.time.strftime("%d") == "06"  # 昨天: the same minute
    yesterday = by_pid(api)["3"].comments[0]
    assert yesterday.time.strftime("%m-%d %H:%M") == "12-05 11:16"
    a = answer("captured/aged-comments-2-guest.json")
    older = parse_comments(a.body, a.content_type, source=a.name, tid="1", pid="2", tz=CHINA,
                           clock=api.clock, at=a.at)  # fmt: skip
    assert [c.time.strftime("%m-%d %H:%M") for c in older] == ["12-05 11:16", "12-05 11:16"]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("answers/vt_t1_p1_guest", "'6 秒前'"),
        ("answers/vt_t1_banpost_guest", "'1 分钟前'"),
        ("captured/vote-guest.json", "'1 分钟前'"),
        ("answers/vt_t1_24h_relative_tz-5_carol", "'2 分钟前'"),
        ("captured/aged-guest.json", "'4 分钟前'"),
    ],
)
def test_a_relative_点评_time_sends_the_thread_to_its_html_pages(name, said):
    """人性化时间 on (X3.5's default): a 点评 shown "1 分钟前" is any instant of a minute-long
    window counted back from when the board began its answer, which the answer does not
    carry; read at its Date less N, a real X3.5's 点评 posted at 07:29:28 read 07:29 at
    07:30:29 and 07:30 at 07:31:00. No minute is read from it: the thread's pages are."""
    a = answer(name, real=True)
    with pytest.raises(ApiUnavailable, match=f"shows this 点评's time only as {said}, not to "
                       "the minute"):  # fmt: skip
        parse_thread(
            a.body, a.content_type, source=name, ref=a.ref, tz=CHINA, asked_page=1,
            ppp=int(a.query("ppp", "10") or 10), at=a.at,
        )  # fmt: skip
    c = answer("answers/viewcomment_t1_pid2_p1_guest", real=True)
    with pytest.raises(ApiUnavailable, match="'21 秒前', not to the minute"):
        parse_comments(c.body, c.content_type, source=c.name, tid="1", pid="2", tz=CHINA,
                       clock=Printed(timedelta(hours=8), CHINA), at=c.at)  # fmt: skip


def test_the_answers_with_relative_times_read_as_the_board_shows_them_with_人性化时间_off():
    """``minutes_only`` (what the tests read the answers of a 人性化时间 board as) gives the
    same display strings the board gave with 人性化时间 turned off (captured/minutes-guest.json,
    the same thread a minute later): each post's and each 点评's."""
    def shown(a: Answer) -> tuple[dict, dict]:  # type: ignore[type-arg]
        v = json.loads(a.body)["Variables"]
        return ({p["pid"]: p["dateline"] for p in v["postlist"]},
                {c["id"]: c["dateline"] for cs in v["comments"].values() for c in cs})  # fmt: skip

    relative, off = answer("captured/vote-guest.json"), answer("captured/minutes-guest.json")
    assert "分钟前" in json.dumps(json.loads(answer("captured/vote-guest.json", real=True).body),
                               ensure_ascii=False)  # fmt: skip
    assert shown(relative) == shown(off)
    assert off.body == answer("captured/minutes-guest.json", real=True).body


def test_a_点评_shown_to_the_hour_sends_the_thread_to_its_html_pages():
    with pytest.raises(ApiUnavailable, match="'2 小时前', not to the minute"):
        thread("captured/aged-coarse-guest.json")



def test_a_posts_words_are_its_words_though_the_interface_escapes_them_twice():
    # What a real X3.5 (its mobile interface, version 4) answered for a reply typed as
    # 普通文字 A&B <x> "q" 链接 http://a.b/c?d=1&e=2 [url=http://x.y/?a=1&b=2]ab&cd[/url]:
    # its words escaped twice, where its HTML page escapes them once.
    a = answer("answers/vt_t1_p1_guest")
    data = json.loads(a.body)
    post = data["Variables"]["postlist"][1]
    post["message"] = (
        "普通文字 A&amp;amp;B &amp;lt;x&amp;gt; &amp;quot;q&amp;quot; 链接 http://a.b/c?d=1&amp;amp;e=2 "
        '<a href="http://x.y/?a=1&amp;amp;b=2">ab&amp;amp;cd</a>'
    )
    page = parse_thread(
        json.dumps(data).encode(), a.content_type, source=a.name, ref=a.ref, tz=CHINA,
        asked_page=1, ppp=int(a.query("ppp", "10") or 10), at=a.at,
    )  # fmt: skip
    assert by_pid(page)[post["pid"]].text == (
        '普通文字 A&B <x> "q" 链接 http://a.b/c?d=1&e=2 ab&cd'
    )
