"""The Discuz! parser against pages rendered by a real Discuz! X3.5, checked with scenario.json."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from tally.errors import NotAThreadError, ParseError, TruncatedPageError
from tally.forums.discuz import Discuz

from .conftest import CHINA, DISCUZ, page_text

DISCUZ_PARSER = Discuz().pages
_BBCODE = re.compile(r"\[/?\w+(?:=[^\]]*)?\]")


def parse(name: str):
    return DISCUZ_PARSER.parse_page(page_text(name), CHINA, source=name)


def thread_posts(stem: str):
    posts = []
    for path in sorted(DISCUZ.glob(f"{stem}-p*.html"), key=lambda p: int(p.stem.rsplit("p", 1)[1])):
        posts.extend(parse(path.name).posts)
    return posts


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=CHINA)


def plain(message: str) -> str:
    """The scenario's BBCode as a reader sees it."""
    return _BBCODE.sub("", message)


@pytest.mark.parametrize("stem,key", [("vote", "vote"), ("talk", "talk"), ("recent", "recent")])
def test_every_post_matches_what_was_written(stem, key, scenario):
    thread = next(t for t in scenario["threads"] if t["key"] == key)
    posts = thread_posts(stem)
    # The opening post is floor 1; the scenario's replies follow from floor 2.
    assert len(posts) == len(thread["posts"]) + 1
    assert [p.floor for p in posts] == list(range(1, len(posts) + 1))
    opening = posts[0]
    assert (opening.author, opening.time, opening.text) == (
        thread["author"],
        at(thread["time"]),
        plain(thread["message"]),
    )
    for post, written in zip(posts[1:], thread["posts"], strict=True):
        assert post.author == written["author"]
        assert post.time == at(written["time"])
        assert post.text == plain(written["message"]).replace("\u3000", "\u3000")
        if "reply_to" in written:
            quoted = posts[1 + written["reply_to"]]
            assert post.quoted_post_ids == (quoted.post_id,)
            assert post.quotes[0].author == quoted.author
            assert quoted.text.split("\n")[0] in post.quotes[0].text
        else:
            assert post.quotes == ()
        comments = sorted(written.get("comments", []), key=lambda c: c["time"])
        assert [(c.author, c.time) for c in post.comments] == [
            (c["author"], at(c["time"]).replace(second=0)) for c in comments
        ]
        # The real page shows a 点评's time to the minute, and the comment says so (V5).
        assert all(c.to_the_minute for c in post.comments)
        assert [c.text for c in post.comments] == [
            " ".join(c["message"].split("\n")) for c in comments
        ]
        if "edited" in written:
            assert post.edited is not None
            assert post.edited.by == written["edited"]["by"]
            assert post.edited.at == at(written["edited"]["time"]).replace(second=0)
        else:
            assert post.edited is None


def test_vote_page_details():
    page = parse("vote-p1.html")
    assert (page.thread_id, page.page, page.page_count) == ("23", 1, 2)
    assert page.title == "[D01] 月下古堡 第二天投票帖"
    assert page.reply_count == 17
    by_floor = {p.floor: p for p in page.posts}
    assert by_floor[1].author_id == "19" and by_floor[1].post_id == "952"
    # The ballot in red font (RULES L7) is flagged; the grey quote header elsewhere is not.
    assert by_floor[9].red_font and not by_floor[9].large_font
    assert not any(p.red_font for f, p in by_floor.items() if f != 9)
    # The change posted as a quote reply: the quoted ballot is not the poster's words.
    change = by_floor[10]
    assert change.text == "改票对象：白桃\n改票理由：被说服了"
    assert change.quotes[0].text == "投票对象：长夜\n投票理由：昨天票型有问题"
    assert change.quotes[0].post_id == by_floor[3].post_id == "954"
    # The comment ids are stable: oldest first.
    assert [c.comment_id for c in by_floor[5].comments] == ["956.1", "956.2"]
    assert by_floor[5].comments[0].author_id == "23"


def test_relative_times_read_from_the_title():
    """Recent posts read "2 分钟前", "昨天 03:46", "5 天前"; the title holds the time."""
    posts = thread_posts("recent")
    last = posts[-1]
    assert last.time == at("2026-11-30 00:15:53")
    html = page_text("recent-p6.html")
    assert "2&nbsp;分钟前" in html
    shown = {p.time for p in posts}
    for stamp in ("2026-11-29 03:46:36", "2026-11-28 01:51:04", "2026-11-24 21:17:53"):
        assert at(stamp) in shown


