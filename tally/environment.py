"""What a run of tally takes from the world, in one place: the clocks, how to wait, the
streams, whether a person is watching, the limits of talking to a forum, the folders tally
keeps its files in (the config folder, the page cache) and the process's variables.

The command builds the real one; tests hand in their own (a fixed clock, no politeness
delay, folders of their own) through ``CliRunner.invoke(app, args, obj=Environment(...))``,
and a program that embeds the library passes one to the commands (``tally.commands``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from tally import __version__
from tally.errors import InputError

# How tally names itself to a forum (its User-Agent).
USER_AGENT = f"tally/{__version__} (forum werewolf vote counter)"


@dataclass(frozen=True)
class HttpOptions:
    timeout: float = 30.0  # connect, and each read
    # The most one request may take in all, however the forum trickles its answer.
    deadline: float = 120.0
    # The most one page may take, its retries and the waits between them included (an
    # endless trickle used to take attempts × deadline).
    total_deadline: float = 180.0
    # Forums throttle guests hard at closing time: never more than this at once per host.
    max_in_flight: int = 4
    # Seconds between the starts of two requests to one host.
    host_delay: float = 0.025
    attempts: int = 4
    backoff: float = 0.5
    # A Retry-After longer than this aborts: the director would rather know now.
    retry_after_ceiling: float = 120.0
    max_bytes: int = 16 * 2**20  # on the wire
    max_decoded: int = 64 * 2**20  # after gzip/deflate
    user_agent: str = USER_AGENT
    respect_robots: bool = True


def system_clock() -> datetime:
    return datetime.now(UTC)


def _http_defaults() -> HttpOptions:
    return HttpOptions()


def config_folder(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """The platform's folder for tally's settings (config.toml, boards.toml). Found by hand
    rather than with platformdirs: three lines of rules."""
    environ = os.environ if environ is None else environ
    if platform == "win32":
        base = environ.get("APPDATA")
        return (Path(base) if base else Path.home() / "AppData" / "Roaming") / "tally"
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "tally"
    xdg = environ.get("XDG_CONFIG_HOME", "")
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".config") / "tally"


def config_file(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """The config file: the one ``TALLY_CONFIG`` names, else config.toml in the folder."""
    environ = os.environ if environ is None else environ
    named = environ.get("TALLY_CONFIG", "")
    if named:
        path = home_expanded(named)
        if path is None:
            # In English: tally.i18n reads the process's variables through this module, which
            # so stands below the catalogs (tally.files.user_path says it in the run's language).
            raise InputError(f"TALLY_CONFIG: {named!r} starts with the home folder of "
                             f"{home_user(named)}, and there is no such user here.")  # fmt: skip
        return path
    return config_folder(environ, platform) / "config.toml"


def home_expanded(value: str | Path) -> Path | None:
    """``value`` with ``~`` and ``~user`` made the home folder; None when there is no such
    user (Python raises RuntimeError)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        return None


def home_user(value: str | Path) -> str:
    """The ``~user`` a path starts with."""
    return str(value).split("/", 1)[0].split("\\", 1)[0]


def cache_folder(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """``$XDG_CACHE_HOME/tally`` on Linux, and the platform's convention elsewhere."""
    environ = os.environ if environ is None else environ
    if platform == "win32":
        base = Path(environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "tally" / "Cache"
    if platform == "darwin":
        return Path.home() / "Library" / "Caches" / "tally"
    xdg = environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache") / "tally"


@dataclass(frozen=True)
class Environment:
    # What time it is now, as an aware datetime.
    clock: Callable[[], datetime] = system_clock
    # A clock that never goes back, in seconds: the gaps between requests, a request's
    # deadline. Tests pass one that moves with their ``clock`` and ``sleep``.
    monotonic: Callable[[], float] = time.monotonic
    # How to reach forums: limits, politeness delay, retries.
    http: HttpOptions = field(default_factory=_http_defaults)
    # The streams; None: sys.stdout / sys.stderr as they are when used.
    stdout: TextIO | None = None
    stderr: TextIO | None = None
    # Whether a person watches standard error (a progress bar); None: ask the stream.
    terminal: bool | None = None
    # Whether standard output is a screen a person watches (tally watch redraws it in
    # place; otherwise it prints a JSON line per poll); None: ask the stream.
    screen: bool | None = None
    # How to wait (between polls, before a retry, between two requests to one host); tests
    # pass one that moves their clock at once.
    sleep: Callable[[float], None] = time.sleep
    # The folders tally keeps its files in: config.toml and boards.toml, and the pages
    # cached between runs; None: the platform's, found from ``environ``.
    config_dir: Path | None = None
    cache_dir: Path | None = None
    # The process's variables (TALLY_CONFIG, NO_COLOR, the platform's folders): read here,
    # nowhere else in tally.
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def config_folder(self) -> Path:
        return self.config_dir if self.config_dir is not None else config_folder(self.environ)

    def config_file(self) -> Path:
        """``TALLY_CONFIG``, when it names one, else config.toml in the config folder."""
        if self.environ.get("TALLY_CONFIG") or self.config_dir is None:
            return config_file(self.environ)
        return self.config_dir / "config.toml"

    def cache_folder(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else cache_folder(self.environ)

    def now(self) -> datetime:
        return self.clock()

    @property
    def out(self) -> TextIO:
        return self.stdout or sys.stdout

    @property
    def err(self) -> TextIO:
        return self.stderr or sys.stderr

    @property
    def interactive(self) -> bool:
        if self.terminal is not None:
            return self.terminal
        return bool(getattr(self.err, "isatty", lambda: False)())

    @property
    def on_screen(self) -> bool:
        if self.screen is not None:
            return self.screen
        return bool(getattr(self.out, "isatty", lambda: False)())
