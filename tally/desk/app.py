"""The desk's pages and actions (Starlette). Each page asks ``tally.desk.state`` for what
the matching command computes and renders it (``tally.desk.views``); the guard in front
(``tally.desk.guard``) refuses every request without the desk's token and every change
that comes from another page."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tally.desk import views
from tally.desk.guard import Guard
from tally.desk.posted import Sent
from tally.desk.state import Desk, text_digest
from tally.errors import InputError, PostError, TallyError
from tally.vocabulary import Announcement

STATIC = Path(__file__).parent / "static"
# How often a stream sends the count again when nothing changed: the clocks move.
TICK = 30.0
# How often a stream looks at the game file (a few stat calls): a change counts again.
LOOK = 1.0
# The page's own script and style only; nothing from elsewhere, no inline script.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
          "frame-ancestors 'none'")  # fmt: skip


def make_app(desk: Desk, token: str, port: int) -> Guard:
    """The desk's ASGI app for ``desk``, answering at 127.0.0.1:``port`` to ``token``."""
    said: dict[int, list[str]] = {}

    # Referrer-Policy same-origin, not no-referrer: under no-referrer Chromium sends
    # "Origin: null" with a form POST, and the guard refuses the desk its own forms.
    def html(name: str, **context: Any) -> HTMLResponse:
        seen = desk.file.now()  # the game file as it is now: a day added is in the bar
        body = views.page(name, token=token, game_name=seen.game.name,
                          day_numbers=[d.day for d in seen.game.days],
                          file_problem=views.file_problem(seen), **context)  # fmt: skip
        return HTMLResponse(body, headers={"Content-Security-Policy": POLICY,
                                           "Cache-Control": "no-store",
                                           "X-Content-Type-Options": "nosniff",
                                           "Referrer-Policy": "same-origin"})  # fmt: skip

    def number(request: Request) -> int:
        try:
            n = int(request.path_params["day"])
            desk.day(n)
        except (ValueError, TallyError):
            raise _NotFound from None
        return n

    def polls() -> dict[int, Any]:
        return {n: p.poll for n, p in desk.pollers.items()}

    def home(request: Request) -> Response:
        for n in desk.opened():
            desk.poller(n)  # each day counted once, the open one polled
        game = desk.game
        done = {d.day for d in game.days if (sent := _sent(d.day)) is not None and sent.answered}
        shown = views.game_view(game, desk.reader.now(), polls(), done)
        return html("game.html.j2", page="game", game=shown)

    def _sent(n: int) -> Sent | None:
        """The day's closing post as the game page says it; a journal that cannot be read
        is said on the Post page, where it stops the post."""
        try:
            return desk.posted(n)
        except TallyError:
            return None

    def live_context(n: int) -> dict[str, Any]:
        poller = desk.poller(n)
        shown = views.live_view(desk.game, poller.poll, poller.error, desk.reader.now())
        return {**shown, "recounting": poller.why if not poller.counted else ""}

    def day(request: Request) -> Response:
        n = number(request)
        return html("day.html.j2", page="count", day=n, live=live_context(n),
                    said=said.pop(n, []))  # fmt: skip

    def live(request: Request) -> Response:
        n = number(request)
        return html("live.html.j2", live=live_context(n))

    async def events(request: Request) -> Response:
        n = number(request)
        poller = desk.poller(n)

        # Open while the page is: a closed day's final count is counted again when the game
        # file changes (a ruling written at the close), and the page shows it.
        async def stream() -> Any:
            nonlocal poller
            seen, last, looked = -1, 0.0, anyio.current_time()
            while not desk.stopped.is_set():
                now = anyio.current_time()
                if now - looked >= LOOK:
                    looked = now
                    try:  # the poller counting with the file as it is now
                        poller = await run_in_threadpool(desk.poller, n)
                    except TallyError:
                        return  # the day is gone from the game file
                version = poller.version
                if version != seen or (now - last >= TICK and not poller.done):
                    seen, last = version, now
                    body = await run_in_threadpool(
                        lambda: views.page("live.html.j2", live=live_context(n)))
                    yield {"event": "count", "data": body, "id": str(version)}
                await anyio.sleep(0.25)

        return EventSourceResponse(stream(), ping=15, headers={"Cache-Control": "no-store"})

    def read_now(request: Request) -> Response:
        n = number(request)
        desk.poller(n, again=True).read_now()
        return RedirectResponse(f"/day/{n}", status_code=303)

    def cards(request: Request) -> Response:
        n = number(request)
        try:
            done, error = desk.lurkers(n), None
        except TallyError as exc:
            done, error = None, str(exc)
        return html("cards.html.j2", page="cards", day=n, lurkers=views.lurkers_view(done, error),
                    said=said.pop(n, []))  # fmt: skip

    async def confirm_card(request: Request) -> Response:
        n = number(request)
        form = await _form(request)
        fields = [str(form.get(k, "")) for k in ("player", "colour", "rule", "reason")]
        try:
            view = await run_in_threadpool(desk.confirm_card, n, *fields)
            news = [f"{c.colour.label} {c.player} {c.rule}" for c in view.new]
            message = (f"added to the ledger {view.path.name}: {', '.join(news)}" if view.written
                       else "already in the ledger: nothing written")  # fmt: skip
        except TallyError as exc:
            message = f"not added: {exc}"
        said.setdefault(n, []).append(message)
        return RedirectResponse(f"/day/{n}/cards", status_code=303)

    def announcements(request: Request) -> Response:
        n = number(request)
        shown = []
        markup = desk.reader.markup_for(desk.day(n).vote_ref)
        closed = desk.closed(n)
        for kind in views.KINDS:
            if kind is Announcement.REMINDER and closed:  # the close announcement is above
                shown.append(views.no_reminder(desk.day(n)))
                continue
            try:
                done, error = desk.announcement(n, kind), None
            except TallyError as exc:
                done, error = None, str(exc)
            shown.append(views.announcement_view(kind, done, error, markup))
        return html("posts.html.j2", page="posts", day=n, posts=shown)

    def pictures(request: Request) -> Response:
        n = number(request)
        poller = desk.poller(n)
        result = poller.poll.result if poller.poll is not None else None
        return html("pictures.html.j2", page="pictures", day=n,
                    charts=views.charts_view(result))  # fmt: skip

    def confirm_post(request: Request) -> Response:
        n = number(request)
        text, error, before = "", None, None
        try:
            before = desk.posted(n)
            if before is None or not before.answered:  # posted: said, nothing to post
                text = closing_text(n)
        except TallyError as exc:
            error = str(exc)
        return html("post.html.j2", page="post", day=n, text=text, error=error,
                    digest=text_digest(text), before=views.sent_view(before),
                    result=None)  # fmt: skip

    def closing_text(n: int) -> str:
        """What the Post button sends, mark and all, with the game file as it is now."""
        if not desk.closed(n):
            raise InputError(
                f"day {n} has not closed: a provisional count (暂计) is never posted; "
                "post the result after the close.")  # fmt: skip
        shown = desk.announcement(n, Announcement.CLOSE)
        return shown.as_posted or shown.text

    async def post(request: Request) -> Response:
        n = number(request)
        form = await _form(request)
        error, result, before = None, None, None
        text = ""
        try:
            before = await run_in_threadpool(desk.posted, n)
            if before is not None and before.answered:  # said before the thread is read again
                raise PostError(f"day {n}'s result is posted already: "
                                f"{views.sent_sentence(before)}; tally posts it once.")  # fmt: skip
            shown = await run_in_threadpool(desk.announcement, n, Announcement.CLOSE)
            text = shown.as_posted or shown.text
            if str(form.get("digest", "")) != text_digest(text):
                raise InputError("the count changed since the text was shown: read it again "
                                 "before posting.")  # fmt: skip
            confirmed = str(form.get("digest", ""))
            done = await run_in_threadpool(lambda: desk.announcement(
                n, Announcement.CLOSE, post=True, confirmed=confirmed))  # fmt: skip
            if done.failure is not None:
                raise done.failure
            if done.posted is not None:
                result = views.posted_view(done.posted)
        except TallyError as exc:
            error = str(exc)
        known = views.sent_view(before) if result is None else None
        return html("post.html.j2", page="post", day=n, text=text, error=error,
                    digest=text_digest(text), before=known, result=result)  # fmt: skip

    routes = [
        Route("/", home),
        Route("/day/{day}", day),
        Route("/day/{day}/live", live),
        Route("/day/{day}/events", events),
        Route("/day/{day}/read", read_now, methods=["POST"]),
        Route("/day/{day}/cards", cards),
        Route("/day/{day}/cards", confirm_card, methods=["POST"]),
        Route("/day/{day}/posts", announcements),
        Route("/day/{day}/pictures", pictures),
        Route("/day/{day}/post", confirm_post),
        Route("/day/{day}/post", post, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return Response("no such page of the desk\n", status_code=404, media_type="text/plain")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(desk.close)  # the pollers stop with the server

    app = Starlette(routes=routes, exception_handlers={_NotFound: not_found},
                    lifespan=lifespan)  # fmt: skip
    return Guard(app, token, port)


class _NotFound(Exception):
    pass


async def _form(request: Request) -> dict[str, str]:
    """The page's forms are urlencoded (the guard has read and kept the body)."""
    from urllib.parse import parse_qs

    fields = parse_qs((await request.body()).decode("utf-8", "replace"))
    return {k: v[0] for k, v in fields.items()}
