"""Characters that Python's ``str.isdigit`` calls digits but ``int`` refuses (superscripts
such as ``²``, circled numbers): a page, a game file or an option that holds one is read
as text that is no number, never a traceback. ``isdecimal`` is what ``int`` accepts."""

from __future__ import annotations

import json

import pytest

from tally.errors import GameFileError
from tally.rules.counting.announced import chinese_number
from tally.rules.game.gamefile import parse_game

from .conftest import CHINA, page_text
from .test_reading_discuz_pages import DISCUZ_PARSER
from .test_reading_forum_changes import read_at


@pytest.mark.parametrize("odd", ["²", "①", "³"])
def test_a_pager_link_that_is_no_decimal_number_is_passed_over(odd):
    """An older template's pager (no "共 N 页"): the highest page is the highest link."""
    text = page_text("recent-p1.html")
    text = text.replace('<span title="共 6 页"> / 6 页</span>', "").replace(
        '<a href="thread-25-6-1.html">6</a>',
        f'<a href="thread-25-6-1.html">6</a><a href="thread-25-6-1.html">{odd}</a>',
    )
    assert "共 6 页" not in text and odd in text
    page = DISCUZ_PARSER.parse_page(text, CHINA, source="x")
    assert (page.page, page.page_count) == (1, 6)


def test_a_current_page_that_is_no_decimal_number_is_not_read_as_one():
    text = page_text("recent-p1.html").replace(
        '<div class="pg"><strong>1</strong>', '<div class="pg"><strong>²</strong>'
    )
    try:
        page = DISCUZ_PARSER.parse_page(text, CHINA, source="x")
    except Exception as e:  # a clear error of tally's own is right too; a ValueError is not
        assert type(e).__module__.startswith("tally."), repr(e)
    else:
        assert page.page == 1  # from the page's own URL in its saved-from mark


def test_a_day_number_in_a_title_is_a_number_or_none():
    assert chinese_number("²") is None
    assert chinese_number("12") == 12


def test_as_of_a_superscript_is_one_sentence(forum, tmp_path):
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    odd = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "²")
    assert odd.exit_code == 2, odd.output
    assert "Traceback" not in odd.output and "--as-of" in odd.stderr
    good = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "2")
    assert good.exit_code == 0 and json.loads(good.stdout)["ballots"]


@pytest.mark.parametrize("post", ["²", "１２３"])
def test_a_ruling_on_a_post_id_that_never_matches_is_refused(post):
    """A ruling names a post by its pid, ASCII digits on every board: one that could never
    match a post would leave the ruling silently unapplied."""
    # Literal TOML (not tests/gamefiles.py): the ruling's post id as a hostile file writes it.
    text = f"""
name = "g"
players = ["alice", "bob"]
[[days]]
day = 1
opens = 2026-12-01T09:00:00
closes = 2026-12-01T21:00:00
vote = "https://bbs.example.com/thread-1-1-1.html"
[[rulings]]
day = 1
floor = 2
action = "void"
post = "{post}"
"""
    with pytest.raises(GameFileError, match="post's id"):
        parse_game(text)


@pytest.mark.parametrize("size", ["²", "+²"])
def test_L7_a_font_size_that_is_no_number_is_read_as_css(size):
    """L7: <font size> above 3 is enlarged; a size no number reads as a CSS size (none here)."""
    from tally.forums.htmltext import is_enlarged

    assert is_enlarged(size, None) is False
    assert is_enlarged("5", None) is True


def test_L7_red_font_in_a_点评_is_read_and_flagged():
    """L7: a 点评 written [color=Red] is rendered by X3.5 as <font color="Red"> (as a real
    X3.5 rendered one: ``<div class="psti">\\n<font color="Red">…</font>&nbsp;``); the floor
    it sits under was read, the 点评 was not, and no L7 flag came."""
    text = page_text("vote-p1.html").replace(
        '<div class="psti">\n楼上为啥改&nbsp;', '<div class="psti">\n<font color="Red">楼上为啥改</font>&nbsp;', 1
    )
    assert '<font color="Red">楼上为啥改' in text
    posts = DISCUZ_PARSER.parse_page(text, CHINA, source="x").posts
    [(post, comment)] = [(p, c) for p in posts for c in p.comments if c.text == "楼上为啥改"]
    assert comment.red_font and not post.red_font
    others = [c for p in posts for c in p.comments if c is not comment]
    assert others and not any(c.red_font for c in others)


def test_L7_a_点评s_red_font_outlives_the_cache_and_old_versions_read_as_before():
    from dataclasses import replace

    from tally.forums.history import page_data, page_posts

    posts = DISCUZ_PARSER.parse_page(page_text("vote-p1.html"), CHINA, source="x").posts
    post = next(p for p in posts if p.comments)
    red = replace(post, comments=(replace(post.comments[0], red_font=True), *post.comments[1:]))
    [back] = page_posts(page_data([red]))
    assert back.comments == red.comments and back.comments[0].red_font
    [plain] = page_posts(page_data([post]))  # as versions were kept before: no flag written
    assert plain.comments == post.comments and not plain.comments[0].red_font
