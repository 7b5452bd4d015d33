"""The `tally` command, as data: every option once (``OPTIONS``), every command a row naming
the library function it calls and what it takes. Parsing is typer's, the work the library's,
the printing the terminal's (``tally.cli_run`` joins them). The library is imported when a
command runs: ``tally --help`` stays quick."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated

import typer

from tally import __version__
from tally.cli_run import REQUIRED, Command, Group, OneSentence, Opt, add
from tally.i18n import N_
from tally.vocabulary import Announcement, Markup

# Every option and argument (no flags) once: flags, type, help, default, and the function's
# parameter it fills (``to``) when not its own name. A table: a row a line, however long.
OPTIONS: dict[str, Opt] = {
    "quiet": Opt(("--quiet", "-q"), bool, N_("No progress bar, no page summary."), False),
    "color": Opt(("--color/--no-color",), bool | None, N_("Colour on the terminal, or none [default: colour on a terminal, unless NO_COLOR or the config says no]."), more={"show_default": False}),
    "fresh": Opt(("--fresh",), bool, N_("Ignore cached pages: fetch every page again."), False),
    "offline": Opt(("--offline",), bool, N_("The forum is down: count from the pages tally cached (a closed day's, read after its close), never the network."), False),
    "cache_dir": Opt(("--cache-dir",), Path | None, N_("Where pages are kept between runs [default: $XDG_CACHE_HOME/tally]."), more={"metavar": "DIR"}),
    "cookies": Opt(("--cookies",), Path | None, N_("A Netscape cookies.txt exported from a browser that is logged in, for boards closed to guests."), more={"metavar": "FILE"}),
    "boards": Opt(("--boards",), Path | None, N_("Board profiles (TOML) for boards whose theme tally cannot read alone [default: boards.toml beside the config file]."), more={"metavar": "FILE"}),
    "archive": Opt(("--archive",), Path | None, N_("Take the game's threads from this archive (tally archive's CSV or SQLite file), not from the forum."), more={"metavar": "FILE"}),
    "as_json": Opt(("--json",), bool, N_("Print JSON (see docs/json.md) instead of the table."), False),
    "game": Opt(("--game",), Path, N_("The game file."), REQUIRED, more={"metavar": "FILE"}),
    "vote_day": Opt(("--day",), int | None, N_("The day; by default the day whose vote thread it is."), to="day", more={"metavar": "N"}),
    "last_day": Opt(("--day",), int | None, N_("The day to check; by default the last closed day."), to="day", more={"metavar": "N"}),
    "day": Opt(("--day",), int, N_("The day."), REQUIRED, more={"metavar": "N"}),
    "card_day": Opt(("--day",), int, N_("The day the card is for."), REQUIRED, to="day", more={"metavar": "N"}),
    "only_day": Opt(("--day",), int | None, N_("Only this day's cards."), to="day", more={"metavar": "N"}),
    "only_player": Opt(("--player",), str | None, N_("Only this player's: as for PLAYER in tally cards add."), to="player", more={"metavar": "NAME"}),
    "markup": Opt(("--format",), Markup | None, N_("bbcode (Discuz!) or text (Tieba); by default, what the game's forum uses."), more={"metavar": "bbcode|text"}),
    "kind": Opt(("--kind",), Announcement, N_("close (the day's result), morning (A1), elevator (A2) or reminder (催票)."), Announcement.CLOSE, more={"metavar": "close|morning|elevator|reminder"}),
    "announce": Opt(("--announce",), bool, N_("Print the announcement after the table."), False),
    "chart": Opt(("--chart",), Path | None, N_("Also draw the day's votes as a PNG picture, to post."), more={"metavar": "FILE"}),
    "late_ok": Opt(("--late-ok",), bool, N_("Ballots after the close are late, as you mean: count them void instead of stopping (late_ok under the day does the same)."), False),
    "as_edited": Opt(("--as-edited",), bool, N_("A ballot edited at or after the close that tally never read before it: count it as it reads now instead of stopping (never posted; a ruling in the game file is the lasting answer)."), False),
    "as_of": Opt(("--as-of",), str | None, N_("The count as the thread stood then, from the pages tally read before: a time in the game's clock (2026-12-01 20:30, or 20:30 on the day of the close) or a floor number."), more={"metavar": "TIME|FLOOR"}),
    "write": Opt(("--write/--no-write",), bool, N_("Add the proposed cards to the ledger."), True),
    "post": Opt(("--post",), bool, N_("Discuz!: also reply with it in the day's thread, as the director the cookies log in (asked first; never twice, never provisional; read back)."), False),
    "yes": Opt(("--yes", "-y"), bool, N_("Post without asking."), False),
    "watch_post": Opt(("--post",), bool, N_("Discuz!: at the close, reply with the closing announcement in the vote thread, unattended (never twice; read back); a post that fails leaves the text in a file."), False, to="post"),
    "remind_at": Opt(("--remind-at",), int | None, N_("Discuz!: this many minutes before the close, post the reminder (催票) once, @-mentioning who has not voted."), more={"min": 1, "metavar": "MINUTES"}),
    "seed": Opt(("--seed",), int | None, N_("Another order of the elevator (电梯贴); without it the order is the game's own, the same at every run and on every day (from the game file's id, else its first vote thread)."), more={"metavar": "N"}),
    "template_dir": Opt(("--template-dir",), Path | None, N_("Your own templates (tally templates export DIR makes a start); one missing there is the built-in."), more={"metavar": "DIR"}),
    "provisional": Opt(("--provisional",), bool, N_("Before the close: a mid-day standing (暂计) instead of a refusal."), False),
    "show_rules": Opt(("--show-rules",), bool, N_("Print the rule ids (C5, L1) in the post; the players' post leaves them out."), False),
    "csv": Opt(("--output", "-o"), Path | None, N_("The CSV file to write [default: posts.csv, unless --db]."), to="output", more={"metavar": "FILE"}),
    "db": Opt(("--db",), Path | None, N_("Also write (or bring up to date) this SQLite database."), more={"metavar": "FILE"}),
    "game_file": Opt(("--game",), Path | None, N_("Archive every thread of this game file (and its closed days' ballots)."), to="game", more={"metavar": "FILE"}),
    "timezone": Opt(("--timezone",), str | None, N_("The forum's clock, when no game file gives it [default: the config's, else Asia/Shanghai]."), more={"metavar": "ZONE"}),
    "partial": Opt(("--partial",), bool, N_("Saved pages: write what they hold when pages or 楼中楼 are missing, and list what is missing."), False),
    "init_ruleset": Opt(("--ruleset",), str | None, N_("The rules: 000, 245, 023 or M126 (see docs/rulesets.md); by default a placeholder to fill in."), to="ruleset", more={"metavar": "RULESET"}),
    "init_name": Opt(("--name",), str | None, N_("The game's name as the announcements print it; by default a placeholder with the name the titles share."), to="name", more={"metavar": "NAME"}),
    "game_out": Opt(("--output", "-o"), Path, N_("The game file to write (never over one)."), Path("game.toml"), to="output", more={"metavar": "FILE"}),
    "html_out": Opt(("--output", "-o"), Path, N_("The HTML file to write."), Path("report.html"), to="output", more={"metavar": "FILE"}),
    "every": Opt(("--every",), float, N_("Seconds between polls (at least 1)."), 60.0, more={"min": 1.0, "metavar": "SECONDS"}),
    "polls": Opt(("--polls",), int | None, N_("Stop after this many polls; by default at the close."), more={"min": 1, "metavar": "N"}),
    "full_every": Opt(("--full-every",), int, N_("Read every page again every N polls (点评 and 楼中楼 under earlier floors); 0: only at the close (and at the --remind-at poll)."), 10, more={"min": 0, "metavar": "N"}),
    "desk_full_every": Opt(("--full-every",), int, N_("Read every page again every N polls (点评 and 楼中楼 under earlier floors); 0: only at the close."), 10, to="full_every", more={"min": 0, "metavar": "N"}),
    "announce_to": Opt(("--announce-to",), Path | None, N_("At the close, write the announcement to this file."), more={"metavar": "FILE"}),
    "sources": Opt((), list[str] | None, N_("Thread URLs, saved page files, or archives."), more={"metavar": "URL-OR-FILE"}),
    "vote_sources": Opt((), list[str], N_("The vote thread's URL, its saved pages, or an archive."), REQUIRED, to="sources", more={"metavar": "URL-OR-FILE"}),
    "threads": Opt((), list[str], N_("The game's threads: discussion and vote threads, URLs or saved pages."), REQUIRED, to="sources", more={"metavar": "URL-OR-FILE"}),
    "url": Opt((), str, N_("The vote thread's URL."), REQUIRED, more={"metavar": "URL"}),
    "source": Opt((), str, N_("One page: a thread URL as you would paste it, or a saved page file."), REQUIRED, more={"metavar": "URL-OR-FILE"}),
    "player": Opt((), str, N_("The player: the game file's name, the name their account posts under now (a rename tally read in the game's threads), or uid:N (the account's id, Discuz! uid or Tieba user id); the ledger records the game file's name."), REQUIRED, more={"metavar": "PLAYER"}),
    "colour": Opt((), str, N_("blue, yellow or red (蓝, 黄, 红)."), REQUIRED, more={"metavar": "COLOUR"}),
    "rule": Opt((), str, N_("The rule: L4, L8, …"), REQUIRED, more={"metavar": "RULE"}),
    "reason": Opt((), str, N_("Why, as the morning post will say it."), REQUIRED, more={"metavar": "REASON"}),
    "which": Opt((), str | None, N_("Which card, when several match: its reason."), to="reason", more={"metavar": "REASON"}),
    "folder": Opt((), Path, N_("The folder to copy them into (made if need be; never over a file there)."), REQUIRED, more={"metavar": "DIR"}),
    "new_day": Opt(("--day",), int | None, N_("The day's number; by default the one after the game file's last day."), to="day", more={"metavar": "N", "min": 1}),
    "add_yes": Opt(("--yes", "-y"), bool, N_("Add the day without asking."), False, to="yes"),
    "talk_url": Opt((), str, N_("The day's discussion thread (its first post says 开门)."), REQUIRED, to="discussion", more={"metavar": "DISCUSSION-URL"}),
    "vote_url": Opt((), str, N_("The day's vote thread (its first post says the close)."), REQUIRED, to="vote", more={"metavar": "VOTE-URL"}),
    "port": Opt(("--port",), int | None, N_("The port on 127.0.0.1 to serve on [default: a free one]."), more={"min": 1, "max": 65535, "metavar": "N"}),
    "no_browser": Opt(("--no-browser",), bool, N_("Print the desk's address; do not open it in the browser."), False),
    "config_game": Opt(("--game",), Path | None, N_("Also what this game file sets."), to="game", more={"metavar": "FILE"}),
}

# Each command: its name, the function it calls, what it does, an example, and what it takes.
LIVE = ("fresh", "cache_dir", "cookies", "boards")  # watch reads the forum, never --offline
FETCH = (*LIVE, "offline")
COMMANDS = (
    Command("archive", "tally.commands.archive:archive", N_("Write every post and comment of the threads to a CSV file that Excel opens, and/or a SQLite database."),
            "tally archive --game game.toml -o game.csv --db games.sqlite", ("sources", "csv", "db", "game_file", "timezone", "partial", *FETCH)),
    Command("votes", "tally.commands.votes:votes", N_("Count a day's votes: every ballot judged, the totals and who is out (or sheriff)."),
            "tally votes https://bbs.example.com/thread-102-1-1.html --game game.toml",
            ("vote_sources", "game", "vote_day", "as_json", "announce", "markup", "template_dir", "chart", "late_ok", "as_edited", "as_of", "archive", *FETCH)),
    Command("lurkers", "tally.commands.lurkers:lurkers", N_("Posts per player per day, the yellow cards they earn, and posts the director should see.\n\nThe cards go into the ledger beside the game file (GAME.cards.csv), once."),
            "tally lurkers --game game.toml --day 3", ("game", "last_day", "as_json", "write", "late_ok", "archive", *FETCH)),
    Command("announce", "tally.commands.announce:announce", N_("The announcement to paste into the forum: BBCode for Discuz!, plain text for Tieba."),
            "tally announce --game game.toml --day 2 > day2.txt",
            ("game", "day", "kind", "markup", "seed", "template_dir", "provisional", "show_rules", "late_ok", "as_edited", "post", "yes", "as_json", "archive", *FETCH)),
    Command("init", "tally.commands.init:init", N_("Write a first game file from the game's threads: director, players, days."),
            "tally init https://bbs.example.com/thread-101-1-1.html URL-OF-THE-VOTE -o game.toml", ("threads", "game_out", "init_ruleset", "init_name", "timezone", *FETCH)),
    Command("report", "tally.commands.report:report", N_("The game so far as one HTML page: each closed day's votes as pictures, posts, cards."),
            "tally report --game game.toml -o report.html", ("game", "html_out", "template_dir", "late_ok", "as_of", "archive", *FETCH)),
    Command("watch", "tally.commands.watch:watch", N_("Watch a vote until its close: the count, what changed, who has not voted, live.\n\nAt the close by the forum's clock (and a grace minute) it reads every page once more, prints the final count and writes the announcement to --announce-to."),
            "tally watch https://bbs.example.com/thread-102-1-1.html --game game.toml",
            ("url", "game", "vote_day", "every", "polls", "full_every", "announce_to", "watch_post", "remind_at", "markup", "template_dir", "late_ok", "as_json", *LIVE)),
    Command("desk", "tally.commands.desk:desk", N_("The evening of a game in a local web page: the count live, the cards to confirm, the announcements, one button to post the result.\n\nServed on 127.0.0.1 only, at an address with a key (printed, and opened in the browser); the same reading, counting and posting as the commands, one poller per day as in tally watch. The game file is followed: a day added (tally day add), a ruling written or a card given counts from the next poll, at the same address."),
            "tally desk --game game.toml", ("game", "port", "no_browser", "every", "desk_full_every", "late_ok", "template_dir", *LIVE)),
    Command("doctor", "tally.commands.doctor:doctor", N_("How tally reads one page of a board, field by field: run it first on a new board.\n\nWhere each field was found, what is missing, the board profile used; exits 4 on a page that is no thread, 5 when a field tally needs is missing."),
            "tally doctor 'https://bbs.example.com/forum.php?mod=viewthread&tid=101'", ("source", "timezone", "as_json", "cookies", "boards", "fresh", "cache_dir")),
    Command("config", "tally.commands.config:config", N_("The settings a run uses and where each comes from: the command line, the game file, the config file, tally's default.\n\nThe config file (TOML, written by hand) sets once what you would give every command: template_dir, cookies, boards, cache_dir, timezone, color, politeness; a game file may set the same keys for one game; an option on the command line wins over both."),
            "tally config --game game.toml", ("config_game", "template_dir", "cookies", "boards", "cache_dir", "timezone", "as_json")),
    Command("demo", "tally.commands.demo:demo", N_("Run tally on the bundled sample game, served from 127.0.0.1 (no network needed)."), "tally demo"),
)
TEMPLATES = (
    Command("export", "tally.commands.templates:export_templates", N_("Copy the built-in templates and their README (the values each gets) into a folder, to start your own."),
            "tally templates export my-templates && tally announce --game game.toml --day 2 --template-dir my-templates", ("folder",)),
)
DAY = (
    Command("add", "tally.commands.day:add_day", N_("Add the next day to the game file from its two threads: number, URLs, open and close from the first posts, shown and asked first.\n\nThe threads are checked as a count checks them (another day's, titled for another day, not yet open: refused); the sheriff, the deputy (执警) and who is out are carried from the days before, as tally derives them, and said in comments; a role in question (a sheriff out, a deputy whose badge passed) is asked as a commented key; the file's comments and order are kept."),
            "tally day add DISCUSSION-URL VOTE-URL --game game.toml", ("talk_url", "vote_url", "game", "new_day", "add_yes", "as_json", *FETCH)),
)
CARDS = (
    Command("add", "tally.commands.cards:add_card", N_("Give a card; the escalations it makes (K1) come with it, and a card given twice is one card."),
            'tally cards add --game game.toml --day 2 糖糖 yellow L4 "第2晚未按时行动"', ("game", "card_day", "player", "colour", "rule", "reason", "cache_dir")),
    Command("remove", "tally.commands.cards:remove_card", N_("Take a card back; the escalations that rested on it (K1) go with it."),
            "tally cards remove --game game.toml --day 2 糖糖 yellow L4", ("game", "card_day", "player", "colour", "rule", "which", "cache_dir")),
    Command("keep", "tally.commands.cards:keep_card", N_("Keep a card of tally's as yours: one in doubt (the check no longer gives it) counts again, with its escalations (K1)."),
            "tally cards keep --game game.toml --day 1 糖糖 yellow L1", ("game", "card_day", "player", "colour", "rule", "cache_dir")),
    Command("list", "tally.commands.cards:list_cards", N_("The ledger's cards, and each player's totals and who is sent off (K2)."),
            "tally cards list --game game.toml --day 2", ("game", "only_day", "only_player", "cache_dir")),
)

app = typer.Typer(
    name="tally", cls=OneSentence, context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True, add_completion=True, pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no boxes, brackets kept, no "<bool>" after flags
)  # fmt: skip
cards = typer.Typer(name="cards", cls=Group, no_args_is_help=True, rich_markup_mode=None,
                    help=N_("The card ledger by hand: the cards that are the director's calls (L4, L8, …)."),
                    short_help=N_("The card ledger by hand: add, remove, list."))
templates = typer.Typer(name="templates", cls=Group, no_args_is_help=True, rich_markup_mode=None,
                        help=N_("The announcement templates: export the built-ins to make your own."),
                        short_help=N_("Export the built-in templates, to make your own."))
days = typer.Typer(name="day", cls=Group, no_args_is_help=True, rich_markup_mode=None,
                   help=N_("The game file's days: add the next one from its threads."),
                   short_help=N_("Add the next day to the game file from its threads."))
app.add_typer(cards)
app.add_typer(templates)
app.add_typer(days)
for group, rows in ((app, COMMANDS), (cards, CARDS), (templates, TEMPLATES), (days, DAY)):
    for row in rows:
        add(group, row, OPTIONS)


ROOT_HELP = N_("""\
Count votes, check lurkers and write announcements for forum werewolf games (版杀).

