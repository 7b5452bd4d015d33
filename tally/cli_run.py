"""What every command of `tally` shares: its environment, what it shows, how it reads the
forum. The options of the commands that read a forum are declared once, here (``fetching``),
and tally's own errors become one sentence and an exit code (``reported``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from tally import __version__
from tally.environment import Environment
from tally.errors import TallyError
from tally.outputs.terminal import Terminal

if TYPE_CHECKING:
    from tally.workflows import Reading

GameFile = Annotated[Path, typer.Option("--game", help="The game file.")]
VoteDay = Annotated[
    int | None,
    typer.Option("--day", help="The day; by default the day whose vote thread it is."),
]
AsJson = Annotated[
    bool, typer.Option("--json", help="Print JSON (see README, JSON) instead of the table.")
]


class Markup(StrEnum):
    BBCODE = "bbcode"
    TEXT = "text"


class Kind(StrEnum):
    CLOSE = "close"
    MORNING = "morning"
    ELEVATOR = "elevator"
    REMINDER = "reminder"


# Choices are checked by the parser, before anything is read from a forum.
Format = Annotated[
    Markup | None,
    typer.Option(
        "--format", help="bbcode (Discuz!) or text (Tieba); by default, what the game's forum uses."
    ),
]
KindOption = Annotated[
    Kind,
    typer.Option(
        "--kind", help="close (the day's result), morning (A1), elevator (A2) or reminder (催票)."
    ),
]

ShowRules = Annotated[
    bool,
    typer.Option(
        "--show-rules",
        help="Print the rule ids (C5, L1) in the post; the players' post leaves them out.",
    ),
]
ArchiveFile = Annotated[
    Path | None,
    typer.Option(
        "--archive",
        help="Take the game's threads from this archive (tally archive's CSV or SQLite "
        "file), not from the forum.",
    ),
]
Partial = Annotated[
    bool,
    typer.Option(
        "--partial",
        help="Saved pages: write what they hold when pages or 楼中楼 are missing, "
        "and list what is missing.",
    ),
]
Provisional = Annotated[
    bool,
    typer.Option(
        "--provisional", help="Before the close: a mid-day standing (暂计) instead of a refusal."
    ),
]

# The options of every command that reads a forum, declared once (see ``fetching``).
_FETCH_OPTIONS = {
    "quiet": (bool, typer.Option("--quiet", "-q", help="No progress bar, no page summary.")),
    "fresh": (bool, typer.Option("--fresh", help="Ignore cached pages: fetch every page again.")),
    "cache_dir": (
        Path | None,
        typer.Option(
            "--cache-dir",
            help="Where pages are kept between runs [default: $XDG_CACHE_HOME/tally].",
        ),
    ),
    "cookies": (
        Path | None,
        typer.Option(
            "--cookies", help="A Netscape cookie file (browser export) for boards closed to guests."
        ),
    ),
}


@dataclass(frozen=True)
class Run:
    """What a command gets besides its own options: the environment, what to show, how to
    read the forum."""

    env: Environment
    show: Terminal
    how: Reading


@contextmanager
def reported(show: Terminal) -> Iterator[None]:
    """Turn tally's own errors into one sentence and an exit code."""
    try:
        yield
    except TallyError as exc:
        show.error(str(exc))
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        show.error("interrupted; nothing was written.")
        raise typer.Exit(130) from None


def fetching(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` the options of every command that reads a forum (declared once in
    ``_FETCH_OPTIONS``); it receives them, with its environment, as ``run``."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values()]
    extra = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[kind, option],
            default=False if kind is bool else None,
        )
        for name, (kind, option) in _FETCH_OPTIONS.items()
    ]
    context = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )

    @functools.wraps(command)
    def wrapper(ctx: typer.Context, *args: Any, **kwargs: Any) -> None:
        from tally.workflows import Reading

        fetch = {name: kwargs.pop(name) for name in _FETCH_OPTIONS}
        env = environment(ctx)
        show = Terminal(env, quiet=fetch["quiet"])
        with reported(show), show.progress() as progress:
            how = Reading(
                fresh=fetch["fresh"],
                cookies=fetch["cookies"],
                cache_dir=fetch["cache_dir"],
                progress=progress,
                warn=show.warn,
                thread_read=show.thread_read,
            )
            command(*args, run=Run(env, show, how), **kwargs)

    kept = [p for p in own if p.name != "run"]
    wrapper.__signature__ = inspect.Signature([context, *kept, *extra])  # type: ignore[attr-defined]
    return wrapper


def environment(ctx: typer.Context) -> Environment:
    """The environment a test or a program handed in (``obj=``), or the real one."""
    return ctx.obj if isinstance(ctx.obj, Environment) else Environment()


try:  # typer vendors click from 0.2x on; before, click is a package of its own
    from typer._click import exceptions as _clicks
except ImportError:  # pragma: no cover - an older typer
    from click import exceptions as _clicks  # type: ignore[no-redef, import-not-found, unused-ignore]


class OneSentence(TyperGroup):
    """The command group, with option and argument mistakes reported like every other
    mistake: one sentence on standard error, exit 2 (not click's usage box)."""

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        import sys

        help_only = getattr(_clicks, "NoArgsIsHelpError", ())
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except help_only as exc:
            typer.echo(exc.ctx.get_help())
            code = 0
        except _clicks.ClickException as exc:
            context = getattr(exc, "ctx", None)
            where = context.command_path if context is not None else "tally"
            # typer 0.2x words a bad choice "Value error, 'x' is not one of …".
            message = exc.format_message().strip().rstrip(".").replace("Value error, ", "")
            message = message[:1].lower() + message[1:]
            typer.echo(f"tally: {message}; see `{where} --help`.", err=True)
            code = exc.exit_code
        except typer.Abort:
            typer.echo("tally: interrupted; nothing was written.", err=True)
            code = 130
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code


def root(
    version: Annotated[
        bool, typer.Option("--version", help="Print tally's version and exit.", is_eager=True)
    ] = False,
) -> None:
    """Count votes, check lurkers and write announcements for forum werewolf games (版杀)."""
    if version:
        typer.echo(f"tally {__version__}")
        raise typer.Exit()
