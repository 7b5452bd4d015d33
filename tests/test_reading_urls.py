"""Every URL form a director pastes names the same thread (shared CONTRACT.md)."""

from __future__ import annotations

import pytest

from tally.errors import InputError
from tally.forums import resolve_url


@pytest.mark.parametrize(
    "url,base,page",
    [
        ("https://bbs.example.com/forum.php?mod=viewthread&tid=101", "https://bbs.example.com/", 1),
        (
            "https://www.example.com/forum.php?mod=viewthread&tid=101&extra=page%3D1&page=3",
            "https://www.example.com/",
            3,
        ),
        (
            "http://example.com/bbs/forum.php?mod=viewthread&tid=101&page=2&authorid=7",
            "http://example.com/bbs/",
            2,
        ),
        (
            "https://example.com/forum.php?tid=101&mod=viewthread&ordertype=1#pid5",
            "https://example.com/",
            1,
        ),
        ("https://bbs.example.com/thread-101-1-1.html", "https://bbs.example.com/", 1),
        ("http://www.example.com/bbs/thread-101-4-2.html", "http://www.example.com/bbs/", 4),
        ("https://bbs.example.com/archiver/tid-101.html", "https://bbs.example.com/", 1),
        ("  https://bbs.example.com/thread-101-1-1.html\n", "https://bbs.example.com/", 1),
    ],
)
def test_discuz_url_forms(url, base, page):
    platform, ref = resolve_url(url)
    assert (platform.name, ref.thread_id, ref.base, ref.page) == ("discuz", "101", base, page)
    # Whatever was pasted, tally reads the plain, unfiltered pages.
    assert platform.page_url(ref, 2) == f"{base}forum.php?mod=viewthread&tid=101&page=2"


@pytest.mark.parametrize(
    "url,message",
    [
        ("bbs.example.com/thread-101-1-1.html", "http:// or https://"),
        ("https://bbs.example.com/forum.php?mod=forumdisplay&fid=2", "not a thread URL"),
        ("https://bbs.example.com/forum.php?mod=viewthread&tid=abc", "not a thread URL"),
        ("ftp://bbs.example.com/thread-101-1-1.html", "not a thread URL"),
    ],
)
def test_bad_urls_are_one_sentence(url, message):
    with pytest.raises(InputError, match=message):
        resolve_url(url)
