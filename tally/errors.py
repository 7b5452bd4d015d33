"""One exception hierarchy for everything tally refuses to do.

Library code raises these; only the CLI catches them, prints the message as one
sentence on standard error and exits with the class's exit code (httpie style).
"""

from __future__ import annotations


class TallyError(Exception):
    """Base of every error tally reports to the director."""

    exit_code = 1


class InputError(TallyError):
    """Something the director gave us (an option, a URL, a file name) is wrong."""

    exit_code = 2


class GameFileError(InputError):
    """The game file is missing, not TOML, or breaks the contract."""


class FetchError(TallyError):
    """The forum could not be reached or answered with an HTTP error."""

    exit_code = 3


class NotAThreadError(TallyError):
    """A forum page, but not a readable thread: missing, login, permission, a challenge."""

    exit_code = 4


class ParseError(TallyError):
    """A page looks like a thread but something essential could not be read."""

    exit_code = 5


class TruncatedPageError(ParseError):
    """A page ended before the forum finished rendering it."""


class PageMismatchError(ParseError):
    """The forum answered with another page than the one asked for (past the end)."""


class OutputError(TallyError):
    """A result could not be written."""

    exit_code = 6
