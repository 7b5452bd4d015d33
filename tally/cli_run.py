"""How a row of ``tally.cli`` becomes a command: its options from the one table, its run (the
environment, the game, the terminal with its sink chosen once, one reader), the function it
calls and the result it shows; tally's own errors as one sentence and an exit status."""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from tally import i18n
from tally.environment import Environment
from tally.errors import ExitStatus, InputError, TallyError
from tally.i18n import N_, tr
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
            show.error(tr("interrupted; nothing was written."))
            raise typer.Exit(ExitStatus.INTERRUPTED) from None

    P = inspect.Parameter
    params = [P("ctx", P.POSITIONAL_ONLY, annotation=typer.Context)]
    for name, o in sorted(opts.items(), key=lambda item: bool(item[1].flags)):  # arguments first
        info = typer.Option(*o.flags, help=o.help, **o.more) if o.flags else typer.Argument(
            help=o.help, show_default=False, **o.more)
        kind = P.KEYWORD_ONLY if o.flags else P.POSITIONAL_OR_KEYWORD
        params.append(P(name, kind, annotation=Annotated[o.kind, info], default=o.default))
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = f"{row.help}{EXAMPLE}{row.example}"
    summary = row.help.split("\n\n")[0]  # whole in `tally --help`, never cut with "..."
    app.command(row.name, cls=Plain, short_help=summary)(command)


EXAMPLE = "\n\n\b\nExample: "  # between a command's help and its example


def spoken_help(text: str | None) -> str | None:
    """A command's help in the run's language: its words (one catalog entry, every
    paragraph) and the example after them, which is a command line and stays as it is."""
    if not text:
        return text
    body, sep, example = text.partition(EXAMPLE)
    if not sep:
        return tr(body)
    return tr(body) + "\n\n\b\n" + tr("Example: {example}", example=example)


def summary(text: str | None) -> str:
    """The first paragraph of a help text, whole (never cut with "...")."""
    return (text or "").split("\n\n")[0]


