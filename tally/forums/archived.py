"""Archives as sources: the CSV of `tally archive` and the SQLite file of `--db`, read back
into the threads they hold (``tally.records`` turns rows into threads).

A CSV re-saved by a spreadsheet still reads: the byte-order mark may be gone, the file may
be GB18030 (Excel's "CSV" in a Chinese locale), the columns may be in another order. What
cannot be read back exactly (a time re-formatted, an id shortened to "1.5E+11") is one
sentence naming the row and the column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tally.csvfile import restore
from tally.errors import InputError
from tally.model import Thread
from tally.records import COLUMNS, THREAD_COLUMNS, check_columns, threads_from_rows

SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER = ",".join(COLUMNS[:3]).encode("ascii")


def archive_kind(path: Path) -> str | None:
    """ "csv" or "sqlite" when the file is an archive tally wrote, else None."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
    except OSError:
        return None
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    # The header row, with or without a byte-order mark, quoted or not (a spreadsheet's save).
    if head.removeprefix(b"\xef\xbb\xbf").replace(b'"', b"").startswith(_HEADER):
        return "csv"
    return None


def read_archive(path: Path) -> list[Thread]:
    """Every thread an archive holds."""
    kind = archive_kind(path)
    if kind == "sqlite":
        return threads_from_rows(_db_rows(path), str(path))
    if kind == "csv":
        return threads_from_rows(_csv_rows(path), str(path))
    raise InputError(f"{path} is not an archive written by tally archive (CSV or SQLite).")


def _csv_rows(path: Path) -> Iterator[tuple[Mapping[str, Any], str]]:
    data = path.read_bytes()
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:  # pragma: no cover - gb18030 decodes nearly any byte string
        raise InputError(f"{path} is neither UTF-8 nor GB18030 text.")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        check_columns(reader.fieldnames or [], str(path))
        for number, row in enumerate(reader, start=2):  # row 1 is the header, as Excel counts
            if None in row:
                raise InputError(f"{path}, row {number}: more cells than columns.")
            yield (
                {k: restore(v) if isinstance(v, str) else v for k, v in row.items()},
                (f"{path}, row {number}"),
            )
    except csv.Error as exc:
        raise InputError(f"{path} is not a readable CSV file ({exc}).") from None


def _db_rows(path: Path) -> Iterator[tuple[Mapping[str, Any], str]]:
    import sqlite3

    from sqlite_utils import Database

    try:
        db = Database(path)
        if not db["posts"].exists() or not db["threads"].exists():
            raise InputError(
                f"{path} is a SQLite file without the posts and threads tables of tally archive."
            )
        check_columns([c.name for c in db["posts"].columns] + list(THREAD_COLUMNS), str(path))
        threads = {(t["platform"], t["thread_id"]): t for t in db["threads"].rows}
        for row in db["posts"].rows_where("gone_at is null", order_by="rowid"):
            where = f"{path}, post {row.get('thread_id')}/{row.get('post_id')}"
            thread = threads.get((row.get("platform"), row.get("thread_id")))
            if thread is None:
                raise InputError(f"{where}: its thread is not in the threads table.")
            meta = {
                "thread_url": thread.get("url"),
                "thread_pages": thread.get("pages"),
                "thread_replies": thread.get("replies"),
                "thread_read_at": thread.get("read_at"),
                "thread_missing": thread.get("missing"),
            }
            merged = {**row, **meta}
            yield {k: "" if v is None else v for k, v in merged.items()}, where
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path} is not a readable SQLite file ({exc}).") from None
