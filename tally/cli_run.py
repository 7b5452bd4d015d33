"""How a row of ``tally.cli`` becomes a command: its options built from the one table, the
run it makes (the environment, the game, the terminal with its sink chosen once, one
reader), the library function it calls and the result it hands to the terminal; tally's own
errors as one sentence and an exit status."""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from tally.environment import Environment
from tally.errors import ExitStatus, TallyError
from tally.outputs.terminal import Terminal

REQUIRED = inspect.Parameter.empty
# The options that say how the run reads forums (``Reading``), not what a command does.
READING = ("fresh", "cookies", "cache_dir", "archive", "partial")


@dataclass(frozen=True)
class Opt:
    """An option or argument (no flags): what fills the parameter ``to`` (or its own name)."""

    flags: tuple[str, ...]
    kind: Any
    help: str
    default: Any = None
    to: str = ""
    more: dict[str, Any] = field(default_factory=dict)  # min=, metavar=, is_eager=, …

    def info(self) -> Any:
        if not self.flags:
            return typer.Argument(help=self.help, show_default=False, **self.more)
        return typer.Option(*self.flags, help=self.help, **self.more)


@dataclass(frozen=True)
class Command:
    """A command: the function it calls ("module:function") with the game first when it
    takes --game, each option by its parameter's name, and ``reader``, ``env`` or ``show``
    when it asks; what it returns goes to the terminal (``Terminal.show``)."""

    name: str
    call: str
    help: str
    example: str
    takes: tuple[str, ...] = ()


@contextmanager
def reported(show: Terminal) -> Iterator[None]:
    """Turn tally's own errors into one sentence and an exit status."""
    try:
        yield
    except TallyError as exc:
        show.error(str(exc))
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        show.error("interrupted; nothing was written.")
        raise typer.Exit(ExitStatus.INTERRUPTED) from None


def add(app: typer.Typer, row: Command, table: dict[str, Opt]) -> None:
    """Put ``row`` on ``app`` as a typer command whose signature is built from ``table``."""
    opts = {name: table[name] for name in ("quiet", *row.takes)}

    def command(ctx: typer.Context, **given: Any) -> None:
        env = ctx.obj if isinstance(ctx.obj, Environment) else Environment()
        show = Terminal(env, quiet=given.pop("quiet"), as_json=given.pop("as_json", False))
        with reported(show), ExitStack() as stack:
            from tally.forums.reader import Reader, Reading

            chosen = {k: given.pop(k) for k in READING if k in given}
            bar = stack.enter_context(show.progress())
            how = Reading(**chosen, progress=bar, warn=show.warn, thread_read=show.thread_read)
            reader = stack.enter_context(Reader(env, how))
            module, name = row.call.split(":")
            function = getattr(importlib.import_module(module), name)
            wants = inspect.signature(function).parameters
            front = []
            if "game" in row.takes:  # a command about one game: the game comes first
                from tally.rules.gamefile import load_game

                front.append(load_game(given.pop("game")))
            context = {"reader": reader, "env": env, "show": show}
            extra = {k: v for k, v in context.items() if k in wants}
            kwargs = {opts[k].to or k: v for k, v in given.items()}
            result = function(*front, **kwargs, **extra)
            if result is not None:
                show.show(result)

    P = inspect.Parameter
    params = [P("ctx", P.POSITIONAL_ONLY, annotation=typer.Context)]
    for name, o in sorted(opts.items(), key=lambda item: bool(item[1].flags)):  # arguments first
        kind = P.KEYWORD_ONLY if o.flags else P.POSITIONAL_OR_KEYWORD
        params.append(P(name, kind, annotation=Annotated[o.kind, o.info()], default=o.default))
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = f"{row.help}\n\n\b\nExample: {row.example}"
    app.command(row.name)(command)


try:  # typer vendors click from 0.2x on; before, click is a package of its own
    from typer._click import exceptions as _clicks
except ImportError:  # pragma: no cover - an older typer
    from click import exceptions as _clicks  # type: ignore[no-redef, import-not-found, unused-ignore]


class OneSentence(TyperGroup):
    """Option and argument mistakes reported like every other mistake: one sentence on
    standard error, exit 2 (not click's usage box)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone = kwargs.pop("standalone_mode", True)
        try:
            code = super().main(*args, **{**kwargs, "standalone_mode": False})
        except getattr(_clicks, "NoArgsIsHelpError", ()) as exc:
            typer.echo(exc.ctx.get_help())
            code = ExitStatus.OK
        except _clicks.ClickException as exc:
            context = getattr(exc, "ctx", None)
            where = context.command_path if context is not None else "tally"
            # typer 0.2x words a bad choice "Value error, 'x' is not one of …".
            said = exc.format_message().strip().rstrip(".").replace("Value error, ", "")
            typer.echo(f"tally: {said[:1].lower()}{said[1:]}; see `{where} --help`.", err=True)
            code = exc.exit_code
        except typer.Abort:
            typer.echo("tally: interrupted; nothing was written.", err=True)
            code = ExitStatus.INTERRUPTED
        if standalone:
            sys.exit(code if isinstance(code, int) else ExitStatus.OK)
        return code


def show_version(value: bool) -> None:
    if value:
        from tally import __version__

        typer.echo(f"tally {__version__}")
        raise typer.Exit()

