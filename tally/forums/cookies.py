"""Netscape cookie files (what browser extensions, curl and yt-dlp export), read strictly.

Read by hand rather than with ``http.cookiejar.MozillaCookieJar``: that reader drops a
cookie exported with expiry 0 (a session cookie, as curl and cookies.txt extensions write
them) as long expired, decodes with the locale's encoding, prints a traceback as a warning
for a malformed line and puts the line, login token and all, into its error. Here every
file gives cookies or one sentence, and no sentence holds a cookie's value.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from http.cookiejar import Cookie, CookieJar
from pathlib import Path

from tally.errors import InputError
from tally.files import read_capped
from tally.i18n import tr

_FIELDS = 7


@dataclass(frozen=True)
class CookieFile:
    jar: CookieJar
    # The domains the file holds live cookies for, as written (".example.com").
    domains: frozenset[str]
    expired: int  # cookies left out because their expiry has passed


def _text(path: Path, raw: bytes) -> str:
    """The file's text: UTF-16 with its BOM (PowerShell writes it), else UTF-8."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(
                tr("{path} is damaged UTF-16 text; save it again as UTF-8.", path=path)
            ) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            tr(
                "{path} is not UTF-8 text (byte {byte} is not); export the cookies again or "
                "save the file as UTF-8.",
                path=path,
                byte=format(exc.start, ","),
            )
        ) from None


def load_cookies(path: Path, *, now: float | None = None) -> CookieFile:
    """A browser-exported cookie file; refused when others may read it."""
    text = _file_text(path)
    now = time.time() if now is None else now
    jar = CookieJar()
    domains: set[str] = set()
    expired = 0
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip("\r\n")
        if line.startswith("#HttpOnly_"):
            line = line[len("#HttpOnly_") :]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        cookie = _cookie(line.split("\t"), tr("{path}, line {line}", path=path, line=number))
        if cookie.expires and cookie.expires < now:
            expired += 1
            continue
        jar.set_cookie(cookie)
        domains.add(cookie.domain)
    return CookieFile(jar, frozenset(domains), expired)


def _file_text(path: Path) -> str:
    """The cookie file's text, refused when it is a folder, others may read it, or it is
    a JSON export."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(tr("{path}: no such cookie file.", path=path)) from None
    except OSError as exc:
        raise InputError(
            tr("{path}: cannot be read ({why}).", path=path, why=exc.strerror)
        ) from None
    if stat.S_ISDIR(mode):
        raise InputError(
            tr(
                "{path} is a folder; give the cookie file itself (cookies.txt, exported in "
                "Netscape format from a browser that is logged in to the board).",
                path=path,
            )
        )
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            tr(
                "{path} can be read by other users and holds your login; run: chmod 600 {path}",
                path=path,
            )
        )
    text = _text(path, read_capped(path, "cookie file"))
    if text.lstrip()[:1] in ("[", "{"):
        # EditThisCookie, Cookie-Editor and the browsers' devtools export JSON.
        raise InputError(
            tr(
                "{path} is a JSON cookie export; tally reads the Netscape cookies.txt format: "
                "export again choosing Netscape (or use an extension such as Get cookies.txt).",
                path=path,
            )
        )
    return text


def _cookie(fields: list[str], where: str) -> Cookie:
    """One line's cookie, its fields read strictly; ``where``: "cookies.txt, line 3"."""
    if len(fields) != _FIELDS:
        # Never the line itself: it may hold a login token.
        raise InputError(
            tr(
                "{where} is not a cookie line ({fields} fields separated by tabs, found "
                "{found}); tally does not print it, since it may hold your login.",
                where=where,
                fields=_FIELDS,
                found=len(fields),
            )
        )
    domain, subdomains, cookie_path, secure, expiry, name, value = fields
    if not domain.strip() or not name:
        raise InputError(tr("{where} has no domain or no cookie name.", where=where))
    if not expiry.strip().isascii() or not (expiry.strip() or "0").isdigit():
        raise InputError(
            tr("{where}: the expiry (field 5) is not a whole number of seconds.", where=where)
        )
    expires = int(expiry.strip() or "0")
    domain = domain.strip().lower()
    return Cookie(
        version=0,
        name=name,
        value=value,
        port=None,
        port_specified=False,
        domain=domain,
        domain_specified=subdomains.strip().upper() == "TRUE",
        domain_initial_dot=domain.startswith("."),
        path=cookie_path or "/",
        path_specified=True,
        secure=secure.strip().upper() == "TRUE",
        # 0: a session cookie, kept for this run (what the browser had open).
        expires=expires or None,
        discard=not expires,
        comment=None,
        comment_url=None,
        rest={},
    )


def covers(domains: frozenset[str], host: str) -> bool:
    """Whether a cookie of one of ``domains`` would be sent to ``host``."""
    host = host.lower().split(":", 1)[0]
    for domain in domains:
        bare = domain.lstrip(".")
        if host == bare or host.endswith("." + bare):
            return True
    return False
