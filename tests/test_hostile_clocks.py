"""Hostile and unlucky clocks (issue 34): every 12-hour marker form a page can print, read
or refused, never ignored; a 12-hour clock printed without its marker; a board's stated zone
against the zone tally reads its times in.

TALLY_FUZZ_EXAMPLES sets the examples per property (80 by default).
"""

from __future__ import annotations

import contextlib
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally.errors import InputError, ParseError
from tally.forums.discuz import Discuz
from tally.forums.timeparse import parse_forum_time

from .conftest import CHINA
from .discuzgen import P, Thread
from .strategies import fuzz

FUZZ = fuzz()


def at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).replace(tzinfo=CHINA)


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    ("shown", "meant"),
    [
        ("发表于 下午 2026-3-5 08:40", "2026-03-05 20:40"),  # the marker before the date
        ("下午2026-3-5 08:40", "2026-03-05 20:40"),
        ("2026-3-5 08:05 午後", "2026-03-05 20:05"),
        ("2026-3-5 午後 08:05", "2026-03-05 20:05"),
        ("2026-3-5 午前 08:05", "2026-03-05 08:05"),
        ("2026-3-5 晚上 08:05", "2026-03-05 20:05"),
        ("2026-3-5 08:05 ＰＭ", "2026-03-05 20:05"),
        ("２０２６-３-５ ０８：０５ ＰＭ", "2026-03-05 20:05"),
        ("2026-3-5 08:05 P M", "2026-03-05 20:05"),
        ("2026-3-5 08:05 p. m.", "2026-03-05 20:05"),
        ("2026-3-5 下 午 08:05", "2026-03-05 20:05"),
        ("2026-3-5 下　午 08:05", "2026-03-05 20:05"),
        ("2026-3-5 凌晨 12:30", "2026-03-05 00:30"),
        ("2026-3-5 凌晨 1:30", "2026-03-05 01:30"),
        ("2026-3-5 中午 12:10", "2026-03-05 12:10"),
        ("2026-3-5 中午 1:05", "2026-03-05 13:05"),
        ("2026-3-5 早上 7:05", "2026-03-05 07:05"),
        ("PM 2026-3-5 08:05", "2026-03-05 20:05"),
        ("2026年3月5日 下午8:05", "2026-03-05 20:05"),
        ("2026-3-5 08:05:09 pm", "2026-03-05 20:05:09"),
    ],
)
def test_every_twelve_hour_marker_is_read_wherever_it_stands(shown, meant):
    assert parse_forum_time(shown, CHINA) == at(meant)


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    "shown",
    [
        "2026-3-5 晚上 12:30",  # midnight or noon: 晚上12点 says neither
        "2026-3-5 中午 5:00",
        "下午 2026-3-5 08:40 PM",  # two markers
        "2026-3-5 上午 08:40 下午",
        "2026-3-5 凌晨 00:30",
        "2026-3-5 午後 13:05",
        "0001-01-01 00:00",  # years no post has: any move of zone would overflow
        "9999-12-31 23:59",
    ],
)
def test_a_marker_that_cannot_be_read_with_its_hour_is_refused(shown):
    with pytest.raises(
        ParseError, match=r"^time '.+'( is not a real date and time| names the half of the day twice|: \d+ o'clock is not a time '.+' can name on a 12-hour clock)\.$"
    ):
        parse_forum_time(shown, CHINA)


# The afternoon's markers in every form a page prints them: widths (NFKC folds ＰＭ), dots,
# spaces inside, Chinese, Japanese.
_PM = ["下午", "午後", "午后", "PM", "pm", "Pm", "P.M.", "p.m.", "P M", "p. m.", "P.M", "ＰＭ",
       "ｐ．ｍ．", "Ｐ Ｍ", "下 午", "下　午", "傍晚"]  # fmt: skip
_DATES = ["2026-3-5", "2026-03-05", "2026/3/5", "2026年3月5日", "２０２６-３-５"]
_GAPS = ["", " ", "  ", "\xa0", "\u3000"]


