"""tally parses a Discuz! page in less time, and reads the same (issue 50, item 8): each
shortcut the parse takes against the way it was done before, the reference, on markup
built to find where the two could part (a page without a doctype, where lexbor matches ids
and classes in any case; attributes of every case and quoting; character references)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from tally.forums.htmltext import HIDDEN, hides

from .strategies import fuzz

FUZZ = fuzz()

DOCTYPES = ("", "<!DOCTYPE html>", '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN">')
TAGS = ("div", "span", "font", "a", "em", "td", "i", "FONT", "p", "svg", "template")
ATTRIBUTES = (
    "", 'class="display_none"', "class='DISPLAY_NONE'", 'class="x jammer"', "class=Jammer",
    'class="display&#95;none"', "hidden", "HIDDEN", 'hidden=""', 'style="display:none"',
    "STYLE='Display : None'", 'style="color:red"', 'title="class=x"', 'title="a>b hidden"',
    'data-hidden="1"', 'id="hidden"', 'href="a?style=1"', "class", 'class="xw1"',
)  # fmt: skip
TEXTS = ("", "字", "hidden", "class=", " style=", "&gt;", "<!-- hidden -->")


@st.composite
def markup(
    draw: st.DrawFn, tags: tuple[str, ...] = TAGS, attributes: tuple[str, ...] = ATTRIBUTES
) -> str:
    """A doctype, then nested elements of the tags and attributes above."""
    depth, parts, opened = 0, [draw(st.sampled_from(DOCTYPES))], []
    for _ in range(draw(st.integers(1, 14))):
        if opened and draw(st.booleans()):
            parts.append(f"</{opened.pop()}>")
            depth -= 1
            continue
        tag = draw(st.sampled_from(tags))
        written = " ".join(draw(st.lists(st.sampled_from(attributes), max_size=2)))
        parts.append(f"<{tag} {written}>{draw(st.sampled_from(TEXTS))}")
        opened.append(tag)
        depth += 1
    return "".join(parts)


@FUZZ
@given(markup())
@example('<FONT class="x jammer">字')  # hidden itself, nothing inside
@example("<div class=DISPLAY_NONE>字</div>")  # in any case without a doctype
@example('<!DOCTYPE html><span STYLE="Display : None">字</span>')
@example("<em><i hidden>字</i></em>")
@example('<a title="a>b"><i style="display:none">字</i></a>')  # ">" in an attribute
@example('<p class="display&#95;none">字</p>')  # a character reference
def test_whether_a_node_hides_anything_is_what_the_selector_finds(html):
    tree = LexborHTMLParser(html)
    for node in tree.root.traverse() if tree.root is not None else ():
        if node.tag and node.tag[0] not in "-!":
            assert hides(node) == (node.css_first(HIDDEN) is not None), (node.html, html)


@FUZZ
@given(st.lists(st.sampled_from(["<p>", "字", "a", "\ud800", "\udfff", "😀", "&amp;"])).map("".join))
@example("<p>\ud83d\ude00</p>")  # a pair of lone surrogates is not the character they make
def test_a_page_encoded_once_is_parsed_and_keyed_as_before(text):
    """The digest the parse memo keys a page by, and lexbor's tree, from the page's UTF-8
    encoded once: a lone surrogate is itself in the digest and left out of the parse."""
    import hashlib

    from tally.forums.base import _digest
    from tally.forums.htmltext import html_tree

    before = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    assert _digest(text) == before
    assert html_tree(text).html == LexborHTMLParser(text).html
    assert _digest(text) == before  # the same text again


WHOLE = '回复:</span> <span class="xi1">12</span>'


@FUZZ
@given(
    st.lists(st.sampled_from([WHOLE, "回复:</span>", ' <span class="xi1">', "1", "</span>", "字"]))
    .map("".join),
    st.integers(0, 80),
    st.integers(0, 40),
)
@example(WHOLE, 20, 0)  # the words inside the head, the number past it
@example("字" + WHOLE, len(WHOLE) + 1, 0)
@example("回复:</span>" * 20 + WHOLE, 400, 3)  # more places to look at than find looks at
def test_a_head_is_searched_as_its_slice_was(text, end, start):
    from tally.forums.discuz.frame import _REPLIES_HTML, head_search

    found = head_search(_REPLIES_HTML, "回复:</span>", text, end, start)
    before = _REPLIES_HTML.search(text, start, end)
    assert (found and (found.span(), found.group(1))) == (before and (before.span(), before.group(1)))
    if start == 0:
        sliced = _REPLIES_HTML.search(text[:end])
        assert (found and found.span()) == (sliced and sliced.span())


@FUZZ
@given(
    st.lists(st.sampled_from(["G", "GM", "GMT", "T", "字", '"', "<"])).map("".join),
    st.sampled_from(["GMT", "G", "GMT,", '"G', "字G"]),
    st.integers(-30, 60),
    st.none() | st.integers(-30, 60),
)
@example("G" * 40 + "GMT", "GMT", 0, None)  # past the places find looks at one by one
@example("GMGMT", "GMT", -3, -1)
def test_a_literal_is_found_where_str_find_finds_it(text, needle, start, end):
    """``htmltext.find``, which looks at each place the needle's first character stands,
    gives str.find's answer, bounds and all."""
    from tally.forums.htmltext import find

    assert find(text, needle, start, end) == text.find(needle, start, end)


