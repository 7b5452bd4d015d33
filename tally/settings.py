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
from tally.i18n import N_, Choice, choose, tr, word

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
    # What tally does when nothing sets it (and the default is None), as the catalog has it.
    unset_words: str = ""

    @property
    def unset(self) -> str:
        """What tally does when nothing sets it, in the run's language (`tally config`)."""
        return tr(self.unset_words)


KEYS: tuple[Key, ...] = (
    Key("template_dir", SettingType.FOLDER,
        N_("your announcement templates; a missing one is the built-in"), "--template-dir",
        unset_words=N_("the built-in templates")),
    Key("cookies", SettingType.FILE, N_("a Netscape cookies.txt exported from a logged-in browser"),
        "--cookies", unset_words=N_("none: tally reads as a guest")),
    Key("boards", SettingType.FILE, N_("board profiles for themes tally cannot read alone"),
        "--boards",
        unset_words=N_("boards.toml beside the config file when there, and the built-in profiles")),
    Key("cache_dir", SettingType.FOLDER, N_("where pages are kept between runs"), "--cache-dir",
        unset_words=N_("the platform's cache folder")),
    Key("timezone", SettingType.ZONE, N_("the forum's clock where the game file names none"),
        "--timezone", DEFAULT_ZONE),
    Key("color", SettingType.FLAG, N_("colour on the terminal (NO_COLOR in the environment: none)"),
        "--color/--no-color", unset_words=N_("colour on a terminal")),
    Key("politeness", SettingType.SECONDS, N_("seconds between two requests to one forum"), "",
        0.025),
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


def said_source(source: str) -> str:
    """Where a setting came from (``Setting.source``, named in English as the JSON keeps it),
    in the run's language."""
    for prefix, words in (("config file ", N_("config file {path}")),
                          ("game file ", N_("game file {path}"))):  # fmt: skip
        if source.startswith(prefix):
            return tr(words, path=source.removeprefix(prefix))
    named = {COMMAND_LINE: N_("command line"), BUILT_IN: N_("tally's default")}
    return tr(named.get(source, source))


def check(table: Mapping[str, Any], source: str, base: Path) -> dict[str, Any]:
    """The settings of a file's table (keys it does not hold are left out), checked; paths
    read from the file's own folder (``base``) and ``~`` as the home folder."""
    return {name: _value(BY_NAME[name], table[name], source, base)
            for name in BY_NAME if name in table}  # fmt: skip


def _value(key: Key, value: Any, source: str, base: Path) -> Any:
    def fail(sentence: str, **fields: Any) -> InputError:
        return InputError(tr(sentence, source=source, key=key.name, **fields))

    if key.kind in (SettingType.FOLDER, SettingType.FILE):
        if not isinstance(value, str) or not value.strip():
            if key.kind is SettingType.FOLDER:
                raise fail(N_("{source}, key {key!r}: must be the path of a folder, in quotes."))
            raise fail(N_("{source}, key {key!r}: must be the path of a file, in quotes."))
        where = tr("{source}, key {key!r}", source=source, key=key.name)
        return base / user_path(value.strip(), where)
    if key.kind is SettingType.ZONE:
        if not isinstance(value, str):
            raise fail(N_("{source}, key {key!r}: must be a time zone name like Asia/Shanghai, "
                       "in quotes."))  # fmt: skip
        try:
            ZoneInfo(value.strip())
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise fail(N_("{source}, key {key!r}: {value!r} is not a time zone name like "
                       "Asia/Shanghai."), value=value[:40]) from None  # fmt: skip
        return value.strip()
    if key.kind is SettingType.FLAG:
        if not isinstance(value, bool):
            raise fail(N_("{source}, key {key!r}: must be true or false (no quotes)."))
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise fail(N_("{source}, key {key!r}: must be a number of seconds."))
    if not 0 <= value <= 60:
        raise fail(N_("{source}, key {key!r}: {value} is not between 0 and 60 seconds."),
                   value=value)
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
            if close:
                raise InputError(tr("{path}, key {key!r}: is not a setting tally knows (did you "
                                    "mean {near!r}?); it knows {known}.", path=path, key=name,
                                    near=close[0], known=tr(", ").join(known)))  # fmt: skip
            raise InputError(tr("{path}, key {key!r}: is not a setting tally knows; it knows "
                                "{known}.", path=path, key=name,
                                known=tr(", ").join(known)))  # fmt: skip
    # Said in errors only: the settings' sources (`tally config`) are named as they are.
    source = tr("config file {path}", path=path)
    if LANGUAGE in data:
        checked = check(data, source, path.parent)
        where = tr("{source}, key {key!r}", source=source, key=LANGUAGE)
        checked[LANGUAGE] = word(data[LANGUAGE], where)
        return checked
    return check(data, source, path.parent)


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
            raise InputError(tr("{path} ({name} in the {source}) does not exist.",
                                path=chosen.value, name=name, source=said_source(chosen.source)))
    said = config_values.get(LANGUAGE)
    language = choose(Environment().environ if environ is None else environ,
                      (said, config_source) if said is not None else None)  # fmt: skip
    return Settings(values, path, path.exists(), language)
