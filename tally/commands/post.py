"""Posting the result: tally's announcement replied into the day's thread as the director.

Through the platform's own reply form (``Platform.reply_form``, ``Platform.send_reply``), with
the cookie file the director already gives tally; this module holds the safety rules alone,
in the order they are checked:

1. only where the platform posts (its ``no_posting`` sentence says why not elsewhere, and
   the text is printed to paste by hand); only from the live thread (never --offline, never
   --archive);
2. never a provisional count (the caller refuses those as `tally announce` does), never
   a count a check of the game file stopped (the count raised before there is a post);
3. the text made once (``final_text``, with the text's other rules in ``sent_text``): spaces
   the board would show otherwise (NBSP and friends) made plain, invisible characters out,
   players' tags inert in a way every charset holds, and tally's mark for the game, day and
   kind on its last line, outside any template (``mark``);
4. one poster at a time (``tally.journal.post_lock``), and never twice: inside the lock the
   journal of posts beside the game file and the live thread (every page) are read, and a
   post there by a director's account (by its id when the file gives it) whose last line is
   the mark stops it, whenever it was posted (no window of either clock: a morning post made
   before the day opens, a result a slow forum clock stamped before the close), and so
   does the journal's post by its id, edited since, and (without the journal) a
   director's post that is this one with the mark edited out (``edited_copy``); a
   journal entry whose answer never came is looked for in the thread, never sent blindly;
5. only as a director of the game, logged in (the page must show the member; its uid when
   the game file gives the directors' ids);
6. shown in full and asked on the terminal unless ``yes`` (tally watch --post is unattended
   by design);
7. recorded in the journal before it is sent, sent once, never retried, the answer recorded;
8. read back: the new post is looked up in the thread and its text compared with what was
   sent; a difference is reported (``Posted.difference``), never hidden.

    from tally.commands.post import post_text
    from tally.commands.sent_text import final_text
    text = final_text(game, 2, "close", text)
    posted = post_text(game, game.day(2), "close", text, reader=reader, yes=True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from tally.commands.sent_text import (
    check_size,
    difference,
    edited_copy,
    ends_said,
    final_text,
    players_unheld,
)
from tally.errors import (
    AlreadyPosted,
    FetchError,
    MaybePosted,
    OutputError,
    PostError,
    clause,
)
from tally.forums import platform_of, resolve_url
from tally.forums.base import Platform
from tally.forums.charset import charset_of, decode_page
from tally.forums.http import Response
from tally.forums.reader import Reader
from tally.forums.replies import Accepted, ReplyForm, Unserved, member_check, person_check
from tally.i18n import tr
from tally.journal import POSTED, REFUSED, UNKNOWN, Entry, Journal, journal_path, post_lock
from tally.model import Post, Thread, ThreadRef
from tally.outputs.results import Posted
from tally.rules.counting.closed import mark, marked_post
from tally.rules.game.game import Day, Game
from tally.rules.judging.standing import HIDDEN_REPLY
from tally.times import short
from tally.vocabulary import Announcement

# Ask the person at the terminal; None when there is nobody to ask.
Confirm = Callable[[str], "bool | None"]


def where_to_post(game: Game, day: Day, kind: Announcement) -> tuple[str, ThreadRef]:
    """The thread a post goes in: the vote thread (the result, the reminder), the day's
    discussion thread for the morning and elevator posts when the file names one."""
    url = day.vote
    if kind in (Announcement.MORNING, Announcement.ELEVATOR) and day.discussion:
        url = day.discussion
    return url, resolve_url(url)[1]


def post_text(
    game: Game,
    day: Day,
    kind: Announcement,
    text: str,
    *,
    reader: Reader,
    yes: bool = False,
    confirm: Confirm | None = None,
    outcome: Mapping[str, Any] | None = None,
    unchecked: Sequence[str] = (),
) -> Posted:
    """Post ``text`` (the announcement of ``kind`` for ``day``, made by ``final_text``) as a
    reply, under the rules of this module's docstring; PostError with one sentence when any
    stops it. ``outcome``: what the journal keeps of a closing post's count."""
    url, ref = where_to_post(game, day, kind)
    platform = platform_of(ref)
    if platform.no_posting:  # see README, Posting the result
        raise PostError(platform.no_posting)
    live_only(reader)
    resting_on(day, kind, unchecked)
    text = final_text(game, day.day, kind, text, outcome)
    journal = Journal(journal_path(game.path))
    where = _lock_name(url, ref)
    with post_lock(game.path, day.day, kind, thread=where, folder=reader.env.cache_folder()):
        # Read inside the lock: a poster let in after another finds its post.
        thread = _live(reader, url, game, day.closes)
        _never_twice(game, day, kind, thread, journal, text)
        hidden = hidden_from_players(thread)
        if hidden is not None and reader.how.warn is not None:
            reader.how.warn(hidden)
        form = ready(game, ref, thread.page_count, reader)
        text = players_unheld(text, form.charset, game, thread, reader)
        check_size(form, text)
        if not yes:
            _asked(confirm, tr("Post this to {url} as {member}?", url=url, member=form.member))
        at = reader.now(url).astimezone(game.timezone)  # the forum's time, as its posts'
        try:
            entry = journal.begin(game.id, day.day, kind, text, at, outcome)
        except OutputError as exc:
            raise PostError(tr("nothing was posted: tally records a post in the journal of "
                               "posts before it sends it, and {reason}",
                               reason=exc)) from None  # fmt: skip
        unrecorded: str | None = None
        try:
            accepted = platform.send_reply(form, text, ref, reader.http.submit)
        except MaybePosted as exc:
            found = _look_for(reader, url, game, day, kind, journal, entry)
            if found is None:
                said = tr("{reason}; {not_found}", reason=clause(exc),
                          not_found=_not_found(game, day, kind))
                raise MaybePosted(said) from None
            accepted = Accepted(found.post_id, platform.post_url(ref, found.post_id))
        except PostError:
            journal.end(entry, REFUSED)
            raise
        else:
            unrecorded = _record(journal, entry, accepted.pid)
    link = platform.post_url(ref, accepted.pid)
    floor, difference = _read_back(reader, url, game, accepted.pid, text)
    if floor is not None and unrecorded is None:  # the floor the forum gave it, read back
        unrecorded = _record(journal, entry, accepted.pid, floor)
    if unrecorded is not None:
        raise _posted_unrecorded(day, kind, accepted.pid, floor, link, journal, unrecorded)
    return Posted(
        kind, day.day, accepted.pid, link, url, at, form.member, floor, difference, via=form.via
    )