@FUZZ
@given(
    marker=st.sampled_from([*_PM, "晚上"]),
    where=st.sampled_from(["before", "between", "after"]),
    date=st.sampled_from(_DATES),
    gap=st.sampled_from(_GAPS),
    hour=st.integers(1, 12),
    minute=st.integers(0, 59),
    padded=st.booleans(),
    prefix=st.sampled_from(["", "发表于 ", "發表於 "]),
)
def test_an_afternoon_is_never_read_as_a_morning(marker, where, date, gap, hour, minute,
                                                 padded, prefix):  # fmt: skip
    """Of every generated string for an afternoon time, each is read as that time or
    refused (晚上 12 o'clock, 晚上 before 6): none comes back as another hour."""
    clock = f"{hour:02d}:{minute:02d}" if padded else f"{hour}:{minute:02d}"
    shown = {
        "before": f"{prefix}{marker}{gap}{date} {clock}",
        "between": f"{prefix}{date}{gap}{marker}{gap}{clock}",
        "after": f"{prefix}{date} {clock}{gap}{marker}",
    }[where]
    meant = hour % 12 + 12
    if marker == "晚上" and not 6 <= hour <= 11:
        with pytest.raises(
            ParseError, match="o'clock is not a time '晚上' can name on a 12-hour clock"
        ):
            parse_forum_time(shown, CHINA)
        return
    assert parse_forum_time(shown, CHINA) == at(f"2026-03-05 {meant:02d}:{minute:02d}")


@FUZZ
@given(st.text(alphabet=st.sampled_from([*"0123456789-/: 年月日下午上晚AaPpMm.．ＰＭ午後凌晨中"]),
               max_size=30))  # fmt: skip
def test_any_time_string_is_a_time_or_a_parse_error(text):
    with contextlib.suppress(ParseError):
        assert parse_forum_time(text, CHINA).tzinfo is CHINA


def parse(thread: Thread, tz=CHINA, page: int = 0):  # type: ignore[no-untyped-def]
    text = thread.pages()[page].decode("utf-8")
    return Discuz().pages.parse_page(text, tz, source="page 1")


@pytest.mark.rules("S2")
def test_a_twelve_hour_clock_without_its_marker_is_refused():
    """A board set to h:i: 00:30, 12:10, 13:05 are printed 12:30, 12:10, 01:05: floors whose
    times run backwards on a page none of whose times is past 12 o'clock."""
    t = Thread("7", "第二天投票帖", {"a": 1, "b": 2, "c": 3})
    t.add(P("a", "2026-3-5 12:30"), P("b", "2026-3-5 12:10"), P("c", "2026-3-5 01:05"))
    with pytest.raises(ParseError, match=r"floor 2 was posted at 2026-03-05 12:10, before floor "
                       r"1 at 2026-03-05 12:30.*12-hour clock without AM/PM"):  # fmt: skip
        parse(t)


def test_a_page_whose_times_run_forward_is_read():
    t = Thread("7", "第二天投票帖", {"a": 1, "b": 2, "c": 3})
    t.add(P("a", "2026-3-5 01:30"), P("b", "2026-3-5 02:10"), P("c", "2026-3-5 11:05"))
    assert [p.time for p in parse(t).posts] == [
        at("2026-03-05 01:30"),
        at("2026-03-05 02:10"),
        at("2026-03-05 11:05"),
    ]


def test_an_hour_of_summer_time_given_back_is_not_a_twelve_hour_clock():
    """Europe/Berlin puts its clock back at 03:00 on 2026-10-25: 02:50 then 02:10 (the
    second 02:10) is the clock's change, not a missing marker."""
    berlin = ZoneInfo("Europe/Berlin")
    text = (
        Thread("7", "第二天投票帖", {"a": 1, "b": 2})
        .add(P("a", "2026-10-25 02:50"), P("b", "2026-10-25 02:10"))
        .pages()[0]
        .decode("utf-8")
        .replace("GMT+8, ", "GMT+1, ")
    )
    page = Discuz().pages.parse_page(text, berlin, source="page 1")
    assert len(page.posts) == 2
    t = Thread("7", "第二天投票帖", {"a": 1, "b": 2}).add(
        P("a", "2026-10-25 04:50"), P("b", "2026-10-25 02:10")
    )
    text = t.pages()[0].decode("utf-8").replace("GMT+8, ", "GMT+1, ")
    with pytest.raises(ParseError, match="12-hour clock"):
        Discuz().pages.parse_page(text, berlin, source="page 1")


