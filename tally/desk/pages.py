"""The desk's pages and actions, each a view registered in a table, as datasette's are.

A page's view takes the request and the desk (``tally.desk.state``) and says what the page
shows (``Shown``): its data, which its JSON twin answers at the page's path with ``.json``
(``/day/2.json``), and the values its template renders. The day's data is the count as
`tally votes --json` gives it, with what `tally watch --json` adds (``poll_json``); every
other page's is what the page shows, as data. ``PAGES`` holds each page with its path, its
name, its template, its tab and its twin; ``ACTIONS`` the director's POSTs, each answered
with a page or with the page to go to. ``tally.desk.app`` builds the app from the two."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from tally.desk import views
from tally.desk.posted import Sent
from tally.desk.state import DayPoller, Desk, text_digest
from tally.errors import InputError, PostError, TallyError
from tally.i18n import N_, tr
from tally.outputs.shown.json_output import poll_json
from tally.vocabulary import Announcement


@dataclass(frozen=True)
class Shown:
    """What a page shows: ``data`` (its JSON twin's answer, with ``status``) and ``values``
    (its template's, with the desk's own added: the key for its forms, the days)."""

    data: Mapping[str, Any]
    values: Mapping[str, Any] = field(default_factory=dict)
    status: int = 200  # of the twin: 503 while the day's count is not taken yet


View = Callable[[Request, Desk], Shown]
# An action: the request, the desk and the form it sent; a page, or the path to go to (303).
Act = Callable[[Request, Desk, Mapping[str, str]], "Shown | str"]


@dataclass(frozen=True)
class Page:
    """A page: where it answers, its name (the tab it lights; the route's name), the
    template it is rendered with, its view, and its JSON twin's path (None: none). ``tab``:
    the words of the day's tab that leads to it; ``says``: it shows (once) what the last
    action on its day said."""

    path: str
    name: str
    template: str
    view: View
    twin: str | None
    tab: str = ""
    says: bool = False


@dataclass(frozen=True)
class Action:
    """A POST: where, its view, and the page it answers with when it does not send the
    browser to one (``answers``: that page's name)."""

    path: str
    act: Act
    answers: str | None = None


def day_number(request: Request, desk: Desk) -> int:
    """The day in the path, one the game file has now; else the page is not found."""
    n: int = request.path_params["day"]
    try:
        desk.day(n)
    except TallyError:
        raise HTTPException(404) from None
    return n


def game(request: Request, desk: Desk) -> Shown:
    """The game: every day, its threads, its state, the facts its count rests on."""
    for n in desk.opened():
        desk.poller(n)  # each day counted once, the open one polled
    the_game = desk.game
    posted = {d.day for d in the_game.days if _answered(desk, d.day)}
    polls = {n: p.poll for n, p in desk.pollers.items()}
    shown = views.game_view(the_game, desk.reader.now(), polls, posted)
    return Shown(shown, {"game": shown})


def _answered(desk: Desk, n: int) -> bool:
    """The day's closing post made, as the game page says it; a journal that cannot be read
    is said on the Post page, where it stops the post."""
    try:
        sent = desk.posted(n)
    except TallyError:
        return False
    return sent is not None and sent.answered


def count(request: Request, desk: Desk) -> Shown:
    """The day's count as its poller last took it; live on the page (``live``, streamed)."""
    n = day_number(request, desk)
    poller = desk.poller(n)
    data, status = count_data(n, poller)
    return Shown(data, {"day": n, "live": live_context(desk, poller)}, status)


def count_data(n: int, poller: DayPoller) -> tuple[dict[str, Any], int]:
    """The count as `tally watch --json` prints a poll (`tally votes --json` and what
    changed), with the sentences the page says over it: why the day is counted again (the
    count is the one before, meanwhile), why it could not be. None taken yet: 503."""
    poll = poller.poll
    if poll is None or poll.result is None:
        error = poller.error or (poll.error if poll is not None else None)
        return {"day": n, "counted": False, "error": error}, 503
    recounting = poller.why if not poller.counted else ""
    return {**poll_json(poll), "recounting": recounting or None, "stopped": poller.error}, 200


def live_context(desk: Desk, poller: DayPoller) -> dict[str, Any]:
    """The live part of the day's page (its stream sends it again at each poll)."""
    shown = views.live_view(desk.game, poller.poll, poller.error, desk.reader.now())
    return {**shown, "recounting": poller.why if not poller.counted else ""}


def cards(request: Request, desk: Desk) -> Shown:
    """`tally lurkers --day N --no-write`: the posts per player, the cards the day earns."""
    n = day_number(request, desk)
    try:
        done, error = desk.lurkers(n), None
    except TallyError as exc:
        done, error = None, str(exc)
    shown = views.lurkers_view(done, error)
    return Shown({"day": n, **shown}, {"day": n, "lurkers": shown})


def announcements(request: Request, desk: Desk) -> Shown:
    """Every announcement of the day as `tally announce` renders it, beside a preview."""
    n = day_number(request, desk)
    markup = desk.reader.markup_for(desk.day(n).vote_ref)
    closed = desk.closed(n)
    shown = []
    for kind in views.KINDS:
        if kind is Announcement.REMINDER and closed:  # the close announcement is above
            shown.append(views.no_reminder(desk.day(n)))
            continue
        try:
            done, error = desk.announcement(n, kind), None
        except TallyError as exc:
            done, error = None, str(exc)
        shown.append(views.announcement_view(kind, done, error, markup))
    # The preview is the page's drawing of the text: the data is the text.
    data = [{k: v for k, v in p.items() if k != "preview"} for p in shown]
    return Shown({"day": n, "announcements": data}, {"day": n, "posts": shown})


def pictures(request: Request, desk: Desk) -> Shown:
    """The report's three pictures of the day's count (SVG)."""
    n = day_number(request, desk)
    poll = desk.poller(n).poll
    charts = views.charts_view(poll.result if poll is not None else None)
    return Shown({"day": n, "charts": charts}, {"day": n, "charts": charts})


def post_page(request: Request, desk: Desk) -> Shown:
    """The confirmation page: the whole closing text, or why there is none to post (the
    day open, posted already); GET never posts."""
    n = day_number(request, desk)
    text, error, before = "", None, None
    try:
        before = desk.posted(n)
        if before is None or not before.answered:  # posted: said, nothing to post
            text = closing_text(desk, n)
    except TallyError as exc:
        error = str(exc)
    return posting(n, text, error, before, None)


def closing_text(desk: Desk, n: int) -> str:
    """What the Post button sends, mark and all, with the game file as it is now."""
    if not desk.closed(n):
        raise InputError(tr(
            "day {day} has not closed: a provisional count (暂计) is never posted; "
            "post the result after the close.", day=n))  # fmt: skip
    shown = desk.announcement(n, Announcement.CLOSE)
    return shown.as_posted or shown.text


def posting(n: int, text: str, error: str | None, before: Sent | None,
            result: dict[str, Any] | None) -> Shown:  # fmt: skip
    """The Post page: the text and its digest (what the button confirms), the refusal, the
    post made before this page or by it."""
    known = views.sent_view(before) if result is None else None
    data = {"day": n, "text": text, "digest": text_digest(text), "error": error,
            "posted_before": known, "posted": result}  # fmt: skip
    return Shown(data, {"day": n, "text": text, "error": error, "digest": text_digest(text),
                        "before": known, "result": result})  # fmt: skip


def read_now(request: Request, desk: Desk, form: Mapping[str, str]) -> str:
    """The "read the thread now" button: the poller wakes (one that failed starts over)."""
    n = day_number(request, desk)
    desk.poller(n, again=True).read_now()
    return f"/day/{n}"


def confirm_card(request: Request, desk: Desk, form: Mapping[str, str]) -> str:
    """One proposed card into the ledger, said on the cards page."""
    n = day_number(request, desk)
    fields = [str(form.get(k, "")) for k in ("player", "colour", "rule", "reason")]
    try:
        view = desk.confirm_card(n, *fields)
        news = [f"{c.colour.label} {c.player} {c.rule}" for c in view.new]
        message = (tr("added to the ledger {ledger}: {cards}", ledger=view.path.name,
                      cards=tr(", ").join(news)) if view.written
                   else tr("already in the ledger: nothing written"))  # fmt: skip
    except TallyError as exc:
        message = tr("not added: {why}", why=exc)
    desk.say(n, message)
    return f"/day/{n}/cards"


def post(request: Request, desk: Desk, form: Mapping[str, str]) -> Shown:
    """The Post button: the closing post, once, only the text the director confirmed."""
    n = day_number(request, desk)
    error, result, before, text = None, None, None, ""
    try:
        before = desk.posted(n)
        if before is not None and before.answered:  # said before the thread is read again
            raise PostError(tr("day {day}'s result is posted already: {sent}; tally posts it "
                               "once.", day=n, sent=views.sent_sentence(before)))  # fmt: skip
        shown = desk.announcement(n, Announcement.CLOSE)
        text = shown.as_posted or shown.text
        confirmed = str(form.get("digest", ""))
        if confirmed != text_digest(text):
            raise InputError(tr("the count changed since the text was shown: read it again "
                                "before posting."))  # fmt: skip
        done = desk.announcement(n, Announcement.CLOSE, post=True, confirmed=confirmed)
        if done.failure is not None:
            raise done.failure
        if done.posted is not None:
            result = views.posted_view(done.posted)
    except TallyError as exc:
        error = str(exc)
    return posting(n, text, error, before, result)


DAY = "/day/{day:int}"

# Every page of the desk: (path, name, template, view, JSON twin); the day's tabs in order.
PAGES = (
    Page("/", "game", "game.html.j2", game, "/.json"),
    Page(DAY, "count", "day.html.j2", count, f"{DAY}.json", tab=N_("count"), says=True),
    # The day page's live part, which its stream sends: its data is the day's twin.
    Page(f"{DAY}/live", "live", "live.html.j2", count, None),
    Page(f"{DAY}/cards", "cards", "cards.html.j2", cards, f"{DAY}/cards.json",
         tab=N_("lurkers & cards"), says=True),
    Page(f"{DAY}/posts", "posts", "posts.html.j2", announcements, f"{DAY}/posts.json",
         tab=N_("announcements")),
    Page(f"{DAY}/pictures", "pictures", "pictures.html.j2", pictures, f"{DAY}/pictures.json",
         tab=N_("pictures")),
    Page(f"{DAY}/post", "post", "post.html.j2", post_page, f"{DAY}/post.json",
         tab=N_("post the result")),
)  # fmt: skip

# What the director does (POST, behind the guard's Origin and key checks).
ACTIONS = (
    Action(f"{DAY}/read", read_now),
    Action(f"{DAY}/cards", confirm_card),
    Action(f"{DAY}/post", post, answers="post"),
)
