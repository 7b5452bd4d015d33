"""`tally announce`: the announcement rendered from its template, and posted when asked
(``tally.commands.post``: the safety rules)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from tally.commands.threads import days_before
from tally.errors import FetchError, GameFileError, InputError, PostError
from tally.forums.reader import Reader
from tally.i18n import tr
from tally.outputs.results import Announced
from tally.outputs.written import cardfile
from tally.rules.cards.ledger import Card, live
from tally.rules.counting.guards import thread_fits_day
from tally.rules.counting.state import posted_result, resolve
from tally.rules.counting.votes import Chain, DayResult, tally_day
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import OutcomeResult, ThreadRole
from tally.times import short
from tally.vocabulary import Announcement, Markup


def announce(
    game: Game,
    *,
    day: int,
    kind: Announcement = Announcement.CLOSE,
    markup: Markup | None = None,
    seed: int | None = None,
    template_dir: Path | None = None,
    provisional: bool = False,
    show_rules: bool = False,
    reader: Reader,
    late_ok: bool = False,
    post: bool = False,
    yes: bool = False,
    show: Asker | None = None,
    as_edited: bool = False,
) -> Announced:
    """`tally announce`: the post to paste, rendered from its template; rule ids (C5, L1) only
    with ``show_rules``, since the post is for the players. With ``post`` (Discuz!) it is
    also replied into the day's thread as the director (tally.commands.post: never provisional,
    never twice, asked first unless ``yes``, read back)."""
    from tally.outputs.written.announce import check_templates, closing_post, render

    kind, markup = Announcement(kind), Markup(markup) if markup is not None else None
    if post:
        from tally.commands.post import live_only

        live_only(reader)  # before anything is read: the post needs the live thread
    check_templates(kind, template_dir)  # before the pages are read
    chosen = game.day(day)
    markup = markup or reader.markup_for(chosen.vote_ref)  # a board profile's markup
    if kind is Announcement.CLOSE:
        result = _count(game, chosen, reader, late_ok=late_ok, as_edited=as_edited)
        text = closing_post(
            result, game, markup, provisional=provisional, show_rules=show_rules,
            template_dir=template_dir,
        )  # fmt: skip
        if post:
            _closing_postable(result, as_edited)
        from tally.rules.counting.closed import record

        said = record(result.ballots, result.outcome)
        return _posted(game, chosen, kind, text, post, yes, show, reader, said, result.unchecked)
    context: dict[str, object]
    if kind is Announcement.REMINDER:
        from tally.outputs.written.announce import reminder_context

        result = _count(game, chosen, reader, late_ok=late_ok, as_edited=as_edited)
        context = reminder_context(result, game, show_rules=show_rules)
        if post and not result.not_voted:
            raise PostError(
                tr("every living player has voted on day {day}: there is nobody to remind, so "
                   "no reminder is posted.", day=day)
            )
    elif kind is Announcement.MORNING:
        context = _morning(game, chosen, reader, show_rules)
    else:
        context = _elevator(game, chosen, reader, seed)
    text = render(kind, markup or reader.markup_for(chosen.vote_ref), context, template_dir)
    return _posted(game, chosen, kind, text, post, yes, show, reader)


def _count(game: Game, day: Day, reader: Reader, *, late_ok: bool, as_edited: bool) -> DayResult:
    """The day's count for its closing post or its reminder: the vote thread read as the
    count that decides the day reads it, with the days before it."""
    [thread] = reader.read([day.vote], game.timezone, closes=day.closes, decides=True)
    carried = days_before(game, day.day, reader, [thread]).carried
    return tally_day(thread, game, day.day, carried=carried, late_ok=late_ok, as_edited=as_edited)


def _closing_postable(result: DayResult, as_edited: bool) -> None:
    """A closing post is the day's result: never a count of edited floors, nor a
    provisional one (暂计)."""
    if as_edited:
        raise PostError(
            tr("a count taken --as-edited is never posted: rule on the edited floor in the "
               "game file ([[rulings]]) to post the result.")
        )
    if result.provisional:
        raise PostError(
            tr("day {day} has not closed (read {read}): a provisional "
               "count (暂计) is never posted; post the result after the close.",
               day=result.day.day, read=short(result.as_of))
        )


def _morning(game: Game, day: Day, reader: Reader, show_rules: bool) -> dict[str, object]:
    """The morning post's values: the day's state as the days before made it, and the
    cards of the ledger beside the game file."""
    from tally.outputs.written.opening import morning_context

    if game.path is None:
        raise InputError(tr("the morning announcement reads the ledger beside the game file."))
    cards = live(cardfile.load(cardfile.ledger_path(game.path)))
    _no_doubt(game, day.day, cards)
    chain = days_before(game, day.day, reader)
    today, _ = resolve(game, day, chain.carried)
    return morning_context(game, today, chain.days, cards, show_rules=show_rules,
                           voted_out=_voted_out(game, chain))  # fmt: skip


def _elevator(game: Game, day: Day, reader: Reader, seed: int | None) -> dict[str, object]:
    """The elevator post's values: the players' own views of the discussion thread (the
    vote thread without one)."""
    from tally.outputs.written.opening import elevator_context

    url = day.discussion or day.vote
    [thread] = reader.read([url], game.timezone, closes=day.closes)
    role = ThreadRole.DISCUSSION if day.discussion else ThreadRole.VOTE
    thread_fits_day(game, thread, day, role, cast=game.cast())
    return elevator_context(game, day, thread, seed)


def _no_doubt(game: Game, day: int, cards: Sequence[Card]) -> None:
    """The morning post shows the cards of the day before: not one in doubt (tally's, the
    check no longer gives it), which the director has yet to remove or keep."""
    from tally.rules.cards.ledger import commands, named

    assert game.path is not None
    before = max((d.day for d in game.days if d.day < day), default=None)
    doubts = [c for c in cards if c.in_doubt and c.day == before]
    if doubts:
        ways = "; ".join(tr("`{remove}` or `{keep}`", remove=a, keep=b)
                         for a, b in (commands(c, game.path) for c in doubts))  # fmt: skip
        raise GameFileError(
            tr("the morning post of day {day} would show {cards}, "
               "in doubt in the card ledger (tally's check no longer gives it): remove it or "
               "keep it as yours ({ways}), then run again.", day=day,
               cards="、".join(named(c) for c in doubts), ways=ways)
        )


def _voted_out(game: Game, chain: Chain) -> list[str] | None:
    """Who the last day of ``chain`` put out by its vote (A1's order needs it): by tally's
    count of it, else by the result tally posted for it; None when neither is known."""
    if not chain.days:
        return None
    last = max(chain.days)
    said = chain.outcome(last) or posted_result(game, last)
    if said is None:
        return None
    result, player = said
    return [player] if result is OutcomeResult.ELIMINATED and player else []


class Asker(Protocol):
    """Who is asked before a post (the terminal); None from ``confirm``: nobody to ask."""

    def confirm(self, question: str) -> bool | None: ...


def _posted(game: Game, day: Day, kind: Announcement, text: str, post: bool, yes: bool,
            show: Asker | None, reader: Reader,
            outcome: Mapping[str, object] | None = None,
            unchecked: Sequence[str] = ()) -> Announced:  # fmt: skip
    """The announcement, posted when asked: the text is kept (shown) whatever happens, as it
    is posted (tally's mark on its last line); on a terminal it is shown in full before the
    question."""
    from tally.commands.post import post_text
    from tally.commands.sent_text import final_text

    if not post:
        return Announced(text, as_posted=final_text(game, day.day, kind, text, outcome))

    text = final_text(game, day.day, kind, text, outcome)

    def confirm(question: str) -> bool | None:
        return show.confirm(f"{text.rstrip()}\n\n{question}") if show is not None else None

    try:
        posted = post_text(game, day, kind, text, reader=reader, yes=yes, confirm=confirm,
                           outcome=outcome, unchecked=unchecked)  # fmt: skip
    except (PostError, FetchError) as exc:  # the forum gone mid-way: still the text to paste
        return Announced(text, failure=exc)
    return Announced(text, posted=posted)
