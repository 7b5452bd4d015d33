"""A double of Tieba's client API, its answers built with aiotieba's own protobuf classes.

It serves ``POST /c/f/pb/page?cmd=302001`` and ``POST /c/f/pb/floor?cmd=302002`` on a
LocalForum, reading each request as the client sends it (a multipart form whose part
``data`` holds PbPageReqIdl / PbFloorReqIdl) and answering with PbPageResIdl /
PbFloorResIdl filled from a scenario (a ``tiebagen.TiebaThread``): 30 floors a page,
deleted floors left out, 10 楼中楼 a page, users in ``user_list`` (floors) and in each
楼中楼's ``author``. ``aiotieba.Client`` itself reads it (tests/test_reading_tieba_api.py), which is
what shows the double speaks what aiotieba speaks, and so what tally's requests must.

Faults for the tests: ``errors`` holds replies for the next API calls (an HTTP status, or
an error number in a 200 answer), taken in order.
"""

from __future__ import annotations

import email.parser
import email.policy
import functools
import re
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from tally.demo.localforum import LocalForum, Reply

from .tiebagen import CHINA, TiebaThread


@functools.cache
def pb() -> Any:
    """aiotieba's protobuf classes of the two calls, imported when a test first serves the API:
    aiotieba's package imports its whole client (aiohttp among it), 0.4 s that every worker
    paid as it collected the tests, where one runs them (conftest.py: TIEBA)."""
    from aiotieba.api.get_comments.protobuf import PbFloorReqIdl_pb2, PbFloorResIdl_pb2
    from aiotieba.api.get_posts.protobuf import PbPageReqIdl_pb2, PbPageResIdl_pb2

    return SimpleNamespace(
        PbPageReqIdl=PbPageReqIdl_pb2.PbPageReqIdl, PbPageResIdl=PbPageResIdl_pb2.PbPageResIdl,
        PbFloorReqIdl=PbFloorReqIdl_pb2.PbFloorReqIdl,
        PbFloorResIdl=PbFloorResIdl_pb2.PbFloorResIdl,
    )


PROTO = {"Content-Type": "application/x-protobuf"}
REPLY = re.compile(r"^回复 (\S+) :(.*)$", re.S)
FLOORS_PER_PAGE = 30
COMMENTS_PER_PAGE = 10


def unix(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).replace(tzinfo=CHINA).timestamp())


def form_data(headers: dict[str, str], body: bytes) -> bytes:
    """The ``data`` part of a multipart body, read with the standard library's parser.

    compat32: the client's boundary ``-*_r1999`` goes unquoted, and the newer policy reads
    its ``*`` as an RFC 2231 marker.
    """
    message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(
        b"Content-Type: " + headers["content-type"].encode() + b"\r\n\r\n" + body
    )
    assert message.is_multipart(), headers["content-type"]
    for part in message.get_payload():
        if part.get_param("name", header="content-disposition") == "data":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload
    raise AssertionError("no part named data")


@dataclass
class Fault:
    status: int = 200
    errorno: int = 0
    errmsg: str = ""
    headers: dict[str, str] = field(default_factory=dict)


