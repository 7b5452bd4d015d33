"""Archives as sources: the CSV of `tally archive` and the SQLite file of `--db`, read back
into the threads they hold, strictly (``tally.records`` holds the format they were written
in).

A CSV re-saved by a spreadsheet still reads: the byte-order mark may be gone, the file may
be GB18030 (Excel's "CSV" in a Chinese locale), the columns may be in another order. What
cannot be read back exactly (a time re-formatted, an id shortened to "1.5E+11") is one
sentence naming the row and the column.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from tally.csvfile import read_long_cells, restore
from tally.errors import InputError
from tally.files import ARCHIVE, read_capped
from tally.forums.base import field_value
from tally.i18n import N_, tr
from tally.model import Comment, Edit, Post, Quote, Thread, origin_of
from tally.records import COLUMNS, LATER_COLUMNS, THREAD_COLUMNS, RowKind, database
from tally.vocabulary import Origin

SQLITE_MAGIC = b"SQLite format 3\x00"
# The columns that make a CSV an archive of tally's, in whatever order a spreadsheet or a
# script left them.
_NAMED = {"platform", "thread_id", "post_id", "floor", "author", "time", "kind"}


def archive_kind(path: Path) -> str | None:
    """ "csv" or "sqlite" when the file is an archive tally wrote, else None."""
    if not path.is_file():
        return None  # a FIFO would block the read, a device never end
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    # The header row, with or without a byte-order mark, quoted or not, in any order.
    first = head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    names = {n.strip().strip(b'"').decode("ascii", "replace") for n in first.split(b",")}
    return "csv" if names >= _NAMED else None


def whole(threads: list[Thread], source: str, partial: bool = False) -> list[Thread]:
    """Threads from an archive, refused when it holds one only in part (unless ``partial``)."""
    for thread in threads:
        if thread.missing and not partial:
            raise InputError(
                tr(
                    "{source} holds thread {thread} only in part ({missing}); a count needs "
                    "the whole thread.",
                    source=source, thread=thread.thread_id, missing="; ".join(thread.missing),
                )
            )
    return threads


def read_archive(path: Path) -> list[Thread]:
    """Every thread an archive holds."""
    kind = archive_kind(path)
    if kind == "sqlite":
        return threads_from_rows(_db_rows(path), str(path))
    if kind == "csv":
        return threads_from_rows(_csv_rows(path), str(path))
    raise InputError(
        tr("{path} is not an archive written by tally archive (CSV or SQLite).", path=path)
    )


def _csv_rows(path: Path) -> Iterator[tuple[Mapping[str, Any], str]]:
    data = read_capped(path, "archive", ARCHIVE)
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:  # pragma: no cover - gb18030 decodes nearly any byte string
        raise InputError(tr("{path} is neither UTF-8 nor GB18030 text.", path=path))
    read_long_cells()  # what the writer writes, the reader reads
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        check_columns(reader.fieldnames or [], str(path))
        for number, row in enumerate(reader, start=2):  # row 1 is the header, as Excel counts
            where = tr("{path}, row {row}", path=path, row=number)
            if None in row:
                raise InputError(tr("{where}: more cells than columns.", where=where))
            if any(v is None for v in row.values()):
                raise InputError(
                    tr(
                        "{where}: fewer cells than columns; the file was cut or edited: "
                        "archive the game again.",
                        where=where,
                    )
                )
            yield (
                {k: restore(v) if isinstance(v, str) else v for k, v in row.items()},
                where,
            )
    except csv.Error as exc:
        raise InputError(
            tr("{path} is not a readable CSV file ({why}).", path=path, why=exc)
        ) from None


def _db_rows(path: Path) -> Iterator[tuple[Mapping[str, Any], str]]:
    import sqlite3

    try:
        db = database(path)
        if not db["posts"].exists() or not db["threads"].exists():
            raise InputError(
                tr(
                    "{path} is a SQLite file without the posts and threads tables of tally "
                    "archive.",
                    path=path,
                )
            )
        check_columns([c.name for c in db["posts"].columns] + list(THREAD_COLUMNS), str(path))
        threads = {
            (t.get("origin", ""), t["platform"], t["thread_id"]): t for t in db["threads"].rows
        }
        for row in db["posts"].rows_where("gone_at is null", order_by="rowid"):
            where = tr(
                "{path}, post {thread}/{post}",
                path=path, thread=row.get("thread_id"), post=row.get("post_id"),
            )
            key = (row.get("origin", ""), row.get("platform"), row.get("thread_id"))
            thread = threads.get(key)
            if thread is None:
                raise InputError(
                    tr("{where}: its thread is not in the threads table.", where=where)
                )
            meta = {
                "thread_url": thread.get("url"),
                "thread_pages": thread.get("pages"),
                "thread_replies": thread.get("replies"),
                "thread_read_at": thread.get("read_at"),
                "thread_missing": thread.get("missing"),
                "thread_read_by": thread.get("read_by"),
            }
            merged = {**row, **meta}
            yield {k: "" if v is None else v for k, v in merged.items()}, where
    except sqlite3.DatabaseError as exc:
        raise InputError(
            tr("{path} is not a readable SQLite file ({why}).", path=path, why=exc)
        ) from None


# -- rows back to threads ---------------------------------------------------------------------

T = TypeVar("T")
# A required cell left empty, as a row's sentence says it.
_EMPTY = N_("{where}: {name} is empty.")
# What Excel makes of a long number when it saves a CSV: "1.5E+11".
_SCIENTIFIC = re.compile(r"^\d(\.\d+)?E\+\d+$", re.IGNORECASE)


@dataclass(frozen=True)
class _Cells:
    """One row, read strictly: every failure is one sentence naming the row and column."""

    row: Mapping[str, Any]
    where: str  # "posts.csv, row 7"

    def text(self, column: str) -> str:
        value = self.row.get(column)
        return "" if value is None else str(value)

    def optional(self, column: str) -> str | None:
        return self.text(column) or None

    def required(self, column: str) -> str:
        return self.given(self.optional(column), column)

    def given(self, value: T | None, column: str) -> T:
        """A required cell's value; an empty one is the row's one sentence."""
        return field_value(value, self.where, column, error=InputError, said=_EMPTY)

    def ident(self, column: str) -> str:
        value = self.text(column).strip()
        if _SCIENTIFIC.match(value):
            raise InputError(
                tr(
                    "{where}: {column} is {value}, a number a spreadsheet shortened; save the "
                    "CSV with that column as text, or archive the game again.",
                    where=self.where, column=column, value=repr(value),
                )
            )
        return self.given(value, column)

    def number(self, column: str) -> int:
        return self.given(self.maybe_number(column), column)

    def maybe_number(self, column: str) -> int | None:
        value = self.text(column).strip()
        if not value:
            return None
        # "3.0": a script (pandas) that re-saved a column with blanks in it as floats.
        if not re.fullmatch(r"\d+(\.0+)?", value):
            raise InputError(
                tr(
                    "{where}: {column} is {value}, not a whole number.",
                    where=self.where, column=column, value=repr(value),
                )
            )
        return int(value.split(".")[0])

    def flag(self, column: str) -> bool:
        value = self.text(column).strip()
        if value not in ("0", "1", ""):
            raise InputError(
                tr(
                    "{where}: {column} is {value}, not 0 or 1.",
                    where=self.where, column=column, value=repr(value),
                )
            )
        return value == "1"

    def time(self, column: str) -> datetime:
        return self.given(self.maybe_time(column), column)

    def maybe_time(self, column: str) -> datetime | None:
        value = self.text(column).strip()
        if not value:
            return None
        try:
            parsed: datetime | None = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is None or parsed.tzinfo is None:
            raise InputError(
                tr(
                    "{where}: {column} is {value}, not the time tally wrote "
                    "(2024-05-08T10:01:00+08:00); a spreadsheet re-formats times when it "
                    "saves: keep that column as text, or archive the game again.",
                    where=self.where, column=column, value=repr(value),
                )
            )
        return parsed


def check_columns(present: Sequence[str], source: str) -> None:
    """An archive must carry every column a re-tally reads."""
    lacking = [c for c in COLUMNS if c not in present and c not in LATER_COLUMNS]
    if lacking:
        shown = ", ".join(lacking[:6]) + (" …" if len(lacking) > 6 else "")
        raise InputError(
            tr(
                "{source} lacks the column(s) {columns} that tally reads an archive by; it "
                "was written by an older tally or edited: archive the game again.",
                source=source, columns=shown,
            )
        )


def threads_from_rows(found: Iterable[tuple[Mapping[str, Any], str]], source: str) -> list[Thread]:
    """The threads the rows hold, each as it was read when archived.

    ``found`` gives each row with where it is ("posts.csv, row 7"). A 点评 whose floor is
    not in the archive, two rows for one post, or a thread whose pages are not all there is
    an error; a thread the archive says was partial keeps what it lacks in ``missing``.
    """
    by_thread: dict[tuple[str, str, str], list[tuple[int, _Cells]]] = {}
    for order, (row, where) in enumerate(found):
        cells = _Cells(row, where)
        # An archive written before the origin column: the board is its thread URL's.
        origin = cells.text("origin").strip() if "origin" in row else _url_origin(cells)
        key = (origin, cells.ident("platform"), cells.ident("thread_id"))
        by_thread.setdefault(key, []).append((order, cells))
    threads = []
    for (origin, platform, tid), items in by_thread.items():
        threads.append(_thread(origin, platform, tid, items, source))
    return threads


def _url_origin(cells: _Cells) -> str:
    url = cells.text("thread_url")
    return origin_of(url) if "://" in url else ""


# What every row of one thread repeats, and must repeat alike.
_SAME_FOR_A_THREAD = (
    "thread_url", "thread_pages", "thread_replies", "thread_read_at", "thread_title",
    "thread_read_by",
)  # fmt: skip


def _thread(
    origin: str, platform: str, tid: str, items: list[tuple[int, _Cells]], source: str
) -> Thread:
    items.sort(key=_place)
    first = items[0][1]
    _check_alike(items, tid, source)
    floors = _floors_of(items, platform, tid)
    built = _posts(floors, tid, source)
    _check_comments(floors.posts, floors.comments, floors.counts, tid, source)
    _check_positions(floors.positions, tid, source)
    pages = first.number("thread_pages")
    missing = [m for m in first.text("thread_missing").split("; ") if m]
    present = {p.page for p in built}
    absent = [n for n in range(1, pages + 1) if n not in present]
    if absent and not missing:
        shown = ", ".join(map(str, absent[:10]))
        raise InputError(
            tr(
                "{source} holds no post of page(s) {pages} of thread {thread} ({count} "
                "pages): the archive is incomplete; archive the thread again.",
                source=source, pages=shown, thread=tid, count=pages,
            )
        )
    floor_numbers = {p.floor for p in built}
    thread = Thread(
        platform=platform, thread_id=tid, url=first.text("thread_url") or source,
        title=first.text("thread_title"), page_count=pages, posts=tuple(built),
        reply_count=first.maybe_number("thread_replies"), sources=(Origin.ARCHIVE,) * pages,
        gaps=tuple(
            f for f in range(1, max(floor_numbers, default=0) + 1) if f not in floor_numbers
        ),
        read_at=first.maybe_time("thread_read_at"), missing=tuple(missing), origin=origin,
        read_by=first.text("thread_read_by"),
    )
    if not missing and thread.short_of_replies():
        # What a live read refuses (tally.forums.fetch.check_complete), an archive may not
        # slip past: its own reply count says rows are gone.
        replies = len(built) - 1
        noted = sum(len(p.comments) for p in built)
        raise InputError(
            tr(
                "{source}: thread {thread} says it has {replies} replies but the archive "
                "holds {held} (and {comments} comments): rows were removed or the file was "
                "cut; archive the thread again.",
                source=source, thread=tid, replies=thread.reply_count, held=replies,
                comments=noted,
            )
        )
    return thread


def _place(item: tuple[int, _Cells]) -> tuple[int, int, int]:
    """Floor, then the floor before its 点评 in the forum's order: rows sorted by hand (or
    read from a database) come back in thread order."""
    order, cells = item
    position = cells.maybe_number("position")
    return (cells.number("floor"), position if position is not None else order, order)


def _check_alike(items: list[tuple[int, _Cells]], tid: str, source: str) -> None:
    """Every row of one thread repeats its thread's columns alike."""
    for column in _SAME_FOR_A_THREAD:
        seen_values = {c.text(column) for _, c in items}
        if len(seen_values) > 1:
            shown = ", ".join(repr(v) for v in sorted(seen_values)[:2])
            raise InputError(
                tr(
                    "{source}: the rows of thread {thread} disagree on {column} ({values}): "
                    "the archive mixes two threads, or was edited; archive them again.",
                    source=source, thread=tid, column=column, values=shown,
                )
            )


