"""One exception hierarchy for everything tally refuses to do, and the exit status of each.

Library code raises these; only the CLI catches them, prints the message as one
sentence on standard error and exits with the class's status (httpie's status.py).
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What ``tally`` exits with (README, *Errors*)."""

    OK = 0
    ERROR = 1  # any other error tally reports
    BAD_INPUT = 2  # a URL, an option, the game file
    FETCH = 3  # the forum could not be reached or answered an HTTP error
    NOT_A_THREAD = 4  # missing, login or permission required, anti-scraping check
    UNREADABLE = 5  # a page that looks like a thread but cannot be read
    OUTPUT = 6  # the output could not be written
    NOT_POSTED = 7  # --post: the forum refused the post, or tally's checks stopped it
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)


class TallyError(Exception):
    """Base of every error tally reports to the director."""

    exit_code = ExitStatus.ERROR


class InputError(TallyError):
    """Something the director gave us (an option, a URL, a file name) is wrong."""

    exit_code = ExitStatus.BAD_INPUT


class GameFileError(InputError):
    """The game file is missing, not TOML, or breaks the contract."""


class FetchError(TallyError):
    """The forum could not be reached or answered with an HTTP error."""

    exit_code = ExitStatus.FETCH
    # The failure alone, where the sentence goes on to advise what to do (add --offline):
    # what a caller that cannot take the advice says (a post's read back).
    failure: str | None = None


class NotAThreadError(TallyError):
    """A forum page, but not a readable thread: missing, login, permission, a challenge."""

    exit_code = ExitStatus.NOT_A_THREAD


class ThreadGoneError(NotAThreadError):
    """The forum says the thread does not exist (deleted, or merged into another: 合并)."""


class ParseError(TallyError):
    """A page looks like a thread but something essential could not be read."""

    exit_code = ExitStatus.UNREADABLE


class TruncatedPageError(ParseError):
    """A page ended before the forum finished rendering it."""


class PageMismatchError(ParseError):
    """The forum answered with another page than the one asked for (past the end)."""


class ApiUnavailable(TallyError):
    """The forum's API does not serve this thread: read its HTML pages instead."""

    exit_code = ExitStatus.FETCH


class ThreadOffApi(ApiUnavailable):
    """The forum's API serves the board, but cannot tell what this thread holds as the count
    needs it (a 点评's time counted back from the answer): this thread's HTML pages are read,
    the board's other threads still through the API."""


class OutputError(TallyError):
    """A result could not be written."""

    exit_code = ExitStatus.OUTPUT


class PostError(TallyError):
    """The post was not made: refused by the forum, or stopped by tally's own checks."""

    exit_code = ExitStatus.NOT_POSTED


class AlreadyPosted(PostError):
    """The thread already holds this post, by a director: nothing to post, nothing to keep."""


class MaybePosted(PostError):
    """The post was sent and the forum's answer never came or was not understood: the
    thread may hold it, so the director is told to look at the thread, never to paste it."""


class HeldPost(MaybePosted):
    """The forum took the post for a moderator to approve (回复需要审核): not shown yet, but
    it will be once approved, so it is never sent again (the journal keeps it open)."""


def clause(error: BaseException | str) -> str:
    """An error's sentence without its full stop (English's or Chinese's), to go on in a
    longer one."""
    return str(error).rstrip(".。")
