"""The desk's ASGI app, built from the table of its pages and actions (``tally.desk.pages``):
each page answered as HTML (its template, with the desk's key for its forms) and its JSON
twin as JSON; the day's count streamed (SSE); the guard in front (``tally.desk.guard``)
refuses every request without the desk's key, a page and its twin alike, and every change
that comes from another page."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from tally.desk import views
from tally.desk.guard import Guard
from tally.desk.pages import ACTIONS, PAGES, Action, Page, Shown, day_number, live_context
from tally.desk.speaking import Speaking
from tally.desk.state import DayPoller, Desk
from tally.errors import TallyError
from tally.i18n import tr

STATIC = Path(__file__).parent / "static"
# How often a stream sends the count again when nothing changed: the clocks move.
TICK = 30.0
# How often a stream looks at the game file (a few stat calls): a change counts again.
LOOK = 1.0
# The page's own script and style only; nothing from elsewhere, no inline script.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
          "frame-ancestors 'none'")  # fmt: skip
# Referrer-Policy same-origin, not no-referrer: under no-referrer Chromium sends
# "Origin: null" with a form POST, and the guard refuses the desk its own forms.
HEADERS = {"Content-Security-Policy": POLICY, "Cache-Control": "no-store",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}  # fmt: skip


def make_app(desk: Desk, token: str, port: int) -> Speaking:
    """The desk's ASGI app for ``desk``, answering at 127.0.0.1:``port`` to ``token``."""
    routes: list[BaseRoute] = []
    for page in PAGES:
        routes.extend(page_routes(page, desk, token))
    routes.extend(action_route(action, desk, token) for action in ACTIONS)
    routes.append(Route("/day/{day:int}/events", functools.partial(events, desk=desk)))
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(desk.close)  # the pollers stop with the server

    app = Starlette(routes=routes, exception_handlers={404: not_found}, lifespan=lifespan)
    return Speaking(Guard(app, token, port), desk.choice, desk.heard_in)


def page_routes(page: Page, desk: Desk, token: str) -> list[Route]:
    """The page as HTML at its path, and its twin as JSON (the same view)."""

    def as_html(request: Request) -> Response:
        shown = page.view(request, desk)
        said = {"said": desk.heard(request.path_params["day"])} if page.says else {}
        return html(request, desk, token, page, {**shown.values, **said})

    def as_json(request: Request) -> Response:
        return json_response(page.view(request, desk))

    routes = [Route(page.path, as_html, name=page.name)]
    if page.twin is not None:
        routes.append(Route(page.twin, as_json, name=f"{page.name}.json"))
    return routes


def action_route(action: Action, desk: Desk, token: str) -> Route:
    """The action as a POST: its view given the form; the page it answers with, or the
    page to go to (303)."""
    answers = next((p for p in PAGES if p.name == action.answers), None)

    async def endpoint(request: Request) -> Response:
        form = await _form(request)
        done = await run_in_threadpool(action.act, request, desk, form)
        if isinstance(done, str):
            return RedirectResponse(done, status_code=303)
        assert answers is not None, action.path
        return await run_in_threadpool(html, request, desk, token, answers, done.values)

    return Route(action.path, endpoint, methods=["POST"])


def html(request: Request, desk: Desk, token: str, page: Page,
         values: Mapping[str, Any]) -> HTMLResponse:  # fmt: skip
    """``page`` rendered with ``values`` and what every page shows: the game's name, its
    days (the game file as it is now: a day added is in the bar), the day's tabs, the
    file's problem, the link to the page's twin."""
    seen = desk.file.now()
    day = values.get("day")
    tabs = [{"name": p.name, "label": tr(p.tab), "href": request.app.url_path_for(p.name, day=day)}
            for p in PAGES if p.tab and day is not None]  # fmt: skip
    twin = (request.app.url_path_for(f"{page.name}.json", **request.path_params)
            if page.twin is not None else None)  # fmt: skip
    body = views.page(page.template, token=token, page=page.name, tabs=tabs, twin=twin,
                      game_name=seen.game.name, day_numbers=[d.day for d in seen.game.days],
                      file_problem=views.file_problem(seen), **values)  # fmt: skip
    return HTMLResponse(body, headers=HEADERS)


def json_response(shown: Shown) -> Response:
    """A twin's data as `--json` writes it (times in ISO 8601, the characters a terminal
    acts on escaped); 503 says the data is not there yet: ask again in a moment."""
    from tally.sanitise import json_text

    text = json_text(json.dumps(shown.data, ensure_ascii=False, indent=2, default=_iso))
    more = {"Retry-After": "1"} if shown.status == 503 else {}
    return Response(text + "\n", status_code=shown.status, media_type="application/json",
                    headers={**HEADERS, **more})  # fmt: skip


def _iso(value: object) -> str:
    from tally.times import iso

    if isinstance(value, datetime):
        return iso(value)
    raise TypeError(f"no JSON for a {type(value).__name__}")  # pragma: no cover


async def events(request: Request, desk: Desk) -> Response:
    """The day's count, sent again at each poll (a fragment of the day's page), while the
    page is open: a closed day's final count is counted again when the game file changes (a
    ruling written at the close), and the page shows it."""
    n = await run_in_threadpool(day_number, request, desk)
    return EventSourceResponse(_counts(desk, n, desk.poller(n)), ping=15,
                               headers={"Cache-Control": "no-store"})  # fmt: skip


async def _counts(desk: Desk, n: int, poller: DayPoller) -> AsyncIterator[dict[str, str]]:
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
            body = await run_in_threadpool(_live, desk, poller)
            yield {"event": "count", "data": body, "id": str(version)}
        await anyio.sleep(0.25)


def _live(desk: Desk, poller: DayPoller) -> str:
    return views.page("live.html.j2", live=live_context(desk, poller))


async def not_found(request: Request, exc: Exception) -> Response:
    said = tr("no such page of the desk")
    if request.url.path.endswith(".json"):
        return Response(json.dumps({"error": said}, ensure_ascii=False) + "\n", status_code=404,
                        media_type="application/json")  # fmt: skip
    return Response(said + "\n", status_code=404, media_type="text/plain")


async def _form(request: Request) -> dict[str, str]:
    """The page's forms are urlencoded (the guard has read and kept the body)."""
    from urllib.parse import parse_qs

    fields = parse_qs((await request.body()).decode("utf-8", "replace"))
    return {k: v[0] for k, v in fields.items()}

