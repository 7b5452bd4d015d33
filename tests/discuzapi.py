"""The mobile interface (``api/mobile/index.php``) of the loopback Discuz! board
(tests/discuzboard.py): ``module=check``, ``viewthread``, ``secure`` and ``sendreply``, in the
shapes a real Discuz! X3.5 gave (fixtures/discuz-api-post: the answers as it sent them, the
session's secrets scrubbed), with the board's own values where those stand: its members, its
threads, its charset, and the session's ``auth``, ``saltkey`` and ``formhash`` echoed as a real
board echoes them, so that a test can look for them wherever tally writes.

Switched off as a board's admin switches it off: ``closed`` (开启手机版 off: ``check``
answers as before, every other module ``{"error":"mobile_is_closed"}``), ``plugin_off`` (the
掌上论坛 plugin disabled: ``check`` answers ``{"testcookie":null}``, ``viewthread`` the touch
theme's HTML page). ``viewthread``'s post list and ``viewcomment``'s pages are the thread's, as a real X3.5's
interface shows them (tests/discuzjson.py): tally reads the board through them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from tally.demo.localforum import Reply

from . import discuzjson
from .conftest import FIXTURES
from .discuzgen import Thread

if TYPE_CHECKING:
    from .discuzboard import Board, Member

FOLDER = FIXTURES / "discuz-api-post"
ON, CLOSED, PLUGIN_OFF = "on", "closed", "plugin_off"
_CHINA = timezone(timedelta(hours=8))
# Headers of a capture that belong to that answer alone (the loopback sends its own).
_ITS_OWN = {"set-cookie", "host", "date", "connection", "x-powered-by", "status", "vary"}


@dataclass(frozen=True)
class Captured:
    """One answer as the real X3.5 sent it: its status, headers and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def captured(name: str) -> Captured:
    """``fixtures/discuz-api-post/NAME.txt``'s answer."""
    text = (FOLDER / f"{name}.txt").read_text(encoding="utf-8")
    head, _, body = text.split("### RESPONSE\n", 1)[1].partition("\n\n")
    status_line, *lines = head.splitlines()
    headers = {}
    for line in lines:
        name_, _, value = line.partition(": ")
        if name_.lower() not in _ITS_OWN:
            headers[name_] = value
    return Captured(int(status_line.split()[1]), headers, body.encode("utf-8"))


def php_json(data: Any) -> bytes:
    """As PHP's json_encode writes it: ASCII (\\uXXXX), no spaces, "/" escaped."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/").encode()


def answer(board: Board, module: str, query: dict[str, str], who: Member | None,
           cookies: dict[str, str]) -> Reply | None:  # fmt: skip
    """The interface's answer to a GET of ``module`` (None: not one it serves)."""
    if module == "check":
        name = "off_plugin_disabled_check" if board.interface == PLUGIN_OFF else "check_module"
        got = captured(name)
        data = got.json()
        if "charset" in data:
            data["charset"] = board.charset
        return Reply(200, php_json(data), got.headers)
    if board.interface == CLOSED:
        return _json(captured("off_allowmobile0_viewthread").json())
    if module == "secure":  # what a post must carry; X3.5 on PHP 8 fails when it is nothing
        if not board.seccode_form:
            got = captured("secure_post_off_dave")
            return Reply(got.status, got.body, got.headers)
        data = captured("secure_post_seccode_dave").json()
        data["Variables"].update(_session(board, who, cookies))
        return _json(data, board)
    if module == "viewcomment":
        return _comments(board, query, who, cookies)
    if module != "viewthread":
        return None
    if board.interface == PLUGIN_OFF:
        got = captured("off_plugin_disabled_viewthread")
        return Reply(got.status, got.body, got.headers)
    data = captured("vt_t1_p1_alice" if who is not None else "vt_t1_p1_guest").json()
    data["Variables"].update(_session(board, who, cookies))
    thread = board.threads.get(query.get("tid", ""))
    if thread is None:
        data["Variables"]["postlist"] = []
        data["Message"] = {"messageval": "thread_nonexistence", "messagestr": "thread_nonexistence"}
        return _json(data, board)
    ppp = int(query.get("ppp") or 10)
    page = max(1, int(query.get("page") or 1))
    version = query.get("version", "4")
    said = discuzjson.variables(thread, page, ppp, board.forum.url(""), version, _now(board))
    data["Version"] = version
    data["Variables"]["thread"].update(said.pop("thread"), **_thread(board, thread))
    data["Variables"].update(said)
    return _json(data, board)