@dataclass(frozen=True)
class _Floors:
    """One thread's rows sorted out: each floor's fields, the 点评 under each floor, the
    positions those 点评 were numbered at and the 点评 count each floor's row states."""

    posts: dict[str, dict[str, Any]]
    comments: dict[str, list[Comment]]
    positions: dict[str, list[int]]
    counts: dict[str, tuple[int | None, str]]


def _floors_of(items: list[tuple[int, _Cells]], platform: str, tid: str) -> _Floors:
    floors = _Floors({}, {}, {}, {})
    seen: set[str] = set()
    minutes = _comment_minutes(platform)
    stated = "to_the_minute" in items[0][1].row
    for _, c in items:
        post_id = c.ident("post_id")
        if post_id in seen:
            raise InputError(
                tr(
                    "{where}: post {post} of thread {thread} is in the archive twice.",
                    where=c.where, post=post_id, thread=tid,
                )
            )
        seen.add(post_id)
        kind = c.text("kind").strip()
        if kind == RowKind.COMMENT:
            parent_id = c.ident("parent_post_id")
            floors.positions.setdefault(parent_id, []).append(c.maybe_number("position") or 0)
            floors.comments.setdefault(parent_id, []).append(_comment(c, minutes, stated))
            continue
        if kind != RowKind.POST:
            raise InputError(
                tr("{where}: kind is {kind}, not post or comment.", where=c.where, kind=repr(kind))
            )
        floors.counts[post_id] = (c.maybe_number("comments"), c.where)
        floors.posts[post_id] = _post_fields(c, platform, tid)
    if not stated:
        _on_the_minute(floors.posts)
    return floors