TIME_PARTS = ("2026", "1990", "2201", "-", "/", " ", "\t", "\xa0", "　", ":", "0", "1", "12", "31",
              "60", "8", "08", "PM", "下午", "２", "日", "٣", "发表于", "發表於", "\x1c")  # fmt: skip


@FUZZ
@given(st.lists(st.sampled_from(TIME_PARTS), max_size=14).map("".join))
@example("2026-12-6 08:32")
@example("2026-12-6 08:32:10")
@example(" 2026-2-30 08:32 ")  # no such day: the general path's sentence
@example("2026-12-6 08:32 PM")
@example("2026-12-6 24:00")
@example("2201-1-1 00:00")
@example("2026-12-6\t8:05:60")
@example("发表于 2026-12-6 08:32:10")
@example("發表於2026-12-6 08:32 下午")
def test_a_plain_time_is_read_as_the_general_path_reads_it(text):
    """``read_forum_time``'s path for the times Discuz! prints by default against the one
    that reads any: the same time and minute flag, or the same sentence."""
    from datetime import timedelta
    from zoneinfo import ZoneInfo

    from tally.errors import ParseError
    from tally.forums.timeparse import Printed, read_any_time, read_forum_time

    for tz in (ZoneInfo("Asia/Shanghai"), Printed(timedelta(hours=8), ZoneInfo("Europe/Berlin"))):
        try:
            before = read_any_time(text, tz, what="t")
        except ParseError as exc:
            with pytest.raises(ParseError, match=re.escape(str(exc))):
                read_forum_time(text, tz, what="t")
        else:
            after = read_forum_time(text, tz, what="t")
            assert after == before and after[0].tzinfo == before[0].tzinfo


BODY_TAGS = ("i", "I", "strong", "STRONG", "div", "em", "font", "FONT", "span", "b", "p", "svg", "td")
BODY_ATTRIBUTES = (
    "", 'class="quote"', "class=QUOTE", 'class="blockcode"', 'onclick="copycode(this)"',
    'color="red"', "COLOR=#f00", "size=5", "SIZE='+2'", 'style="font-size:20px"',
    "STYLE='Color: red'", 'title="color"', "class=pstatus", 'data-x="<i>"',
)  # fmt: skip


@FUZZ
@given(markup(BODY_TAGS, BODY_ATTRIBUTES))
@example('<td><FONT COLOR="red">字</FONT></td>')
@example('<td><I class="pstatus">本帖最后由 a 于 2026-12-6 08:32 编辑</I></td>')
@example("<td><div class=QUOTE>字</div></td>")  # in any case without a doctype
@example('<td><div class="blockcode"><em onclick="copycode(this)">复制代码</em></div></td>')
def test_a_body_is_read_by_its_markup_as_by_its_walks(html):
    """What a body's markup, written out once, lets the parse skip: the marks' walk where it
    finds no start tag or word of theirs, the fonts' where no attribute of theirs."""
    from tally.forums.discuz.body import _COPY_BUTTON, _MARKS
    from tally.forums.htmltext import font_flags

    tree = LexborHTMLParser(html)
    for node in tree.root.traverse() if tree.root is not None else ():
        if not node.tag or node.tag[0] in "-!":
            continue
        written = node.html or ""
        if node.css(f"i, div.quote, strong, {_COPY_BUTTON}"):
            assert _MARKS.search(written) or "quote" in written.lower(), (written, html)
        assert font_flags(node, written) == font_flags(node), (written, html)


@FUZZ
@given(
    st.sampled_from(DOCTYPES),
    st.sampled_from(['id="postlist"', "id=PostList", 'id="postlist "', 'id="x"', 'class="postlist"', ""]),
    st.sampled_from(["", '<div id="postlist"></div>', "<div id=POSTLIST></div>", '<div class="mainbox viewthread">']),
    st.booleans(),
)
@example("", "id=PostList", "", True)  # any case without a doctype, only by the selector
def test_the_post_list_known_from_the_posts_is_the_one_the_selectors_find(
    doctype, wrapper, elsewhere, first
):
    """Posts that stand in #postlist itself tell ``has_post_list`` there is one without a
    search of the page: its answer is still the selectors' on every page."""
    from datetime import UTC

    from tally.forums.discuz.pages import DiscuzPages

    posts = f'<div {wrapper}><div id="post_1">字</div></div>'
    html = doctype + (elsewhere + posts if first else posts + elsewhere)
    pages = DiscuzPages()
    page = pages.open(html, UTC, "t.html", None)
    assert pages.post_nodes(page)
    found = any(page.tree.css_first(s) is not None for s in pages.post_list)
    assert pages.has_post_list(page) == found
