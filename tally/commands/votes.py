"""`tally votes`: one day's vote thread read and counted (``vote_day``), and the command with
its post and picture (``votes``).

    from tally.environment import Environment
    from tally.forums.reader import Reader, Reading
    from tally.rules.game.gamefile import load_game
    from tally.commands.run import with_ledger
    from tally.commands.votes import vote_day

    game = with_ledger(load_game("game.toml"))  # and who its card ledger sends off (K2)
    with Reader(Environment(), Reading()) as reader:
        result = vote_day(game, [game.day(2).vote], reader=reader)
    print(result.outcome.player)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from tally.commands.checks import check_output
from tally.commands.threads import days_before, request_threads
from tally.forums import resolve_url
from tally.forums.getting import is_url
from tally.forums.reader import Reader
from tally.i18n import N_, tr
from tally.outputs.results import Counted
from tally.rules.counting.votes import DayResult, tally_day
from tally.rules.game.game import Day, Game
from tally.rules.judging.as_of import as_of_given, as_of_time, thread_as_of
from tally.rules.judging.ballots import Flag
from tally.rules.verdicts import ThreadRole
from tally.vocabulary import Announcement, Markup


def vote_day(
    game: Game,
    sources: Sequence[str],
    *,
    day: int | None = None,
    reader: Reader,
    late_ok: bool = False,
    as_edited: bool = False,
    as_of: str | None = None,
) -> DayResult:
    """`tally votes`: read one day's vote thread (URL, saved pages or an archive) and count
    it, with the day's acceleration requests (S3) when its other threads can be had; with
    ``as_of`` (a time or a floor), as the thread stood then by tally's earlier reads."""
    chosen = _day_of_urls(game, sources, day)
    if as_of is not None:
        as_of_given(as_of, game, chosen or game.days[0])  # a mistyped one before any read
    closes = chosen.closes if chosen is not None else None
    given = reader.read(sources, game.timezone, closes=closes, decides=True)
    vote, the_day = game.vote_thread(given, chosen, day)
    if as_of is not None:
        vote = thread_as_of(vote, as_of_time(vote, as_of, game, the_day))
    carried = days_before(game, the_day.day, reader, given).carried
    requests, why_not = None, None
    # Requests asked in no thread (seed 000: by QQ to the director) are not counted.
    if game.rules.acceleration and game.rules.acceleration_threads:
        requests, why_not = request_threads(game, the_day, sources, given, reader)
    result = tally_day(
        vote, game, the_day.day, requests=requests, carried=carried, late_ok=late_ok,
        as_edited=as_edited,
    )  # fmt: skip
    if why_not is not None and the_day.accelerated:  # the file says so, tally cannot check
        note = Flag("S3", tr("加速: not counted: {why}", why=why_not))
        result = dataclasses.replace(result, flags=(*result.flags, note))
    return result


def votes(
    game: Game,
    sources: Sequence[str],
    *,
    day: int | None = None,
    reader: Reader,
    chart: Path | None = None,
    announce: bool = False,
    markup: Markup | None = None,
    late_ok: bool = False,
    template_dir: Path | None = None,
    as_edited: bool = False,
    as_of: str | None = None,
) -> Counted:
    """The `tally votes` command: the count, and with ``announce`` the post (a day not
    closed gets the mid-day standing, headed as such), with ``chart`` the picture (PNG);
    ``template_dir`` holds the director's own templates (each missing one is the built-in)."""
    from tally.outputs.written.announce import check_templates, closing_post

    if announce:
        check_templates(Announcement.CLOSE, template_dir)  # before the pages are read
    if chart is not None:
        check_output(chart, N_("picture"))
    result = vote_day(
        game, sources, day=day, reader=reader, late_ok=late_ok, as_edited=as_edited, as_of=as_of
    )
    warning = draw_chart(result, game, chart) if chart is not None else None
    markup = markup or reader.markup_for(result.day.vote_ref)
    text = (
        closing_post(result, game, markup, provisional=True, template_dir=template_dir)
        if announce
        else None
    )
    return Counted(result, text, chart, warning)


def _day_of_urls(game: Game, sources: Sequence[str], day: int | None) -> Day | None:
    """The day a count is about, known before anything is read when it can be: the day
    named, or the day whose vote thread a URL given is."""
    if day is not None:
        return game.day(day)
    for source in sources:
        if is_url(source):
            found = game.locate(resolve_url(source)[1].key)
            if found is not None and found[1] is ThreadRole.VOTE:
                return found[0]
    return None


def draw_chart(result: DayResult, game: Game, output: Path) -> str | None:
    """`tally votes --chart`: the day's picture as PNG (written atomically); the sentence to
    show when no font can draw the names."""
    from tally.atomic import write_atomic
    from tally.outputs.written import charts
    from tally.outputs.written.announce import outcome_sentence

    picture = charts.png(charts.day_figure, result, outcome_sentence(result, game))
    write_atomic(output, picture.data)
    return picture.warning