def _comment(c: _Cells, minutes: bool, stated: bool) -> Comment:
    """A 点评/楼中楼 row; ``stated``: the archive has the to_the_minute column, else
    ``minutes`` (the platform shows a comment's minute only) says as the live read knew it."""
    when = c.time("time")
    return Comment(
        comment_id=c.ident("post_id"), author=c.required("author"),
        author_id=c.optional("author_id"), time=when, text=c.text("text"),
        author_display=c.optional("author_display"),
        to_the_minute=c.flag("to_the_minute") if stated
        else minutes and when.second == when.microsecond == 0,
        red_font=c.flag("red_font"),
    )  # fmt: skip


def _post_fields(c: _Cells, platform: str, tid: str) -> dict[str, Any]:
    """A floor's row as Post's fields but its comments, which later rows bring."""
    edited_at = c.maybe_time("edited_at")
    return dict(
        platform=platform, thread_id=tid, post_id=c.ident("post_id"), floor=c.number("floor"),
        author=c.required("author"), author_id=c.optional("author_id"), time=c.time("time"),
        text=c.text("text"), quotes=_quotes(c), reply_to=c.optional("reply_to"),
        edited=Edit(c.text("edited_by"), edited_at) if edited_at else None,
        red_font=c.flag("red_font"), large_font=c.flag("large_font"), hidden=c.optional("hidden"),
        author_display=c.optional("author_display"), page=c.number("page"),
        to_the_minute=c.flag("to_the_minute"),
    )


