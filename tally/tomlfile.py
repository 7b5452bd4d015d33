"""TOML files a director types by hand (the game file, the config, board profiles), read
with the two mistakes a Chinese keyboard makes turned into what to do.

A file saved by an editor set to GBK (Windows Notepad before 2019, many Chinese editors) is
not UTF-8, which TOML must be: Python's "'utf-8' codec can't decode byte 0xc0" tells a
director nothing, "save it as UTF-8" does. An input method left in full-width punctuation
types “kiwi” or ＝ where TOML needs "kiwi" and =: the parser's "Invalid value (at line 2,
column 8)" gets the line and the characters to retype.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from tally.errors import InputError
from tally.files import SMALL, read_capped

# What an input method in full-width (全角) mode types instead of TOML's ASCII punctuation.
_FULL_WIDTH = {
    "“": '"', "”": '"', "„": '"', "＂": '"', "‘": "'", "’": "'", "＇": "'",
    "＝": "=", "［": "[", "］": "]", "｛": "{", "｝": "}", "，": ",", "＃": "#",
}  # fmt: skip
_AT_LINE = re.compile(r"at line (\d+)")


def read_text(path: Path, what: str, error: type[InputError] = InputError) -> str:
    """The file's text: UTF-8 (with or without Notepad's byte-order mark), or one sentence
    saying how to save it (``what`` names the file: "game file", "config file")."""
    raw = read_capped(path, what, SMALL, error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        try:
            raw.decode("gb18030")
        except UnicodeDecodeError:
            raise error(
                f"{path} is not UTF-8 text (byte {exc.start:,} is not); save the {what} as "
                "UTF-8."
            ) from None
        raise error(
            f"{path} is saved as GBK (a Chinese encoding), not UTF-8; save the {what} as UTF-8 "
            "(Notepad: Save as, Encoding: UTF-8)."
        ) from None


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
            swaps = ", ".join(f"{c} for {_FULL_WIDTH[c]}" for c in wide)
            raise error(
                f"{source}, line {number}: {swaps}: an input method's full-width punctuation, "
                "which TOML does not read; retype them with the keyboard in half-width (半角) "
                "mode."
            ) from None
        raise error(f"{source}: not valid TOML ({said}).") from None


def load(path: Path, what: str, error: type[InputError] = InputError) -> dict[str, Any]:
    """Read and parse a TOML file a director wrote."""
    return parse(read_text(path, what, error), str(path), error)