\b
Examples:
  tally init THREAD-URL VOTE-URL -o game.toml    a first game file from the threads
  tally day add TALK-URL VOTE-URL --game game.toml
                                                 the next day added, from its threads
  tally votes VOTE-URL --game game.toml          the day's count, ballot by ballot
  tally announce --game game.toml --day 2        the closing post to paste
  tally config                                   the settings and where each comes from""")


@app.callback(invoke_without_command=True, help=ROOT_HELP)
def root(version: Annotated[bool, typer.Option("--version", help=N_("Print tally's version and exit."), is_eager=True)] = False) -> None:
    """The root: its help is ``ROOT_HELP`` (a catalog's sentence, not a docstring)."""
    if version:
        typer.echo(f"tally {__version__}")  # a name and a number: no words to translate
        raise typer.Exit()


def named(args: list[str]) -> typer.Typer:
    """The app as a run of ``tally NAME …`` needs it: only the command (or the group) NAME,
    when the command line starts with one. typer makes the click command of every command
    the app holds before it reads the command line: ~15 ms of CPU in each process for all
    17 (6 of them in 3 groups), ~2 ms for one. What the run prints is the same: its help,
    its mistakes and its work are the command's own. Anything else (no argument, an option
    first: --help, --version, shell completion) gets the whole app."""
    name = args[0] if args else ""
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups
              if g.typer_instance is not None and g.typer_instance.info.name == name]  # fmt: skip
    if not commands and not groups:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = commands, groups
    return one


def main() -> None:
    import sys

    from tally.heap import keep_freed_heap
    from tally.outputs.shown.streams import settle_streams

    keep_freed_heap()  # see tally/heap.py: the parser runs ~1.6× as fast
    settle_streams()
    named(sys.argv[1:])()
