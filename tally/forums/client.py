"""The httpx client a run makes for its requests (``tally.forums.http.Http``, at the first
request): httpx imported without its own command-line tool, and one TLS context a process.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any

from tally.environment import HttpOptions
from tally.imports import import_without

if TYPE_CHECKING:
    import ssl
    from http.cookiejar import CookieJar

    import httpx


def new_client(options: HttpOptions, jar: CookieJar | None) -> httpx.Client:
    """A client as ``options`` say, sending the cookies of ``jar``."""
    import_httpx()
    import httpx

    return httpx.Client(
        headers={"User-Agent": options.user_agent, "Accept-Encoding": "gzip, deflate"},
        timeout=options.timeout,
        # Redirects are followed by hand, so that robots.txt is asked for each target.
        follow_redirects=False,
        cookies=jar,
        verify=_tls(),
        limits=httpx.Limits(max_connections=options.max_in_flight * 4),
    )


def import_httpx() -> None:
    """httpx imported without its own command-line tool, which tally never runs.

    httpx/__init__.py runs ``from ._main import main`` for its ``httpx`` command, and defines
    a ``main`` of its own when that import fails (an install without httpx[cli]). httpx._main
    imports click, pygments, rich.syntax and rich.progress: ~40-60 ms of CPU of every tally
    process that reads a forum, and no part of httpx's client uses it (tally.imports keeps it
    out). ``httpx.main`` is then httpx's own, imported when it is called (``_httpx_main``). An
    httpx already imported (by a program that embeds tally, or the tests) is left as it is.
    """
    if "httpx" in sys.modules:  # each request asks: no lock once it is
        return
    if import_without("httpx", ["httpx._main"]):
        import httpx

        setattr(httpx, "main", _httpx_main)  # noqa: B010 - mypy: a module's function


def _httpx_main(*args: Any, **kwargs: Any) -> Any:
    """``httpx.main``, httpx's command line (a click command), imported when it is run."""
    from httpx._main import main

    return main(*args, **kwargs)


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context a process: loading the CA bundle takes ~20 ms, as long as a request."""
    import ssl

    import certifi  # httpx's own CA bundle

    return ssl.create_default_context(cafile=certifi.where())
