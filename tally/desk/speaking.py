"""The desk's language: the director's choice where one was said (``TALLY_LANG``, the config
file, the locale), else the browser's ``Accept-Language``, request by request. The day's
pollers count in the language of the latest page asked for (their sentences are the page's
next)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from tally import i18n
from tally.i18n import Choice, Language


def accepted(header: str) -> Language | None:
    """The language the browser prefers among tally's (``zh-CN,zh;q=0.9,en;q=0.8``), or None
    when it names none of them."""
    ranked: list[tuple[float, int, Language]] = []
    for place, part in enumerate(header.split(",")):
        name, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        language = i18n.language_of(name) if name and name != "*" else None
        if language is not None and quality > 0:
            ranked.append((-quality, place, language))
    return min(ranked)[2] if ranked else None


class Speaking:
    """ASGI middleware: each request answered in the desk's language (``heard`` is told the
    language of each page asked, for the pollers)."""

    def __init__(self, app: ASGIApp, choice: Choice, heard: Callable[[Language], None]):
        self.app, self.choice, self.heard = app, choice, heard

    def language_of(self, scope: Scope) -> Language:
        if self.choice.said:
            return self.choice.language
        for key, value in scope.get("headers", ()):
            if key.lower() == b"accept-language":
                found = accepted(value.decode("latin-1"))
                if found is not None:
                    return found
        return self.choice.language

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language = self.language_of(scope)
        self.heard(language)
        with i18n.speaking(language):
            await self.app(scope, receive, send)


def html_lang() -> str:
    """The page's ``lang`` attribute: the language its words are written in (a browser
    picks its fonts, its line breaking and its screen reader's voice by it)."""
    return "zh-CN" if i18n.current() is Language.ZH else "en"
