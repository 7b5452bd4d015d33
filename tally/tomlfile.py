"""TOML files a director types by hand (the game file, the config, board profiles), read
with the two mistakes a Chinese keyboard makes turned into what to do.

A file saved by an editor set to GBK (Windows Notepad before 2019, many Chinese editors) is
not UTF-8, which TOML must be: Python's "'utf-8' codec can't decode byte 0xc0" tells a
director nothing, "save it as UTF-8" does. An input method left in full-width punctuation
types “kiwi” or ＝ where TOML needs "kiwi" and =: the parser's "Invalid value (at line 2,
column 8)" gets the line and the characters to retype.

A file tally adds to (`tally day add`'s ``[[days]]`` table) is edited with tomlkit, which
keeps the director's comments and order: a text edit would have to re-implement TOML's
layout rules to do that.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tally.errors import GameFileError, InputError
from tally.files import SMALL, read_capped
from tally.i18n import N_, tr

# What an input method in full-width (全角) mode types instead of TOML's ASCII punctuation.
_FULL_WIDTH = {
    "“": '"', "”": '"', "„": '"', "＂": '"', "‘": "'", "’": "'", "＇": "'",
    "＝": "=", "［": "[", "］": "]", "｛": "{", "｝": "}", "，": ",", "＃": "#",
}  # fmt: skip
_AT_LINE = re.compile(r"at line (\d+)")
# How to save each file a director types as UTF-8, by what the caller calls it: a sentence
# each (the file's name is words of their own in Chinese, not glued into the sentence).
Kind = Literal["game file", "config file", "board profile file"]
_NOT_UTF8: dict[Kind, tuple[str, str]] = {
    "game file": (
        N_("{path} is not UTF-8 text (byte {byte} is not); save the game file as UTF-8."),
        N_("{path} is saved as GBK (a Chinese encoding), not UTF-8; save the game file as UTF-8 "
           "(Notepad: Save as, Encoding: UTF-8)."),
    ),
    "config file": (
        N_("{path} is not UTF-8 text (byte {byte} is not); save the config file as UTF-8."),
        N_("{path} is saved as GBK (a Chinese encoding), not UTF-8; save the config file as "
           "UTF-8 (Notepad: Save as, Encoding: UTF-8)."),
    ),
    "board profile file": (
        N_("{path} is not UTF-8 text (byte {byte} is not); save the board profile file as "
           "UTF-8."),
        N_("{path} is saved as GBK (a Chinese encoding), not UTF-8; save the board profile file "
           "as UTF-8 (Notepad: Save as, Encoding: UTF-8)."),
    ),
}  # fmt: skip

if TYPE_CHECKING:
    from tomlkit.items import Table


def read_text(path: Path, what: Kind, error: type[InputError] = InputError) -> str:
    """The file's text: UTF-8 (with or without Notepad's byte-order mark), or one sentence
    saying how to save it (``what`` names the file: "game file", "config file")."""
    raw = read_capped(path, what, SMALL, error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        not_utf8, gbk = _NOT_UTF8[what]
        try:
            raw.decode("gb18030")
        except UnicodeDecodeError:
            raise error(tr(not_utf8, path=path, byte=format(exc.start, ","))) from None
        raise error(tr(gbk, path=path)) from None


def parse(text: str, source: str, error: type[InputError] = InputError) -> dict[str, Any]:
    """The TOML text's tables; a mistake is one sentence naming ``source``, with the
    full-width punctuation to retype when the failing line holds some."""
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        said = str(exc)
        found = _AT_LINE.search(said)
        lines = text.removeprefix("\ufeff").splitlines()
        number = int(found.group(1)) if found else 0
        line = lines[number - 1] if 0 < number <= len(lines) else ""
        wide = sorted({c for c in line if c in _FULL_WIDTH}, key=line.index)
        if wide:
            swaps = tr(", ").join(tr("{typed} for {wanted}", typed=c, wanted=_FULL_WIDTH[c])
                                  for c in wide)  # fmt: skip
            raise error(tr("{source}, line {line}: {swaps}: an input method's full-width "
                           "punctuation, which TOML does not read; retype them with the keyboard "
                           "in half-width (半角) mode.", source=source, line=number,
                           swaps=swaps)) from None  # fmt: skip
        raise error(tr("{source}: not valid TOML ({said}).", source=source, said=said)) from None


def load(path: Path, what: Kind, error: type[InputError] = InputError) -> dict[str, Any]:
    """Read and parse a TOML file a director wrote."""
    return parse(read_text(path, what, error), str(path), error)


def appended(text: str, block: str) -> str:
    """The game file's text with ``block`` (one ``[[days]]`` table) after its last day,
    every other line as it was: the comments and blank lines that stood before what follows
    the days (a ``[[rulings]]``) stay before it; a file of Windows line ends keeps them."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError
    from tomlkit.items import AoT, Whitespace

    newline = "\r\n" if "\r\n" in text else "\n"
    try:
        doc = tomlkit.parse(text)
        new: Table = tomlkit.parse(block.replace("\n", newline))["days"][0]
    except TOMLKitError as exc:  # the loader read it; tomlkit should too
        raise GameFileError(tr("the game file cannot be edited ({said}).", said=exc)) from None
    days = doc.get("days")
    if days is None:
        doc.append("days", tomlkit.aot())
        days = doc["days"]
    if not isinstance(days, AoT):
        raise GameFileError(tr("the game file's days are not [[days]] tables; add the day by "
                               "hand."))  # fmt: skip
    if len(days):
        last: Table = days[-1]
        body = last.value.body
        tail: list[tuple[Any, Any]] = []
        while body and body[-1][0] is None:  # comments and blank lines after the last key
            tail.insert(0, body.pop())
        keys = [key.key if key is not None else None for key, _ in doc.body]
        follows = any(k is not None for k in keys[keys.index("days") + 1 :])
        mine, theirs = _trailing(tail, follows)
        body.extend(mine)
        if not mine or not isinstance(mine[-1][1], Whitespace):
            body.append((None, Whitespace(newline)))
        new.value.body.extend(theirs or [(None, Whitespace(newline))])
    days.append(new)
    return tomlkit.dumps(doc).rstrip("\r\n") + newline


def _trailing(tail: list[tuple[Any, Any]], follows: bool) -> tuple[list[Any], list[Any]]:
    """The comments and blank lines after the last day's keys, split into the day's own and
    those of what follows the days (a ``[[rulings]]``), which stay before it: tomlkit puts
    both in the last day's table. The comments after the last blank line are the next
    table's, as a comment right above a header is; those before it stay with the day they
    were written in (the placeholders day add wrote under it, a note on the day)."""
    from tomlkit.items import Whitespace

    if not follows:
        return tail, []
    blanks = [i for i, (_, item) in enumerate(tail) if isinstance(item, Whitespace)]
    cut = blanks[-1] if blanks else 0
    return tail[:cut], tail[cut:]