def _lock_name(url: str, ref: ThreadRef) -> str:
    """The thread the post lock is taken for: by its board and id, however its URL is
    spelled (thread-102-1-1.html), so that two posters of one thread wait for each other."""
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    return f"{host}/{ref.key.platform}/{ref.key.thread_id}"


def _asked(confirm: Confirm | None, question: str) -> None:
    """The person at the terminal says yes to ``question``; nobody to ask, or a no, and
    nothing is posted."""
    asked = confirm(question) if confirm else None
    if asked is None:
        raise PostError(
            tr("there is no terminal to ask before posting: add --yes to post without asking.")
        )
    if not asked:
        raise PostError(tr("not posted: you said no."))


def _record(journal: Journal, entry: Entry, pid: str, floor: int | None = None) -> str | None:
    """The post made, into the journal; why it could not be written (a full disk, a folder
    made read-only since), or None."""
    try:
        journal.end(entry, POSTED, pid, floor)
    except OutputError as exc:
        return clause(exc)
    return None


def _posted_unrecorded(day: Day, kind: Announcement, pid: str, floor: int | None, link: str,
                       journal: Journal, why: str) -> OutputError:  # fmt: skip
    """The post is made and the journal does not say so: the sentence says it is made, where,
    and what to do (the mark finds it again, the journal's line by hand says which it was)."""
    fields = dict(day=day.day, kind=kind, pid=pid, link=link, why=why, floor=floor,
                  folder=journal.path.parent)  # fmt: skip
    if floor is None:
        return OutputError(tr(
            "day {day}'s {kind} is posted (pid {pid}, {link}), but the journal of posts "
            "could not record it ({why}): do not post it again (tally finds it by its mark in the "
            "thread); once {folder} can be written, run `tally announce --day "
            "{day} --kind {kind} --post` once, which finds the post and records it.", **fields))
    return OutputError(tr(
        "day {day}'s {kind} is posted (floor {floor}, pid {pid}, {link}), but the journal of posts "
        "could not record it ({why}): do not post it again (tally finds it by its mark in the "
        "thread); once {folder} can be written, run `tally announce --day "
        "{day} --kind {kind} --post` once, which finds the post and records it.", **fields))


def resting_on(day: Day, kind: Announcement, unchecked: Sequence[str]) -> None:
    """Never a result that rests on a day tally could not count: who that day made sheriff or
    put out is the game file's word alone, and a sheriff left out of the file turns a tie
    into "nobody out" (seen on a real board: an unattended watch posted it)."""
    if unchecked and Announcement(kind) is Announcement.CLOSE:
        raise PostError(
            tr("day {day}'s count rests on a day tally could not count here: "
               "{reason}; a result that may be wrong is not posted: make that "
               "day count (its sentence says how), then post.", day=day.day,
               reason=clause(unchecked[0]))
        )


