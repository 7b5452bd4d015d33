"""How a row of ``tally.cli`` becomes a command: its options from the one table, its run (the
environment, the game, the terminal with its sink chosen once, one reader), the function it
calls and the result it shows; tally's own errors as one sentence and an exit status."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from tally.environment import Environment
from tally.errors import ExitStatus, TallyError
from tally.outputs.shown.terminal import Terminal

REQUIRED = inspect.Parameter.empty
# The options that say how the run reads forums (``Reading``), not what a command does.
READING = ("fresh", "offline", "cookies", "cache_dir", "archive", "partial", "boards")


@dataclass(frozen=True)
class Opt:
    """An option or argument (no flags): what fills the parameter ``to`` (or its own name)."""

    flags: tuple[str, ...]
    kind: Any
    help: str
    default: Any = None
    to: str = ""
    more: dict[str, Any] = field(default_factory=dict)  # min=, metavar=, …


@dataclass(frozen=True)
class Command:
    """A command: the function ("module:function") it calls with the game first when it takes
    --game, each option by name, and ``reader``, ``env``, ``show``, ``watchers`` when it asks
    for them."""

    name: str
    call: str
    help: str
    example: str
    takes: tuple[str, ...] = ()


def call(row: Command, opts: dict[str, Opt], env: Environment, show: Terminal,
         stack: ExitStack, given: dict[str, Any]) -> Any:  # fmt: skip
    """Run ``row``'s function with what the command line gave (``given``), in one run (its
    setup: ``tally.commands.run``), with one reader."""
    from tally import settings as config
    from tally.commands.run import setup
    from tally.forums.reader import Reader, Reading

    game_opt = next((k for k in given if (opts[k].to or k) == "game"), None)
    game_path = given.pop(game_opt) if game_opt else None
    # `tally lurkers` says a card in doubt and `tally cards` settles it: neither stops on it.
    doubt_ok = row.call.startswith(("tally.commands.cards:", "tally.commands.lurkers:"))
    run = setup(given, game_path, env, doubt_ok=doubt_ok)
    game, chosen, env = run.game, run.settings, run.env
    show.color = chosen["color"]
    given.update({k: chosen[k] for k in given if k in config.NAMES})
    given.pop("color", None)
    reading = {k: given.pop(k) for k in READING if k in given}
    bar = stack.enter_context(show.progress())
    how = Reading(**reading, progress=bar, warn=show.warn, note=show.note,
                  thread_read=show.thread_read,
                  roles=game.roles_of if game is not None else None,
                  named=game.named_threads if game is not None else ())  # fmt: skip
    reader = stack.enter_context(Reader(env, how))
    module, name = row.call.split(":")
    function = getattr(importlib.import_module(module), name)
    front = [game] if "game" in row.takes else []  # a command about one game: the game first
    wants = inspect.signature(function).parameters
    extra = {k: v for k, v in {"reader": reader, "env": env, "show": show,
                               "settings": chosen}.items() if k in wants}  # fmt: skip
    if "watchers" in wants:  # tally watch: the terminal follows it (the live screen, or JSON)
        extra["watchers"] = [show.watcher()]
    if game_opt is not None and "game" not in row.takes:
        extra["game"] = game  # a game file that is optional (archive --game, config --game)
    return function(*front, **{opts[k].to or k: v for k, v in given.items()}, **extra)


def add(app: typer.Typer, row: Command, table: dict[str, Opt]) -> None:
    """Put ``row`` on ``app`` as a typer command whose signature is built from ``table``."""
    opts = {name: table[name] for name in ("quiet", "color", *row.takes)}

    def command(ctx: typer.Context, **given: Any) -> None:
        env = ctx.obj if isinstance(ctx.obj, Environment) else Environment()
        show = Terminal(env, quiet=given.pop("quiet"), as_json=given.pop("as_json", False),
                        color=given["color"])  # fmt: skip
        try:
            with ExitStack() as stack:
                result = call(row, opts, env, show, stack, given)
                if result is not None:
                    show.show(result)
            failure = getattr(result, "failure", None)  # shown first (the text to paste)
            if failure is not None:
                show.error(str(failure))
            if getattr(result, "exit_status", 0):  # a result that is a failure (doctor)
                raise typer.Exit(result.exit_status)
        except TallyError as exc:  # the one place tally's errors become a sentence
            show.error(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            show.error("interrupted; nothing was written.")
            raise typer.Exit(ExitStatus.INTERRUPTED) from None

    P = inspect.Parameter
    params = [P("ctx", P.POSITIONAL_ONLY, annotation=typer.Context)]
    for name, o in sorted(opts.items(), key=lambda item: bool(item[1].flags)):  # arguments first
        info = typer.Option(*o.flags, help=o.help, **o.more) if o.flags else typer.Argument(
            help=o.help, show_default=False, **o.more)
        kind = P.KEYWORD_ONLY if o.flags else P.POSITIONAL_OR_KEYWORD
        params.append(P(name, kind, annotation=Annotated[o.kind, info], default=o.default))
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = f"{row.help}\n\n\b\nExample: {row.example}"
    summary = row.help.split("\n\n")[0]  # whole in `tally --help`, never cut with "..."
    app.command(row.name, cls=Plain, short_help=summary)(command)


class Plain(TyperCommand):
    """A command whose help names what to give (URL-OR-FILE, FILE, N), never a Python type
    (typer prints ``<list[str]>`` after an argument whatever its metavar)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar:
                param.display_type_rich = lambda ctx: None  # type: ignore[method-assign]

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        # "tally cards add PLAYER …", as man pages write it: typer braces {PLAYER}.
        pieces = super().collect_usage_pieces(ctx)
        return [re.sub(r"^\{(.*)\}(\.\.\.)?$", r"\1\2", p) for p in pieces]


try:  # typer vendors click from 0.2x on; before, click is a package of its own
    from typer._click import exceptions as _clicks
except ImportError:  # pragma: no cover - an older typer
    from click import exceptions as _clicks  # type: ignore[no-redef, import-not-found, unused-ignore]


class OneSentence(TyperGroup):
    """Option mistakes as every mistake: one sentence on standard error, exit 2 (no usage box)."""

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
