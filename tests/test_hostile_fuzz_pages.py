"""Arbitrary and mangled pages into the parsers: only tally's own errors ever come out."""

from __future__ import annotations

from contextlib import suppress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally.errors import NotAThreadError, ParseError, TallyError, TruncatedPageError
from tally.forums.discuz import Discuz
from tally.forums.tieba import Tieba
from tally.forums.tieba.saved import parse_comment_fragment, parse_total_comment
from tally.rules.judging.ballot_text import read_ballot

from .conftest import CHINA, DISCUZ
from .strategies import UNICODE, fuzz
from .tiebagen import sample

REAL = [
    (DISCUZ / "vote-p1.html").read_text(encoding="utf-8"),
    (DISCUZ / "recent-p1.html").read_text(encoding="utf-8"),
    (DISCUZ / "progress-p1.html").read_text(encoding="utf-8"),
    sample().page(1).decode(),
    sample().page(3).decode(),
]
PARSERS = [Discuz().pages, Tieba().pages]
OWN = [PARSERS[0]] * 3 + [PARSERS[1]] * 2  # the platform that rendered each of REAL
FUZZ = fuzz()

tags = st.sampled_from(
    [
        "div",
        "td",
        "em",
        "span",
        "a",
        "blockquote",
        "i",
        "font",
        "li",
        "table",
        "br",
        "strong",
        "cc",
        "h3",
    ]
)
attrs = st.sampled_from(
    [
        'id="post_952"',
        'id="postmessage_952"',
        'class="quote"',
        'class="pstl xs1 cl"',
        'class="psti"',
        'id="authorposton952"',
        'class="authi"',
        'class="xw1"',
        'href="home.php?mod=space&uid=3"',
        'class="l_post j_l_post"',
        'data-field=\'{"content":{"post_id":1}}\'',
        'class="tail-info"',
        'id="post_content_1"',
        'title="2024-5-6 09:31"',
        'class="pstatus"',
        'id="postnum952"',
        'class="lzl_single_post"',
        'class="xg1"',
        'id="comment_952"',
        'class="locked"',
        "",
    ]
)


@st.composite
def soup(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append(f"<{draw(tags)} {draw(attrs)}>")
        elif kind == 1:
            parts.append(f"</{draw(tags)}>")
        elif kind == 2:
            parts.append(draw(st.text(UNICODE, max_size=20)))
        else:
            parts.append(
                draw(
                    st.sampled_from(
                        [
                            "发表于 2024-5-6 09:31",
                            "本帖最后由 X 于 2024-5-6 编辑",
                            "楼主",
                            "3&nbsp;小时前",
                            "<em>5</em><sup>#</sup>",
                            "2楼",
                            "</html>",
                        ]
                    )
                )
            )
    return "".join(parts)


def parse_everywhere(text: str) -> None:
    for platform in PARSERS:
        with suppress(TallyError):
            platform.parse_page(text, CHINA, source="fuzz")
        with suppress(TallyError):
            platform.parse_saved(text, CHINA, source="fuzz")


# A page that cannot be read is a page error: exit 4 (not a thread) or 5 (cannot be read),
# never bad input, a network error or a crash.
PAGE_ERRORS = (NotAThreadError, ParseError)


@FUZZ
@given(st.sampled_from(range(len(REAL))), st.floats(0, 0.999))
def test_truncated_real_pages(index, where):
    """A real page cut anywhere: truncated, or (cut before the platform's own marker) not
    a thread page of that platform."""
    page, platform = REAL[index], OWN[index]
    cut = page[: int(len(page) * where)]
    with pytest.raises(
        PAGE_ERRORS, match=r"^fuzz (ends before the forum finished the page|is not a .+ thread page\.)"
    ) as info:
        platform.parse_page(cut, CHINA, source="fuzz")
    marker = page.find(platform.page_marker) + len(platform.page_marker)
    expected = TruncatedPageError if len(cut) >= marker else NotAThreadError
    assert isinstance(info.value, expected), (len(cut), marker, info.value)
    parse_everywhere(cut)


@pytest.mark.slow
@FUZZ
@given(
    st.sampled_from(range(len(REAL))),
    st.lists(st.tuples(st.floats(0, 1), st.text(UNICODE, max_size=8)), max_size=8),
)
def test_mangled_real_pages(index, edits):
    page, platform = REAL[index], OWN[index]
    for where, insert in edits:
        i = int(len(page) * where)
        page = page[:i] + insert + page[i + len(insert) :]
    try:
        platform.parse_page(page, CHINA, source="fuzz")
    except TallyError as exc:
        assert isinstance(exc, PAGE_ERRORS), exc
    parse_everywhere(page)


@pytest.mark.slow
@FUZZ
@given(soup())
def test_random_tags(text):
    parse_everywhere(text)
    parse_everywhere('<html><body><div id="postlist">' + text + "</div></body></html>")


@FUZZ
@given(st.text(UNICODE))
def test_random_unicode(text):
    parse_everywhere(text)
    read_ballot(text)
    for parse in (parse_total_comment, parse_comment_fragment):
        with suppress(TallyError):
            parse(text, CHINA, source="fuzz")


@FUZZ
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(UNICODE, max_size=10),
        lambda kids: (
            st.lists(kids, max_size=4) | st.dictionaries(st.text(UNICODE, max_size=12), kids, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_random_comment_json(value):
    import json

    for shaped in (
        value,
        {"errno": 0, "data": {"comment_list": value}},
        {"errno": 0, "data": {"comment_list": {"1": value}}},
        {"errno": 0, "data": {"comment_list": {"1": {"comment_info": value}}}},
    ):
        with suppress(TallyError):
            parse_total_comment(json.dumps(shaped), CHINA, source="fuzz")