def _posts(floors: _Floors, tid: str, source: str) -> list[Post]:
    """The thread's posts in floor order, each with its 点评; a 点评 without its floor, or
    two posts on one floor, is the archive's one sentence."""
    for parent in floors.comments:
        if parent not in floors.posts:
            raise InputError(
                tr(
                    "{source}: 点评/楼中楼 of post {post} of thread {thread}, whose floor is "
                    "not in the archive.",
                    source=source, post=parent, thread=tid,
                )
            )
    built = sorted(
        (
            Post(**p, comments=tuple(floors.comments.get(pid, ())))
            for pid, p in floors.posts.items()
        ),
        key=lambda p: p.floor,
    )
    for before, after in itertools.pairwise(built):
        if before.floor == after.floor:
            # As a live read: two posts on one floor cannot both be it.
            raise InputError(
                tr(
                    "{source}: posts {post} and {other} of thread {thread} both claim floor "
                    "{floor}; the archive was edited: archive the thread again.",
                    source=source, post=before.post_id, other=after.post_id, thread=tid,
                    floor=after.floor,
                )
            )
    return built


def _check_positions(positions: Mapping[str, list[int]], tid: str, source: str) -> None:
    """Each floor's 点评 numbered 1 to n when the archive numbers them: a gap is a row gone."""
    for parent, found in positions.items():
        if sorted(found) != list(range(1, len(found) + 1)) and all(found):
            raise InputError(
                tr(
                    "{source}: the 点评/楼中楼 of post {post} of thread {thread} are numbered "
                    "{numbers}, not 1 to {n}: rows were removed; archive the thread again.",
                    source=source, post=parent, thread=tid, numbers=sorted(found), n=len(found),
                )
            )