def test_hidden_posts_keep_author_and_time():
    page = parse("progress-p1.html")
    hidden = {p.floor: p.hidden for p in page.posts}
    assert hidden == {1: None, 2: None, 3: "author_banned", 4: "moderated", 5: None}
    banned = page.posts[2]
    assert (banned.author, banned.time, banned.text) == ("违规者", at("2023-03-15 10:05:00"), "")


def test_only_author_view_parses():
    page = parse("talk-only-author-p1.html")
    assert page.posts and {p.author for p in page.posts} == {"月影"}


def test_missing_thread_page_says_so():
    with pytest.raises(NotAThreadError, match="does not exist or was deleted"):
        parse("missing-p1.html")


def test_read_permission_page_says_so():
    with pytest.raises(NotAThreadError, match="does not let a guest read"):
        parse("readperm-p1.html")


def test_truncated_page_is_an_error():
    text = page_text("vote-p1.html")
    cut = text[: len(text) * 2 // 3]
    with pytest.raises(TruncatedPageError, match="ends before the forum finished the page"):
        DISCUZ_PARSER.parse_page(cut, CHINA, source="cut")


def test_relative_time_without_title_is_an_error():
    text = page_text("vote-p1.html").replace("发表于 2023-3-14 10:02:00", "发表于 3&nbsp;小时前", 1)
    with pytest.raises(ParseError, match="relative time"):
        DISCUZ_PARSER.parse_page(text, CHINA, source="x")


@pytest.mark.parametrize("shown", ["3&nbsp;小时前", "半小时前", "昨天&nbsp;21:05"])
def test_relative_time_with_title(shown):
    text = page_text("vote-p1.html").replace(
        "发表于 2023-3-14 10:02:00", f'发表于 <span title="2023-3-14 10:02:07">{shown}</span>', 1
    )
    page = DISCUZ_PARSER.parse_page(text, CHINA, source="x")
    assert page.posts[1].time == at("2023-03-14 10:02:07")


def test_unreadable_time_is_an_error_not_now():
    text = page_text("vote-p1.html").replace(
        "发表于 2023-3-14 10:02:00", "发表于 2023-13-45 10:02", 1
    )
    with pytest.raises(ParseError, match="not a real date"):
        DISCUZ_PARSER.parse_page(text, CHINA, source="x")


def test_post_without_author_is_an_error():
    text = page_text("vote-p1.html")
    text = re.sub(
        r'<td class="pls" rowspan="2">.*?</td>\s*<td class="plc">',
        '<td class="plc">',
        text,
        count=2,
        flags=re.S,
    )
    with pytest.raises(ParseError, match="has no author"):
        DISCUZ_PARSER.parse_page(text, CHINA, source="x")


def test_enlarged_font_is_flagged():
    text = page_text("vote-p1.html").replace(
        "投票理由：看发言</td>", '<font size="6">投票理由：看发言</font></td>', 1
    )
    page = DISCUZ_PARSER.parse_page(text, CHINA, source="x")
    flagged = [p.floor for p in page.posts if p.large_font]
    assert flagged == [2]


def test_page_of_another_thread_is_refused():
    with pytest.raises(ParseError, match="thread 23, not of thread 24"):
        DISCUZ_PARSER.parse_page(page_text("vote-p1.html"), CHINA, source="x", thread_id="24")


def test_challenge_page():
    html = "<html><head><title>Just a moment...</title></head><body>checking</body></html>"
    with pytest.raises(NotAThreadError, match="anti-scraping"):
        DISCUZ_PARSER.parse_page(html, CHINA, source="x")


def test_login_page():
    text = page_text("readperm-p1.html").replace(
        "抱歉，本帖要求阅读权限高于 100 才能浏览", "您需要先登录才能继续本操作"
    )
    with pytest.raises(NotAThreadError, match="logged-in account"):
        DISCUZ_PARSER.parse_page(text, CHINA, source="x")


def test_more_comments_than_the_page_shows_are_marked_for_the_script():
    """Discuz! serves 点评 past the first few from its own script (tests/test_reading_discuz_comments.py
    reads it): the page's parse marks the floor, and only that floor."""
    more = (
        '<div class="pgs mbm mtn cl"><div class="pg"><a href="javascript:;" class="nxt" '
        "onclick=\"ajaxget('forum.php?mod=misc&action=commentmore&tid=23&pid=956&page=2', "
        "'comment_956')\">下一页</a></div></div>\n</div>"
    )
    text = page_text("vote-p1.html").replace(
        "发表于 2023-3-14 15:00</span>\n</div>\n</div>\n</div>",
        "发表于 2023-3-14 15:00</span>\n</div>\n</div>\n" + more,
        1,
    )
    assert "commentmore" in text
    posts = DISCUZ_PARSER.parse_page(text, CHINA, source="x").posts
    assert [p.post_id for p in posts if p.comments_cut] == ["956"]
    cut = next(p for p in posts if p.comments_cut)
    assert [c.comment_id for c in cut.comments] == ["956.1", "956.2"]  # the two shown


def test_reply_header_inside_a_quote_is_not_this_posts_reply():
    text = page_text("vote-p1.html").replace(
        "投票对象：长夜<br />\n投票理由：昨天票型有问题</blockquote>",
        '<strong>回复 <a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid=953&amp;ptid=23">2#</a> '
        "<i>月影</i> </strong><br />\n投票对象：长夜<br />\n投票理由：昨天票型有问题</blockquote>",
        1,
    )
    post = next(p for p in DISCUZ_PARSER.parse_page(text, CHINA, source="x").posts if p.floor == 10)
    assert post.reply_to is None and post.quoted_post_ids == ("954",)
    assert post.text == "改票对象：白桃\n改票理由：被说服了"


def test_a_notice_the_author_wrote_in_the_body_does_not_hide_the_post():
    """A board whose forum allows HTML (允许使用 HTML 代码) shows a member's markup as written:
    a div.locked with the forum's 屏蔽 words inside the body is the author's text, not the
    forum's notice beside it (which a moderator is shown above a 屏蔽ed post's body), and
    the ballot below it stands."""
    ballot = 'id="postmessage_953">\n投票对象：长夜'
    text = page_text("vote-p1.html")
    assert text.count(ballot) == 1
    text = text.replace(
        ballot, 'id="postmessage_953">\n<div class="locked">提示: <em>该帖被管理员或版主屏蔽</em>'
        "</div>投票对象：长夜",
    )
    post = next(p for p in DISCUZ_PARSER.parse_page(text, CHINA, source="x").posts
                if p.post_id == "953")  # fmt: skip
    assert post.hidden is None
    assert post.text == "提示: 该帖被管理员或版主屏蔽\n投票对象：长夜\n投票理由：看发言"
    # The same notice beside the body (where the forum writes it) hides the post.
    beside = page_text("vote-p1.html").replace(
        '<div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" '
        'id="postmessage_953">',
        '<div class="locked">提示: <em>该帖被管理员或版主屏蔽，只有管理员或有管理权限的成员可见</em>'
        '</div><div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" '
        'id="postmessage_953">',
    )
    post = next(p for p in DISCUZ_PARSER.parse_page(beside, CHINA, source="x").posts
                if p.post_id == "953")  # fmt: skip
    assert post.hidden == "moderated"


def test_a_post_node_inside_a_posts_body_is_its_authors_markup_not_a_floor():
    """A board whose forum allows HTML (允许使用 HTML 代码) shows a member's markup as written:
    月影 (uid 20) pasting a copy of 青山's floor into their own ballot forges no ballot of
    青山's (uid 21); the copy is 月影's text, and the page's floors are its own."""
    text = page_text("vote-p1.html")
    copy = re.search(r'<div id="post_954".*?(?=<div id="post_\d+")', text, re.S)
    assert copy is not None
    forged = copy.group(0).replace("954", "99954")
    ballot = 'id="postmessage_953">\n投票对象：长夜'
    assert text.count(ballot) == 1
    page = DISCUZ_PARSER.parse_page(text.replace(ballot, f'id="postmessage_953">\n{forged}'
                                                 "投票对象：长夜"), CHINA, source="x")  # fmt: skip
    assert "99954" not in [p.post_id for p in page.posts]
    assert [p.floor for p in page.posts] == list(range(1, 11))
    [moon] = [p for p in page.posts if p.post_id == "953"]
    assert moon.author_id == "20" and moon.text.endswith("投票对象：长夜\n投票理由：看发言")