def _now(board: Board) -> datetime | None:
    """When the board answers, where it shows times counted back from it (人性化时间 on)."""
    return board.clock() if board.dateconvert and board.clock is not None else None


def _comments(board: Board, query: dict[str, str], who: Member | None,
              cookies: dict[str, str]) -> Reply:  # fmt: skip
    """``viewcomment``: five 点评 of a floor a page, newest first."""
    data = captured("vt_t1_p1_alice" if who is not None else "vt_t1_p1_guest").json()
    variables = {k: v for k, v in data["Variables"].items() if k not in ("thread", "postlist")}
    variables.update(_session(board, who, cookies))
    thread = board.threads.get(query.get("tid", ""))
    page = max(1, int(query.get("page") or 1))
    if thread is not None:
        variables.update(discuzjson.comment_page(thread, query.get("pid", ""), page, _now(board)))
    return _json({"Version": "4", "Charset": "UTF-8", "Variables": variables}, board)


def sendreply(board: Board, who: Member | None, cookies: dict[str, str], tid: str, key: str,
              pid: int | None) -> Reply:  # fmt: skip
    """The answer to a reply sent through the interface: ``key`` is Discuz!'s message
    (post_reply_succeed, post_flood_ctrl, …), ``pid`` the new post's (held or shown)."""
    if board.interface == CLOSED:
        return _json(captured("off_allowmobile0_viewthread").json())
    data = captured("sendreply_success_bob" if who is not None else "sendreply_guest_session").json()
    data["Variables"].update(_session(board, who, cookies), tid=tid, pid=str(pid or 0))
    shown = f"{key}//1" if key.endswith("_nopermission") else key
    data["Message"] = {"messageval": shown, "messagestr": f"mobile:{key}"}
    return _json(data, board)


def system_error() -> Reply:
    """X3.5's 503 "System Error" page (a form hash the session was not given)."""
    got = captured("sendreply_wrongformhash_dave")
    return Reply(got.status, got.body, got.headers)


def moved(board: Board, tid: str) -> Reply:
    """The 302 to the touch page that the first request after a deletion or a held reply
    gets (the forum renumbering the thread)."""
    got = captured("vt_t1_pendingmod_guest_1st_302")
    location = board.forum.url(f"forum.php?mod=viewthread&tid={tid}&page=1&mobile=1")
    return Reply(302, b"", {**got.headers, "Location": location})


def _session(board: Board, who: Member | None, cookies: dict[str, str]) -> dict[str, Any]:
    # What every answer echoes: the session's secrets and its member.
    from .discuzboard import GUEST_FORMHASH, PREFIX

    uid = who.uid if who is not None else 0
    return {
        "cookiepre": PREFIX,
        "auth": who.auth if who is not None else None,
        "saltkey": cookies.get(f"{PREFIX}saltkey") or board.saltkey,
        "member_uid": str(who.uid) if who is not None else "0",
        "member_username": who.name if who is not None else "",
        "formhash": who.formhash if who is not None else GUEST_FORMHASH,
        "member_avatar": board.forum.url(f"uc_server/avatar.php?uid={uid}&size=small&ts=1"),
    }


def _thread(board: Board, thread: Thread) -> dict[str, str]:
    # The board's own say over the thread: closed by a moderator.
    return {"closed": "1" if thread.tid in board.closed else "0"}


def _json(data: Any, board: Board | None = None) -> Reply:
    if board is not None and "Charset" in data:
        data["Charset"] = board.charset.upper()
    return Reply(200, php_json(data), {"Content-type": "application/json"})