@pytest.mark.rules("S2")
def test_a_zone_other_than_the_footers_is_refused_naming_both():
    """The footer of every Discuz! page says the offset its times are printed in (GMT+8):
    read in UTC they would be 8 hours off."""
    t = Thread("7", "第二天投票帖", {"a": 1}).add(P("a", "2026-3-5 20:05"))
    with pytest.raises(InputError, match=r"prints its times in GMT\+8 \(its footer\)") as info:
        parse(t, ZoneInfo("UTC"))
    assert str(info.value) == (
        "page 1 prints its times in GMT+8 (its footer), but tally would read them in UTC "
        "(UTC+0), +8 h off: a member's own 时区 (个人资料 → 设置) shifts every time the forum "
        "shows them; set the account whose cookies tally reads with back to 使用默认 (the "
        "board's), or if the board itself is in that zone, say so with timezone in the game "
        "file (all its days' times are then in it too), a board profile or the config."
    )
    assert parse(t, ZoneInfo("Asia/Taipei")).posts[0].time.hour == 20  # also GMT+8


@pytest.mark.parametrize(("footer", "zone"), [("GMT", "UTC"), ("GMT-5", "America/New_York"),
                                              ("GMT+5.5", "Asia/Karachi")])  # fmt: skip
def test_the_footers_other_offsets_are_read(footer, zone):
    """GMT+5.5: Discuz! shifts the times by whole hours (+5), whatever the footer prints."""
    t = Thread("7", "第二天投票帖", {"a": 1}).add(P("a", "2026-3-5 20:05"))
    text = t.pages()[0].decode("utf-8").replace("GMT+8, ", f"{footer}, ")
    page = Discuz().pages.parse_page(text, ZoneInfo(zone), source="page 1")
    assert page.posts[0].time.hour == 20
    with pytest.raises(InputError, match=re.escape(f"prints its times in {footer}")):
        Discuz().pages.parse_page(text, CHINA, source="page 1")


@pytest.mark.rules("S2")
def test_tieba_pages_are_read_on_baidus_clock_whatever_the_games_zone():
    """Baidu prints Tieba's times in Beijing time, and its JSON carries Unix times: a game
    whose zone is another reads the same moments from both, not 8 hours apart."""
    from .conftest import read
    from .test_reading_tieba_saved import TIEBA

    files = sorted(str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json"))
    [china] = read(files)
    [utc] = read(files, ZoneInfo("UTC"))
    assert [p.time for p in utc.posts] == [p.time for p in china.posts]
    assert [c.time for p in utc.posts for c in p.comments] == [
        c.time for p in china.posts for c in p.comments
    ]
    assert utc.posts[1].time.isoformat() == "2024-05-08T02:01:00+00:00"


@pytest.mark.rules("S2")
def test_a_twelve_hour_clock_is_seen_across_pages(forum):
    """Each page's times run forward (10:00 to 11:30, then 01:05 and 02:00 for 13:05 and
    14:00): between page 1 and page 2 they run back, and the thread is refused."""
    from .conftest import read_one

    t = Thread("7", "第二天投票帖", {f"p{i}": i + 1 for i in range(12)})
    t.add(*(P(f"p{i}", f"2026-3-5 {10 + i // 6}:{(i % 6) * 10:02d}") for i in range(10)))
    t.add(P("p10", "2026-3-5 01:05"), P("p11", "2026-3-5 02:00"))
    pages = [Discuz().pages.parse_page(b.decode("utf-8"), CHINA, source="p") for b in t.pages()]
    assert [len(p.posts) for p in pages] == [10, 2]  # each page alone is read
    with pytest.raises(
        ParseError, match="floor 11 was posted at 2026-03-05 01:05, before floor 10"
    ):
        read_one(t.serve(forum))