def _on_the_minute(posts: Mapping[str, dict[str, Any]]) -> None:
    """An archive written before its to_the_minute column: a thread whose every floor's time
    is on the minute was read from pages that print no seconds (a board with 人性化时间 off),
    and is read so: a ballot in the closing minute is flagged, not counted as on time."""
    if posts and all(p["time"].second == p["time"].microsecond == 0 for p in posts.values()):
        for p in posts.values():
            p["to_the_minute"] = True


def _check_comments(
    posts: Mapping[str, Any],
    comments: Mapping[str, list[Comment]],
    counts: Mapping[str, tuple[int | None, str]],
    tid: str,
    source: str,
) -> None:
    """Each floor's 点评/楼中楼 as many as the archive says it had (a later column)."""
    for post_id in posts:
        expected, where = counts.get(post_id, (None, ""))
        if expected is None:
            continue
        held = len(comments.get(post_id, ()))
        if held != expected:
            raise InputError(
                tr(
                    "{where}: post {post} of thread {thread} had {expected} 点评/楼中楼 when "
                    "archived, the archive holds {held}: rows were removed or edited; archive "
                    "the thread again.",
                    where=where, post=post_id, thread=tid, expected=expected, held=held,
                )
            )


def _quotes(c: _Cells) -> tuple[Quote, ...]:
    raw = c.text("quoted").strip()
    if not raw:
        return tuple(Quote("", pid) for pid in c.text("quotes").split())
    try:
        items = json.loads(raw)
        return tuple(
            Quote(str(q.get("text") or ""), q.get("post_id"), q.get("author")) for q in items
        )
    except (ValueError, AttributeError, TypeError):
        raise InputError(
            tr("{where}: quoted is not the JSON list tally wrote.", where=c.where)
        ) from None


def _comment_minutes(platform: str) -> bool:
    """Whether the platform shows a nested comment's time to the minute only."""
    from tally.forums import PLATFORMS

    return any(p.name == platform and p.comment_minutes for p in PLATFORMS)