def hidden_from_players(thread: Thread) -> str | None:
    """The sentence for a thread whose replies the forum shows only to their authors, the
    thread's author and moderators (回帖仅作者可见, as a moderator's page marks them): a reply
    tally posts there is hidden from the players too."""
    if not any(p.hidden == HIDDEN_REPLY for p in thread.posts[1:]):
        return None
    return tr(
        "thread {thread}'s replies are hidden from the players (回帖仅作者可见), "
        "and so is this post: they see it only as 此帖仅作者可见; post the result where they "
        "can read it too (the discussion thread).", thread=thread.thread_id
    )


def live_only(reader: Reader) -> None:
    """--post answers to the live thread: the cache or an archive is older than the post."""
    if reader.how.offline or reader.how.archive is not None:
        which = "--offline" if reader.how.offline else "--archive"
        raise PostError(
            tr("--post reads the live thread to know whether the post is there already; "
               "{which} reads an older copy of it: leave out {which} to post, or --post to "
               "print the text.", which=which)
        )


def ready(game: Game, ref: ThreadRef, page: int, reader: Reader) -> ReplyForm:
    """The reply form as the cookies' member has it, checked: logged in, as a director of
    the game. The platform's client interface's where the board serves it (a phone client's
    JSON), else the one on the thread's page ``page``. `tally watch --post` asks this at
    its start, so that a wrong cookie file is said hours before the close, not at it."""
    platform = platform_of(ref)
    if platform.no_posting:
        raise PostError(platform.no_posting)
    form = _interface_form(platform, ref, reader) or _page_form(platform, ref, page, reader)
    member_check(form, ref.base)
    who = game.author(form.member, None, form.uid)
    if not who.is_director:
        # A look-alike by its name alone (the file gives the director no id) has no uid to say.
        named = dict(member=form.member, uid=form.uid, director=who.lookalike,
                     their=who.lookalike_id)  # fmt: skip
        also = ""
        if who.lookalike and who.lookalike_id:
            also = tr(" ({member} is uid {uid}; the director {director} is uid {their})", **named)
        elif who.lookalike:
            also = tr(" ({member} is uid {uid}, not the director {director}'s)", **named)
        raise PostError(
            tr("the cookies log tally in as {member}, who is not a director of "
               "{where}{also}: tally posts as the director only (add the account to "
               "directors if it is one).", member=form.member, where=game.where(), also=also)
        )
    person_check(form)
    return form


def _interface_form(platform: Platform, ref: ThreadRef, reader: Reader) -> ReplyForm | None:
    """The form of the platform's client interface; None where the platform has none, or
    the board does not serve it (said in a warning, which a run says once)."""

    def ask(url: str) -> Response:
        # The member's own client, as the reply form is: not robots.txt's to answer (a board's
        # may forbid /api/ as it forbids the path through which every browser posts).
        return reader.http.request(url, robots=False)

    got = platform.interface_form(ref, ask)
    if isinstance(got, Unserved):
        if reader.how.warn is not None:
            reader.how.warn(tr("{why}: tally posts through the thread page's reply form.",
                               why=got.why))
        return None
    return got


def _page_form(platform: Platform, ref: ThreadRef, page: int, reader: Reader) -> ReplyForm:
    """The reply form on the thread's page ``page``, as the cookies' member sees it."""
    page_url = platform.page_url(ref, page)
    answer = reader.page(page_url)
    if answer.status != 200:
        raise FetchError(tr("{url} answered HTTP {status}: no form to post with.", url=page_url,
                            status=answer.status))
    content_type = answer.headers.get("content-type")
    text = decode_page(answer.body, content_type, source=page_url)
    form = platform.reply_form(text, page_url, charset_of(answer.body, content_type))
    if form is None:
        raise PostError(
            tr("{url} has no reply box (the thread is closed, or the board's theme puts it "
               "elsewhere): post by hand.", url=page_url)
        )
    return form


def _read(reader: Reader, url: str, game: Game) -> Thread:
    [thread] = reader.read([url], game.timezone)
    return thread


def _live(reader: Reader, url: str, game: Game, closes: datetime | None = None) -> Thread:
    """The thread as the forum shows it now, every page from the forum: tally's own post
    is looked for in all of it, whenever it was made (by either clock), and no page cached
    before it was made may hide it."""
    return reader.thread(url, game.timezone, live=True, closes=closes)