class TiebaApi:
    def __init__(self, thread: TiebaThread, *, reply_num: int | None = None):
        self.thread = thread
        self.reply_num = reply_num
        self.errors: list[Fault] = []
        # User ids in the order accounts first appear, whatever order the calls come in.
        for floor in thread.floors:
            thread.uid(floor.author)
            for comment in floor.comments:
                thread.uid(comment.author)
        # What was asked, in order: ("page", pn) and ("floor", pid, pn).
        self.asked: list[tuple[object, ...]] = []
        self.headers: list[dict[str, str]] = []

    # -- the scenario ----------------------------------------------------------------------

    def live(self) -> list[tuple[int, object]]:
        return [(i + 1, p) for i, p in enumerate(self.thread.floors) if not p.deleted]

    def page_count(self) -> int:
        return max(1, -(-len(self.live()) // FLOORS_PER_PAGE))

    def _user(self, target: object, account: str) -> None:
        target.id = self.thread.uid(account)
        target.name = account
        target.name_show = self.thread.shown(account)
        target.portrait = f"tb.1.{self.thread.uid(account):x}.portrait"

    def _content(self, target: object, text: str, parts: list) -> None:
        if not parts:
            parts = [(0, {"text": text})]
            reply = REPLY.match(text)
            if reply:  # how the client writes a 楼中楼 that answers someone: 回复 @X :…
                name, rest = reply.groups()
                account = next((a for a, n in self.thread.nicknames.items() if n == name), name)
                at = {"text": name, "uid": self.thread.uid(account)}
                parts = [(0, {"text": "回复 "}), (4, at), (0, {"text": f" :{rest}"})]
        for kind, fields in parts:
            frag = target.add()
            frag.type = kind
            for name, value in fields.items():
                setattr(frag, name, value)

    # -- answers ----------------------------------------------------------------------------

    def page(self, pn: int) -> bytes:
        t = self.thread
        res = pb().PbPageResIdl()
        data = res.data
        data.forum.id, data.forum.name = t.fid, t.forum
        live = self.live()
        pages = self.page_count()
        pn = min(max(pn, 1), pages)  # past the end: the last page, as Baidu answers
        data.page.page_size = FLOORS_PER_PAGE
        data.page.current_page = pn
        data.page.total_page = pages
        data.page.total_count = len(live)
        data.page.has_more = int(pn < pages)
        data.page.has_prev = int(pn > 1)
        data.thread.id = int(t.tid)
        data.thread.title = t.title
        data.thread.reply_num = self.reply_num if self.reply_num is not None else len(live) - 1
        first = t.floors[0]
        data.thread.author_id = t.uid(first.author)
        self._user(data.thread.author, first.author)
        users = set()
        for floor, p in live[(pn - 1) * FLOORS_PER_PAGE : pn * FLOORS_PER_PAGE]:
            post = data.post_list.add()
            post.id = t.pid(floor)
            post.floor = floor
            post.time = unix(p.time)
            post.author_id = t.uid(p.author)
            post.sub_post_number = len(p.comments)
            self._content(post.content, p.text, p.parts)
            users.add(p.author)
        for account in sorted(users, key=t.uid):
            self._user(data.user_list.add(), account)
        return res.SerializeToString()

    def floor(self, pid: int, pn: int) -> bytes:
        t = self.thread
        res = pb().PbFloorResIdl()
        number = pid - t.pid(0)
        p = t.floors[number - 1] if 0 < number <= len(t.floors) else None
        if p is None or p.deleted:
            res.error.errorno, res.error.errmsg = 4, "贴子可能已被删除"
            return res.SerializeToString()
        data = res.data
        pages = max(1, -(-len(p.comments) // COMMENTS_PER_PAGE))
        data.page.page_size = COMMENTS_PER_PAGE
        data.page.current_page = pn
        data.page.total_page = pages
        data.page.total_count = len(p.comments)
        data.thread.id = int(t.tid)
        data.forum.id = t.fid
        data.post.id, data.post.floor = pid, number
        start = (pn - 1) * COMMENTS_PER_PAGE
        for index, c in enumerate(p.comments[start : start + COMMENTS_PER_PAGE], start=start + 1):
            sub = data.subpost_list.add()
            sub.id = t.cid(number, index)
            sub.time = unix(c.time)
            sub.author_id = t.uid(c.author)
            self._user(sub.author, c.author)
            self._content(sub.content, c.text, [])
        return res.SerializeToString()

    # -- serving -----------------------------------------------------------------------------

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> Reply:
        self.headers.append(headers)
        data = form_data(headers, body)
        if path.startswith("/c/f/pb/page"):
            req = pb().PbPageReqIdl()
            req.ParseFromString(data)
            assert req.data.kz == int(self.thread.tid) and req.data.rn == FLOORS_PER_PAGE
            self.asked.append(("page", req.data.pn))
            if fault := self._fault(pb().PbPageResIdl):
                return fault
            return Reply(200, self.page(req.data.pn), PROTO)
        if path.startswith("/c/f/pb/floor"):
            floor_req = pb().PbFloorReqIdl()
            floor_req.ParseFromString(data)
            self.asked.append(("floor", floor_req.data.pid, floor_req.data.pn))
            if fault := self._fault(pb().PbFloorResIdl):
                return fault
            return Reply(200, self.floor(floor_req.data.pid, floor_req.data.pn), PROTO)
        return Reply(404, b"no such API", {"Content-Type": "text/plain"})

    def _fault(self, message: type) -> Reply | None:
        if not self.errors:
            return None
        fault = self.errors.pop(0)
        if fault.status != 200:
            return Reply(fault.status, b"busy", {"Content-Type": "text/plain", **fault.headers})
        res = message()
        res.error.errorno, res.error.errmsg = fault.errorno, fault.errmsg
        return Reply(200, res.SerializeToString(), PROTO)

    def serve(self, forum: LocalForum) -> str:
        """Answer the API on ``forum``'s own origin; the thread's URL, as a director pastes it."""

        forum.post_hook = self.answer
        return forum.url(f"p/{self.thread.tid}")

    def calls(self, kind: str) -> list[tuple[object, ...]]:
        return [a for a in self.asked if a[0] == kind]
