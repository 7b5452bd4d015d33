"""Every post of a thread as CSV rows (`tally archive`; README, *`tally archive` CSV*).

Columns, in this order:

===============  ==========================================================
platform         "discuz" or "tieba"
thread_id        the forum's thread id
post_id          the post id; for a comment, the comment's id
parent_post_id   empty for a floor; for a comment, the post id of its floor
floor            the floor number (a comment carries its floor's number)
author           account name
author_id        the forum's user id, when the page shows it
time             ISO 8601 with offset, e.g. 2024-05-08T10:01:00+08:00
edited_at        time of the last edit mark, same format; empty if none
text             what the author wrote, quoted blocks left out
kind             "post" or "comment"
edited_by        who made the last edit
quotes           post ids the post quotes, separated by spaces
red_font         1 if the post uses red font (RULES L7), else 0
large_font       1 if the post uses enlarged font (RULES L7), else 0
hidden           why the forum hides the body ("author_banned", "moderated"), else empty
author_display   the name shown when it differs from the account name (Tieba)
thread_title     the thread's title
reply_to         the post id a reply links to without quoting (Discuz!'s 回复 header)
quoted           the quotes as JSON: [{"post_id", "author", "text"}, …]
page             the page the floor is on
position         0 for a floor; 1, 2, … for its 点评 in the order the forum shows
thread_url       the URL the thread was read from (or the saved file)
thread_pages     the thread's page count when read
thread_replies   the reply count the thread showed, when it did
thread_read_at   when the thread was read from the forum; empty for saved files
thread_missing   what a partial read lacked (archive --partial), "; "-separated
origin           the board the thread is of ("bbs.example.com/bbs/")
comments         how many 点评/楼中楼 a floor had; empty for a comment
to_the_minute    1 if the forum showed the time to the minute only (its second unknown)
===============  ==========================================================

The columns after ``thread_title`` are what reading the archive back needs
(``tally.records``): an archive is a source like saved pages.

The file is UTF-8 with a byte-order mark so that Excel in a Chinese locale reads it,
control characters in what users wrote are shown as visible stand-ins (␛ for ESC), and
any cell that would start a formula (``= + - @``, tab, CR, after NFKC) is prefixed
with an apostrophe so that a spreadsheet shows it as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tally.atomic import write_atomic
from tally.csvfile import excel_csv
from tally.model import Thread
from tally.records import COLUMNS, rows


def to_csv_bytes(threads: Iterable[Thread]) -> bytes:
    return excel_csv(rows(threads), COLUMNS, multiline=("text",))


def write_csv(threads: Iterable[Thread], path: str | Path) -> int:
    """Write the CSV atomically; returns the number of rows written."""
    threads = list(threads)
    data = to_csv_bytes(threads)
    write_atomic(path, data)
    return sum(1 + len(p.comments) for t in threads for p in t.posts)