def _never_twice(
    game: Game, day: Day, kind: Announcement, thread: Thread, journal: Journal, text: str
) -> None:
    """Stop when the thread (or the journal) says the post is made: a director's post with
    the mark; the journal's post by its id, shown by a director's account, edited or not;
    a director's post that is this announcement with its mark taken out (``edited_copy``:
    another machine, no journal); a journal entry of a post the thread does not show."""
    cast = game.cast()
    found = marked_post(game, day, kind, thread, cast=cast)  # whenever posted
    entries = [e for e in journal.of(game.id, day.day, kind) if e.open]
    if found is not None:
        for e in entries:
            if e.pid is None:
                journal.end(e, POSTED, found.post_id, found.floor)
        raise AlreadyPosted(
            tr("floor {floor} of the thread already holds this post "
               "({mark}), posted by {author} at {time}: tally posts it once.", floor=found.floor,
               mark=mark(game, day.day, kind), author=found.author, time=short(found.time))
        )
    own = mark(game, day.day, kind)
    shown = {p.post_id: p for p in thread.posts if cast.of(p).is_director}
    for e in reversed(entries):
        kept = shown.get(e.pid) if e.pid is not None else None
        if kept is not None:  # the post tally made, its mark edited away: still the post
            said = dict(day=day.day, kind=kind, floor=kept.floor, pid=kept.post_id, mark=own,
                        author=kept.author, time=short(kept.time), path=journal.path)  # fmt: skip
            if own in kept.text:
                raise AlreadyPosted(tr(
                    "day {day}'s {kind} is already posted as floor {floor} (pid "
                    "{pid}), edited since (its mark {mark} is no longer its last line), by "
                    "{author} at {time}, as the journal of posts ({path}) says: "
                    "tally posts it once.", **said))
            raise AlreadyPosted(tr(
                "day {day}'s {kind} is already posted as floor {floor} (pid "
                "{pid}), edited since (its mark {mark} is gone), by {author} "
                "at {time}, as the journal of posts ({path}) says: "
                "tally posts it once.", **said))
    copy = edited_copy(game, day, kind, thread, text)
    if copy is not None:
        raise AlreadyPosted(
            tr("floor {floor} (pid {pid}), by {author} at "
               "{time}, is this post without its mark {mark} (its heading and last "
               "line, {ends}, are there): tally posts it once; to post it again "
               "anyway, paste by hand what `tally announce --day {day} --kind {kind}` "
               "prints.", floor=copy.floor, pid=copy.post_id, author=copy.author,
               time=short(copy.time), mark=own, ends=ends_said(text, own), day=day.day,
               kind=kind)
        )
    posted = next((e for e in reversed(entries) if e.pid is not None), None)
    if posted is not None:
        raise AlreadyPosted(
            tr("the journal of posts ({path}) says tally posted day {day}'s {kind} "
               "at {time} as post {pid}, which the thread does "
               "not show now (deleted, or held for a moderator): tally posts it once; look at the "
               "thread.", path=journal.path, day=day.day, kind=kind,
               time=posted.at[:16].replace("T", " "), pid=posted.pid)
        )
    if entries:
        e = entries[-1]
        raise MaybePosted(
            tr("tally sent day {day}'s {kind} at {time} and never "
               "heard the forum's answer; {not_found}. If it is not there, "
               "delete that line of {path} and post again.", day=day.day, kind=kind,
               time=e.at[:16].replace("T", " "), not_found=_not_found(game, day, kind),
               path=journal.path)
        )


def _not_found(game: Game, day: Day, kind: Announcement) -> str:
    return tr(
        "the thread read again shows no post of it (no director's post with "
        "{mark}): look at the thread before posting again (a moderator "
        "may hold it)", mark=mark(game, day.day, kind)
    )


def _look_for(reader: Reader, url: str, game: Game, day: Day, kind: Announcement,
              journal: Journal, entry: Entry) -> Post | None:  # fmt: skip
    """After an answer tally could not read (so recorded): the thread, for the post
    (recorded if found)."""
    journal.end(entry, UNKNOWN)
    try:
        live = _live(reader, url, game, day.closes)
        found = marked_post(game, day, kind, live, cast=game.cast())
    except FetchError:
        return None
    if found is not None:
        journal.end(entry, POSTED, found.post_id, found.floor)
    return found


def _read_back(
    reader: Reader, url: str, game: Game, pid: str, text: str
) -> tuple[int | None, str | None]:
    try:
        thread = _read(reader, url, game)
    except FetchError as exc:  # posted: the read back alone failed; never "--offline" here
        said = clause(exc.failure or str(exc))
        return None, tr(
            "post {pid} was made, and the thread could not be read back ({reason}): look at the "
            "thread", pid=pid, reason=said
        )
    found = next((p for p in thread.posts if p.post_id == pid), None)
    if found is None:
        return None, tr(
            "the thread does not show post {pid}: held for a moderator to approve (审核, the "
            "forum's answer did not say so), or deleted since; the players do not see it: look "
            "at the thread before posting again (tally will not post it twice)", pid=pid
        )
    return found.floor, difference(text, found.text)
