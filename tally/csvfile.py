"""CSV files that Excel opens as they are: the one writer of the archive and the ledger.

UTF-8 with a byte-order mark (Excel in a Chinese locale reads it), CRLF line ends, every
cell sanitised (``tally.sanitise``: control characters visible, one line but in the
columns that hold post text), and a cell that a spreadsheet would run as a formula
(``= + - @``, tab or CR, after NFKC, or the apostrophe itself) prefixed with an apostrophe.

The standard library's ``csv`` writes the table, in Excel's dialect. pandas wrote it before,
through that same writer and dialect: for what tally writes (text, whole numbers) the bytes
are the same, and the third of a second pandas took to import, and its 4 ms a table, are
gone from every `tally lurkers` that writes the ledger and every `tally archive`.
"""

from __future__ import annotations

import csv
import io
import math
import sys
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tally.atomic import write_atomic
from tally.sanitise import one_line, text_block

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def read_long_cells() -> None:
    """Let the csv module read cells as long as tally writes them: a post (or a card's
    reason) may be longer than its default limit of 131,072 characters."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def neutralise(value: str) -> str:
    """Make a cell that a spreadsheet would run as a formula plain text.

    A cell that starts with the apostrophe itself gets one more, so that ``restore`` can
    tell the two apart (and a spreadsheet, which hides one leading apostrophe, shows it).
    """
    # NFKC first: a full-width "＝" is folded to "=" by some spreadsheet imports.
    first = unicodedata.normalize("NFKC", value[:1])
    if first.startswith(_FORMULA_START) or value.startswith("'"):
        return "'" + value
    return value


def restore(value: str) -> str:
    """A cell as it was before ``neutralise``, for reading tally's own files back."""
    if value.startswith("'") and neutralise(value[1:]) == value:
        return value[1:]
    return value


def excel_csv(
    rows: Iterable[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    multiline: Collection[str] = (),
) -> bytes:
    """The CSV bytes of ``rows`` (dicts keyed by ``columns``); ``multiline`` columns keep
    their line breaks. A key a row lacks, or None, is an empty cell; a key not in
    ``columns`` is not written."""
    cleaners = [text_block if column in multiline else one_line for column in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # Excel's dialect: minimal quoting
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            neutralise(clean(v)) if isinstance(v := row.get(column), str) else _cell(v)
            for column, clean in zip(columns, cleaners, strict=True)
        )
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _cell(value: Any) -> Any:
    """A cell that is not text: nothing for None or NaN, else as it is (the writer writes
    ``str(value)``: a number as Python writes it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value


def write_excel_csv(
    path: str | Path,
    rows: Iterable[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    multiline: Collection[str] = (),
) -> None:
    """Write the CSV atomically: a failed write leaves the old file as it was."""
    write_atomic(path, excel_csv(rows, columns, multiline=multiline))
