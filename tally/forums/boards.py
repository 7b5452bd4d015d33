"""Boards: one site that runs a forum's software, and what it does differently, as data.

tally reads Discuz!'s own markup (the ids its scripts rely on) with fallbacks for what other
templates move (``tally.forums.discuz.post``). A board whose theme hides a field from all of
them gets a *profile*: CSS selectors tried first for each field, how many posts a page holds
(for a theme that prints no floor numbers), the zone its clock shows, the markup its posts
take. Profiles for the themes tally's tests hold are built in (``boards.toml`` beside this
module); a director adds their own in a file of the same form (``--boards FILE``, or
``~/.config/tally/boards.toml``), the way gallery-dl's config extends its sites. A profile is
chosen for a page by its host, else by text only its theme's pages hold (``marks``).

    [board.our-board]
    hosts = ["bbs.example.com"]
    posts_per_page = 20
    [board.our-board.selectors]
    author = ["div.usercard a.name"]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tally import tomlfile
from tally.errors import InputError
from tally.i18n import N_, tr
from tally.vocabulary import Markup

# What a profile may give selectors for. ``post`` finds the post nodes on the page; the
# others are read inside one post node, where ``{pid}`` stands for the post's id.
FIELDS = ("post", "floor", "author", "time", "body", "title")
# The fields read on the whole page, not inside one post: no {pid} there.
_PAGE_FIELDS = ("post", "title")
_KEYS = {
    "hosts", "marks", "selectors", "posts_per_page", "floor_names", "timezone", "markup", "about",
    "comment_pages", "api",
}


@dataclass(frozen=True)
class Board:
    name: str
    # Where the profile was declared: "built in", or the file's path.
    origin: str = N_("built in")  # a machine value too (discuz.post): translated where shown
    # Host names the profile is for ("bbs.example.com"; "*.example.com" for any sub-domain).
    hosts: tuple[str, ...] = ()
    # Text only this theme's pages hold (a class name): how a saved page, or a board the
    # profile names no host of, is recognised.
    marks: tuple[str, ...] = ()
    # CSS selectors per field (FIELDS), tried before tally's own.
    selectors: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # How many posts a page holds: floors are numbered from a post's place on its page when
    # the theme prints no floor numbers.
    posts_per_page: int | None = None
    # The names the board gives its first floors (Discuz!'s postno setting: "楼主", "沙发"…,
    # or its own words), floor 1 first: a label holding one of them is that floor.
    floor_names: Mapping[str, int] = field(default_factory=dict)
    # The zone the board's clock shows (an IANA name); None: the game's.
    timezone: str | None = None
    # What the board's posts render; None: the platform's.
    markup: Markup | None = None
    about: str = ""
    # The board's admin lets tally read the 点评 a floor holds past those its page shows,
    # from the script that serves them (Discuz!'s commentmore), which robots.txt closes.
    comment_pages: bool = False
    # Whether the board is read through its platform's interface for its own clients (True),
    # through its HTML pages (False), or as its answer to tally's probe says (None).
    api: bool | None = None

    def serves(self, host: str | None) -> bool:
        if not host:
            return False
        host = host.lower().split(":")[0]
        for pattern in self.hosts:
            if pattern.startswith("*."):
                if host == pattern[2:] or host.endswith(pattern[1:]):
                    return True
            elif host == pattern:
                return True
        return False

    def recognises(self, text: str) -> bool:
        return any(mark in text for mark in self.marks)

    @property
    def acts(self) -> bool:
        """Whether the profile changes how a page is read (not only names it)."""
        return bool(
            self.selectors or self.posts_per_page or self.floor_names or self.timezone
            or self.markup
        )

    def selectors_for(self, name: str) -> tuple[str, ...]:
        return self.selectors.get(name, ())

    @property
    def zone(self) -> ZoneInfo | None:
        return ZoneInfo(self.timezone) if self.timezone else None

    def over(self, below: Board) -> Board:
        """This profile, with what it leaves unsaid taken from ``below`` (a theme's)."""
        selectors = {
            name: self.selectors_for(name) + below.selectors_for(name)
            for name in FIELDS
            if self.selectors_for(name) or below.selectors_for(name)
        }
        return replace(
            self,
            name=f"{self.name} + {below.name}",
            marks=self.marks + below.marks,
            selectors=selectors,
            posts_per_page=self.posts_per_page or below.posts_per_page,
            floor_names=self.floor_names or below.floor_names,
            timezone=self.timezone or below.timezone,
            markup=self.markup or below.markup,
            about=self.about or below.about,
            comment_pages=self.comment_pages or below.comment_pages,
            api=self.api if self.api is not None else below.api,
        )


DEFAULT = Board("default", origin=N_("tally's own selectors"), about="Discuz!'s default templates")


class Boards:
    """The profiles of a run: the director's first, then the built-in ones."""

    def __init__(self, boards: Sequence[Board] = ()):
        self.boards = tuple(boards)
        self.names_hosts = any(b.hosts for b in self.boards)
        # Profiles recognised by marks that change how a page is read; the others (the
        # built-in themes that tally's own fallbacks read) only name the theme.
        self._acting = tuple(b for b in self.boards if b.marks and b.acts)

    def choose(
        self, host: str | None, text: str | Callable[[], str], *, naming: bool = False
    ) -> Board:
        """The profile for a page of ``host`` holding ``text``: one named for the host
        (over a theme recognised in the text), else the theme's, else tally's own. Only a
        theme's profile that changes the reading is looked for, unless ``naming`` (doctor):
        reading a default-template page costs no search through its text."""
        by_host = next((b for b in self.boards if b.serves(host)), None)
        themes = self.boards if naming else self._acting
        by_mark = None
        if themes:
            seen = text() if callable(text) else text
            by_mark = next((b for b in themes if b is not by_host and b.recognises(seen)), None)
        if by_host is not None and by_mark is not None:
            return by_host.over(by_mark)
        return by_host or by_mark or DEFAULT

    def for_host(self, host: str | None) -> Board | None:
        return next((b for b in self.boards if b.serves(host)), None)

    def __iter__(self) -> Iterator[Board]:
        return iter(self.boards)


def user_boards_file(folder: Path | None = None) -> Path:
    """Where a director's own profiles live when no --boards is given: beside the config
    file, in ``folder`` (``~/.config/tally/boards.toml`` on Linux, where none is given)."""
    from tally.environment import config_folder

    return (folder if folder is not None else config_folder()) / "boards.toml"


def load_boards(path: Path | None = None, *, folder: Path | None = None) -> Boards:
    """The built-in profiles, after the director's (``path``, or the user's file in the
    config ``folder`` when it exists). A profile that cannot be used is an error naming the
    file and the key."""
    own: list[Board] = []
    source = path if path is not None else user_boards_file(folder)
    if path is not None and not path.exists():
        raise InputError(tr("no such board profile file: {path}.", path=path))
    if path is not None or source.is_file():  # a FIFO or a folder given: said by the read
        own = parse_boards(tomlfile.read_text(source, "board profile file"), str(source))
    return Boards([*own, *built_in()])


@functools.cache
def built_in() -> tuple[Board, ...]:
    text = resources.files("tally.forums").joinpath("boards.toml").read_text(encoding="utf-8")
    return tuple(parse_boards(text, N_("built in")))


def parse_boards(text: str, origin: str) -> list[Board]:
    """Profiles from a TOML text; ``origin`` names it in messages."""
    data = tomlfile.parse(text, origin)
    unknown = set(data) - {"board"}
    if unknown:
        raise InputError(
            tr("{where}: {key} is not a section of a board profile file; each profile is a "
               "[board.NAME] table.", where=origin, key=repr(sorted(unknown)[0]))
        )
    tables = data.get("board", {})
    if not isinstance(tables, dict):
        raise InputError(tr("{where}: 'board' must hold [board.NAME] tables.", where=origin))
    return [_board(name, table, origin) for name, table in tables.items()]


def _board(name: str, table: Any, origin: str) -> Board:
    where = f"{origin}, [board.{name}]"
    if not isinstance(table, dict):
        raise InputError(tr("{where} must be a table.", where=where))
    unknown = set(table) - _KEYS
    if unknown:
        raise InputError(
            tr("{where}: {key} is not a key of a board profile (keys: {keys}).", where=where,
               key=repr(sorted(unknown)[0]), keys=", ".join(sorted(_KEYS)))
        )
    hosts = _strings(table.get("hosts", []), f"{where} hosts")
    marks = _strings(table.get("marks", []), f"{where} marks")
    if not hosts and not marks:
        raise InputError(
            tr("{where} names no hosts and no marks, so no page would use it.", where=where)
        )
    selectors = _selectors(table, where)
    per_page = table.get("posts_per_page")
    if per_page is not None and (
        isinstance(per_page, bool) or not isinstance(per_page, int) or not 1 <= per_page <= 1000
    ):
        raise InputError(
            tr("{where}: posts_per_page must be a whole number from 1 to 1000.", where=where)
        )
    floor_names = _floor_names(table, where)
    zone = table.get("timezone")
    if zone is not None:
        try:
            ZoneInfo(str(zone))
        except (ZoneInfoNotFoundError, ValueError):
            raise InputError(
                tr("{where}: {zone} is not a time zone (e.g. Asia/Shanghai).", where=where,
                   zone=repr(zone))
            ) from None
    markup = table.get("markup")
    if markup is not None and markup not in set(Markup):
        raise InputError(
            tr("{where}: markup must be one of {choices}.", where=where,
               choices=", ".join(Markup))
        )
    comment_pages = table.get("comment_pages", False)
    if not isinstance(comment_pages, bool):
        raise InputError(tr("{where}: comment_pages must be true or false.", where=where))
    api = table.get("api")
    if api is not None and not isinstance(api, bool):
        raise InputError(tr("{where}: api must be true or false.", where=where))
    return Board(
        name=name,
        origin=origin,
        hosts=tuple(h.lower() for h in hosts),
        marks=marks,
        selectors=selectors,
        posts_per_page=per_page,
        floor_names=floor_names,
        timezone=zone,
        markup=Markup(markup) if markup is not None else None,
        about=str(table.get("about", "")),
        comment_pages=comment_pages,
        api=api,
    )


def _selectors(table: dict[str, Any], where: str) -> dict[str, tuple[str, ...]]:
    """A profile's selectors per field, each one lexbor can use and {pid} only where a
    post's id stands for it."""
    selectors = table.get("selectors", {})
    if not isinstance(selectors, dict):
        raise InputError(
            tr("{where}: selectors must be a table of field = [selectors].", where=where)
        )
    chosen: dict[str, tuple[str, ...]] = {}
    for key, value in selectors.items():
        if key not in FIELDS:
            raise InputError(
                tr("{where}: {key} is not a field tally reads (fields: {fields}).", where=where,
                   key=repr(key), fields=", ".join(FIELDS))
            )
        found = _strings(value, f"{where} selectors.{key}")
        for selector in found:
            if "{pid}" in selector and key in _PAGE_FIELDS:
                raise InputError(
                    tr("{where} selectors.{key}: {selector} holds {pid}, which stands for a "
                       "post's id only in a field read inside a post; {key} is read on the "
                       "whole page.", where=where, key=key, selector=repr(selector),
                       pid="{pid}")
                )
            _check_selector(selector, f"{where} selectors.{key}")
        chosen[key] = found
    return chosen


def _floor_names(table: dict[str, Any], where: str) -> dict[str, int]:
    """A profile's names for its first floors, each with its floor (floor 1 first)."""
    names = _strings(table.get("floor_names", []), f"{where} floor_names")
    if len(set(names)) < len(names):
        raise InputError(tr("{where}: floor_names names a floor twice.", where=where))
    if any(n[0].isdigit() for n in names):
        raise InputError(
            tr("{where}: floor_names are words; a label with a number is read as it.",
               where=where)
        )
    return {name: floor for floor, name in enumerate(names, start=1)}


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(tr("{where} must be a list of non-empty strings.", where=where))
    return tuple(v.strip() for v in value)


def selected(board: Board, name: str, node: Any, selector: str) -> Any:
    """``node.css_first(selector)``, a selector of ``board``'s field ``name`` as used: one
    lexbor cannot parse is one sentence naming the profile and the field."""
    from selectolax.lexbor import SelectolaxError

    try:
        return node.css_first(selector)
    except SelectolaxError:
        where = f"{board.origin}, [board.{board.name}] selectors.{name}"
        raise InputError(
            tr("{where}: {selector} is not a CSS selector tally can use.", where=where,
               selector=repr(selector))
        ) from None


def _check_selector(selector: str, where: str) -> None:
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    # A post's id is digits: the selector is tried with the shortest and a long one.
    try:
        for pid in ("1", "123456789012"):
            LexborHTMLParser("<p></p>").css_first(selector.replace("{pid}", pid))
    except SelectolaxError:
        raise InputError(
            tr("{where}: {selector} is not a CSS selector tally can use.", where=where,
               selector=repr(selector))
        ) from None