class Spoken:
    """Help written in the run's language when it is asked for: the texts stay the catalog's
    English words (what the tables hold) and are translated as the help is written."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        kept: list[tuple[Any, str, Any]] = []

        def say(thing: Any, attribute: str, words: Any) -> None:
            kept.append((thing, attribute, getattr(thing, attribute)))
            setattr(thing, attribute, words)

        say(self, "help", spoken_help(getattr(self, "help", None)))
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            if getattr(param, "help", None):
                say(param, "help", tr(param.help))
        for sub in getattr(self, "commands", {}).values():
            short = sub.short_help if sub.short_help and sub.short_help != summary(sub.help) else ""
            say(sub, "short_help", tr(short) if short else summary(spoken_help(sub.help)))
        if i18n.current() is not i18n.Language.EN:  # "选项：", as Chinese writes a heading
            say(formatter, "write_heading", functools.partial(_heading, formatter))
            # click wraps at spaces, counting characters: a Chinese sentence has no space
            # and each character takes two columns. Its wrap_text imports TextWrapper from
            # its _textwrap module when it wraps: the wider one is found there meanwhile.
            wrapping = importlib.import_module(
                type(formatter).__module__.rpartition(".")[0] + "._textwrap")
            say(wrapping, "TextWrapper", _wide_wrapper(wrapping.TextWrapper))
        try:
            super().format_help(ctx, formatter)  # type: ignore[misc]
        finally:
            for thing, attribute, words in reversed(kept):
                setattr(thing, attribute, words)

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        pieces = self.collect_usage_pieces(ctx)  # type: ignore[attr-defined]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix=tr("Usage: "))


def _heading(formatter: Any, heading: str) -> None:
    formatter.write(f"{'':>{formatter.current_indent}}{heading}：\n")


# What a line may break before: a Chinese character (with the punctuation that closes after
# it, and an opening bracket before it), a run of other characters (with the character it
# counts: "1楼"), or spaces.
_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_CLOSING = "，。；：、）」》”！？…"
_CHUNK = rf"\s+|[（「《“]*[{_CJK}][{_CLOSING}]*|[^\s{_CJK}]+(?:[{_CJK}][{_CLOSING}]*)?"


def _columns(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@functools.cache
def _wide_wrapper(base: type) -> type:
    """click's TextWrapper, filling lines by the columns a terminal gives each character
    and breaking between Chinese characters (never before a closing mark)."""

    chunks = re.compile(_CHUNK)  # compiled when help is asked for: 10 ms, not at start-up

    class Wide(base):  # type: ignore[misc]
        def wrap(self, text: str) -> list[str]:
            lines: list[str] = []
            indent, line = self.initial_indent, ""
            for chunk in chunks.findall(text):
                if line.strip() and _columns(indent + line + chunk.rstrip()) > self.width:
                    lines.append(indent + line.rstrip())
                    indent, line = self.subsequent_indent, chunk.lstrip()
                else:
                    line += chunk
            if line.strip():
                lines.append(indent + line.rstrip())
            return lines

    return Wide


class Plain(Spoken, TyperCommand):
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


class Group(Spoken, TyperGroup):
    """A group of commands (tally cards, tally day) whose help is written in the run's
    language."""


# The command line's own words, which typer and click write in English: typer asks the
# standard gettext module for some (made to ask tally's catalog, in the run's language), and
# click's mistakes are matched here and said again in the run's language.
# TRANSLATORS: typer's and click's own words, kept as they write them.
TYPER_WORDS = (N_("Arguments"), N_("Options"), N_("Commands"), N_("required"),
               N_("default: {default}"), N_("(dynamic)"), N_("env var: {var}"),
               N_("Aborted!"), N_("Missing command."), N_("No such command {name!r}."),
               N_("Show this message and exit."), N_("Install completion for the current shell."),
               N_("Show completion for the current shell, to copy it or customize the installation."))  # fmt: skip
MISTAKES = (
    (re.compile(r"No such option: (?P<option>\S+?)(?: \(Possible options: (?P<options>.+)\))?$"),
     N_("no such option: {option}")),
    (re.compile(r"Missing argument '(?P<name>[^']+)'$"), N_("missing argument {name}")),
    (re.compile(r"Missing option '(?P<name>[^']+)'$"), N_("missing option {name}")),
    (re.compile(r"Option '(?P<name>[^']+)' requires an argument$"),
     N_("option {name} needs a value")),
    (re.compile(r"Got unexpected extra arguments? \((?P<args>.+)\)$"),
     N_("unexpected argument: {args}")),
    (re.compile(r"No such command '(?P<name>[^']+)'$"), N_("no such command: {name}")),
    (re.compile(r"Invalid value for '(?P<name>[^']+)': '(?P<value>.*)' is not a valid integer$"),
     N_("invalid value for {name}: {value!r} is not a whole number")),
    (re.compile(r"Invalid value for '(?P<name>[^']+)': (?P<value>.+) is not in the range (?P<range>.+)$"),
     N_("invalid value for {name}: {value} is not in the range {range}")),
    (re.compile(r"Invalid value for '(?P<name>[^']+)': '(?P<value>.*)' is not one of (?P<choices>.+)$"),
     N_("invalid value for {name}: {value!r} is not one of {choices}")),
)  # fmt: skip


def mistake(said: str) -> str:
    """Click's English sentence about a command line, in the run's language where tally knows
    its words (else as click said it)."""
    if i18n.current() is i18n.Language.EN:
        return f"{said[:1].lower()}{said[1:]}"
    for pattern, words in MISTAKES:
        if (found := pattern.match(said)) is not None:
            fields = {k: v for k, v in found.groupdict().items() if k in words}
            return tr(words, **fields)
    return f"{said[:1].lower()}{said[1:]}"


def choose_language(environ: Any) -> i18n.Language:
    """The language of this run (``TALLY_LANG``, the config file, the locale, Windows);
    a word tally does not take in TALLY_LANG or the config file is one sentence, exit 2."""
    try:
        return i18n.choose(environ, i18n.configured_language(environ)).language
    except InputError as exc:
        typer.echo(f"tally: {exc}", err=True)
        sys.exit(exc.exit_code)


class OneSentence(Spoken, TyperGroup):
    """Option mistakes as every mistake: one sentence on standard error, exit 2 (no usage box);
    the whole run in the language chosen for it."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        environ = Environment().environ  # the process's variables (read there alone)
        with i18n.speaking(choose_language(environ)):
            return self._main(*args, **kwargs)

    def _main(self, *args: Any, **kwargs: Any) -> Any:
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
            typer.echo(tr("tally: {said}; see `{where} --help`.", said=mistake(said),
                          where=where), err=True)  # fmt: skip
            code = exc.exit_code
        except typer.Abort:
            typer.echo("tally: " + tr("interrupted; nothing was written."), err=True)
            code = ExitStatus.INTERRUPTED
        if standalone:
            sys.exit(code if isinstance(code, int) else ExitStatus.OK)
        return code


def _typer_asks_tally() -> None:
    """typer's own words ("Options", "required", "[default: …]") from tally's catalog: typer
    translates them with ``gettext.gettext``, bound as ``_`` in its core module."""
    import typer.core

    if callable(getattr(typer.core, "_", None)):
        typer.core._ = tr  # type: ignore[attr-defined, assignment, unused-ignore]


_typer_asks_tally()
