"""What a director sets once instead of on every command: the config file, a game file's own
settings, and the command line, merged (the command line first, then the game file, then the
config file, then tally's own default) with where each value came from (`tally config`).

The config file is TOML, written by hand, in the platform's folder for settings:
``$XDG_CONFIG_HOME/tally/config.toml`` (``~/.config/tally/config.toml``) on Linux,
``~/Library/Application Support/tally/config.toml`` on macOS, ``%APPDATA%\\tally\\config.toml``
on Windows; ``TALLY_CONFIG`` names another. Found by hand rather than with platformdirs: three
lines of rules, and the same folder holds boards.toml.

The one exception to "the command line first" is the time zone: a game file's ``timezone``
is the game's clock (RULES S2), which no option changes; ``--timezone`` and the config's are
the clock where no game file names one.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tally.environment import Environment, config_file
from tally.errors import InputError
from tally.files import user_path
from tally.i18n import DEFAULT as DEFAULT_LANGUAGE
from tally.i18n import Choice, choose, word

DEFAULT_ZONE = "Asia/Shanghai"
COMMAND_LINE = "command line"
BUILT_IN = "tally's default"


class SettingType(StrEnum):
    """What a setting's value is."""

    FOLDER = "folder"
    FILE = "file"
    ZONE = "zone"
    FLAG = "flag"
    SECONDS = "seconds"


@dataclass(frozen=True)
class Key:
    """A setting: its name (the key in either file, the option's parameter), what its value
    is, what it is for, and the option that gives it on the command line ("" for none)."""

    name: str
    kind: SettingType
    help: str
    option: str
    default: Any = None
    unset: str = ""  # what tally does when nothing sets it (and the default is None)


KEYS: tuple[Key, ...] = (
    Key("template_dir", SettingType.FOLDER,
        "your announcement templates; a missing one is the built-in", "--template-dir",
        unset="the built-in templates"),
    Key("cookies", SettingType.FILE, "a Netscape cookies.txt exported from a logged-in browser",
        "--cookies", unset="none: tally reads as a guest"),
    Key("boards", SettingType.FILE, "board profiles for themes tally cannot read alone", "--boards",
        unset="boards.toml beside the config file when there, and the built-in profiles"),
    Key("cache_dir", SettingType.FOLDER, "where pages are kept between runs", "--cache-dir",
        unset="the platform's cache folder"),
    Key("timezone", SettingType.ZONE, "the forum's clock where the game file names none",
        "--timezone", DEFAULT_ZONE),
    Key("color", SettingType.FLAG, "colour on the terminal (NO_COLOR in the environment: none)",
        "--color/--no-color", unset="colour on a terminal"),
    Key("politeness", SettingType.SECONDS, "seconds between two requests to one forum", "", 0.025),
)  # fmt: skip
BY_NAME = {k.name: k for k in KEYS}
NAMES = frozenset(BY_NAME)
# The director's own, not a game's: only the config file sets it (``tally.i18n`` reads it).
LANGUAGE = "language"


@dataclass(frozen=True)
class Setting:
    key: Key
    value: Any
    source: str  # COMMAND_LINE, "game file PATH", "config file PATH", "NO_COLOR", BUILT_IN


@dataclass(frozen=True)
class Settings:
    """Every setting's value and where it came from; the config file looked for."""

    values: Mapping[str, Setting]
    config: Path
    config_found: bool
    language: Choice = DEFAULT_LANGUAGE  # the language tally speaks, and what chose it

    def __getitem__(self, name: str) -> Any:
        return self.values[name].value

    def given(self, name: str) -> bool:
        """Whether anything set ``name`` (else tally's default holds)."""
        return self.values[name].source != BUILT_IN

    @property
    def warnings(self) -> tuple[str, ...]:
        return ()


def check(table: Mapping[str, Any], source: str, base: Path) -> dict[str, Any]:
    """The settings of a file's table (keys it does not hold are left out), checked; paths
    read from the file's own folder (``base``) and ``~`` as the home folder."""
    return {name: _value(BY_NAME[name], table[name], source, base)
            for name in BY_NAME if name in table}  # fmt: skip


def _value(key: Key, value: Any, source: str, base: Path) -> Any:
    def fail(problem: str) -> InputError:
        return InputError(f"{source}, key {key.name!r}: {problem}.")

    if key.kind in (SettingType.FOLDER, SettingType.FILE):
        if not isinstance(value, str) or not value.strip():
            raise fail(f"must be the path of a {key.kind}, in quotes")
        return base / user_path(value.strip(), f"{source}, key {key.name!r}")
    if key.kind is SettingType.ZONE:
        if not isinstance(value, str):
            raise fail("must be a time zone name like Asia/Shanghai, in quotes")
        try:
            ZoneInfo(value.strip())
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise fail(f"{value[:40]!r} is not a time zone name like Asia/Shanghai") from None
        return value.strip()
    if key.kind is SettingType.FLAG:
        if not isinstance(value, bool):
            raise fail("must be true or false (no quotes)")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise fail("must be a number of seconds")
    if not 0 <= value <= 60:
        raise fail(f"{value} is not between 0 and 60 seconds")
    return float(value)


def load_config(path: Path) -> dict[str, Any]:
    """The config file's settings ({} when there is none); a key it does not know, or a
    value of the wrong kind, is one sentence naming the file and the key."""
    from tally import tomlfile

    if not path.exists():
        return {}
    data = tomlfile.load(path, "config file")
    for name in data:
        if name not in BY_NAME and name != LANGUAGE:
            known = [*BY_NAME, LANGUAGE]
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(
                f"{path}, key {name!r}: is not a setting tally knows{hint}; it knows "
                f"{', '.join(known)}."
            )
    if LANGUAGE in data:
        checked = check(data, f"config file {path}", path.parent)
        checked[LANGUAGE] = word(data[LANGUAGE], f"config file {path}, key {LANGUAGE!r}")
        return checked
    return check(data, f"config file {path}", path.parent)


def merge(
    command_line: Mapping[str, Any],
    game: Mapping[str, Any] | None = None,
    game_source: str = "game file",
    *,
    config: tuple[Path, Mapping[str, Any]] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Every setting: the command line's (values not None), else the game file's, else the
    config file's (``config``: its path and settings, else read now), else tally's default
    (the game file's time zone before all)."""
    game = game or {}
    if config is None:
        found = config_file(environ)
        config = found, load_config(found)
    path, config_values = config
    config_source = f"config file {path}"
    values: dict[str, Setting] = {}
    for key in KEYS:
        layers = [
            (command_line.get(key.name), COMMAND_LINE),
            (game.get(key.name), game_source),
            (config_values.get(key.name), config_source),
        ]
        if key.name == "timezone":  # the game's clock is the game's (S2)
            layers.insert(0, layers.pop(1))
        if key.name == "color" and environ is not None and environ.get("NO_COLOR"):
            layers.append((False, "NO_COLOR"))  # https://no-color.org: below what is written
        value, source = next(((v, s) for v, s in layers if v is not None),
                             (key.default, BUILT_IN))  # fmt: skip
        values[key.name] = Setting(key, value, source)
    for name in ("template_dir", "cookies", "boards"):
        chosen = values[name]
        if chosen.source not in (BUILT_IN, COMMAND_LINE) and not chosen.value.exists():
            # Named in a file the director may have forgotten: say which one.
            raise InputError(f"{chosen.value} ({name} in the {chosen.source}) does not exist.")
    said = config_values.get(LANGUAGE)
    language = choose(Environment().environ if environ is None else environ,
                      (said, config_source) if said is not None else None)  # fmt: skip
    return Settings(values, path, path.exists(), language)
