"""Baidu Tieba threads, read through the client's protobuf API as Baidu serves them in 2026.

Baidu replaced the desktop thread page with a JavaScript front end in 2026; the maintained
way to read a thread without logging in is the API of its mobile client, which aiotieba
speaks. Two calls, both ``POST`` with a multipart form whose one part ``data`` holds the
request protobuf:

- ``/c/f/pb/page?cmd=302001``: the floors of one page of the thread (PbPageReqIdl →
  PbPageResIdl), 30 a page;
- ``/c/f/pb/floor?cmd=302002``: one page of one floor's 楼中楼 (PbFloorReqIdl →
  PbFloorResIdl), 10 a page.

aiotieba (its protobuf schemas, its request packing, its parsing into ``Posts`` and
``Comments``) does what is Tieba's; the requests go through tally's own HTTP layer, so
the limits, retries, cache and completeness checks of every forum hold here too. The API
is asked on tiebac.baidu.com for a URL on a Baidu host, and on the URL's own origin for
any other host (a mirror, a test forum on 127.0.0.1).

Saved pages from before 2026 are read by ``tally.forums.tieba.saved``.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Sequence
from datetime import tzinfo
from typing import Any
from urllib.parse import urlsplit

from tally.errors import FetchError, NotAThreadError, PageMismatchError, ParseError, TallyError
from tally.forums.api import Api
from tally.forums.asking import Answer, Getter, Request
from tally.forums.base import field_value
from tally.forums.boards import Boards
from tally.i18n import N_, tr
from tally.model import Comment, Page, Post, ThreadRef
from tally.times import from_unix

API_HOST = "tiebac.baidu.com"
FLOORS_PER_PAGE = 30
COMMENTS_PER_PAGE = 10
# A floor that may hold a ballot (投票, 改票, 弃票, 代投, 弃权; after NFKC).
_MAY_BE_A_BALLOT = re.compile(r"票|代投|弃权")
# The most 楼中楼 pages tally reads of one floor, whatever an answer claims (Tieba shows a
# floor's first 10 and pages on; 5,000 replies under one floor is beyond any game).
MAX_COMMENT_PAGES = 500
# The multipart framing aiotieba's HttpCore.pack_proto_request writes, byte for byte.
_BOUNDARY = "-*_r1999"
_CONTENT_TYPE = f"multipart/form-data; boundary={_BOUNDARY}"
# error.errorno values: the thread is gone; Baidu asks to slow down.
GONE = frozenset({4})
TOO_FREQUENT = frozenset({110001, 220034})
PAGE_CMD, FLOOR_CMD = 302001, 302002


def baidu(host: str) -> bool:
    """tieba.baidu.com, m./www./wapp. variants, and the jump*.bdimg.com share links."""
    host = host.lower().split(":", 1)[0]
    return host == "baidu.com" or host.endswith(".baidu.com") or host.endswith(".bdimg.com")


def multipart(proto: bytes) -> bytes:
    """The request body: one form part named ``data`` holding the protobuf (as aiotieba)."""
    head = f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="file"\r\n\r\n'
    return head.encode() + proto + f"\r\n--{_BOUNDARY}--\r\n".encode()


# Tieba is one site: every thread is of the same board.
TIEBA_ORIGIN = "tieba.baidu.com"


class TiebaApi(Api):
    """Tieba's client API: every live thread is read through it (Tieba's desktop page is a
    script now); a floor's 楼中楼 through its own call."""

    title = N_("Tieba's client API")

    # truncated: as every interface's (a protobuf has no end mark: a cut body fails to parse
    # or lacks what always comes last, both found when it is read; empty is a cut).

    def api_base(self, ref: ThreadRef) -> str:
        host = urlsplit(ref.base).netloc
        return f"https://{API_HOST}/" if baidu(host) else ref.base

    # -- the client API ----------------------------------------------------------------------

    def page_request(self, ref: ThreadRef, page: int, bduss: str | None = None) -> Request:
        from aiotieba.api.get_posts import _api as posts_api
        from aiotieba.api.get_posts.protobuf import PbPageReqIdl_pb2

        packed = posts_api.pack_proto(
            None,  # the account: used only for with_comments, which tally does not ask
            int(ref.thread_id),
            page,
            FLOORS_PER_PAGE,
            0,  # time order
            False,  # every floor, not only the thread owner's
            False,  # 楼中楼 come from /c/f/pb/floor, all of them
            False,
            0,
        )
        if bduss:
            proto = PbPageReqIdl_pb2.PbPageReqIdl()
            proto.ParseFromString(packed)
            proto.data.common.BDUSS = bduss
            packed = proto.SerializeToString()
        what = tr("page {page} of thread {thread}", page=page, thread=ref.thread_id)
        request = self._api(ref, f"c/f/pb/page?cmd={PAGE_CMD}", packed, what)
        return dataclasses.replace(request, page=page)

    def floor_request(self, ref: ThreadRef, post: Post, pn: int) -> Request:
        from aiotieba.api.get_comments import _api as comments_api

        packed = comments_api.pack_proto(int(ref.thread_id), int(post.post_id), pn, False, 0)
        what = tr("page {page} of the 楼中楼 of floor {floor} of thread {thread}", page=pn,
                  floor=post.floor, thread=ref.thread_id)
        return self._api(ref, f"c/f/pb/floor?cmd={FLOOR_CMD}", packed, what)

    def _api(self, ref: ThreadRef, path: str, proto: bytes, what: str) -> Request:
        headers = (("Content-Type", _CONTENT_TYPE), ("x_bd_data_type", "protobuf"))
        return Request(f"{self.api_base(ref)}{path}", multipart(proto), headers, what)

    def refusal(self, request: Request, body: bytes) -> TallyError | None:
        from google.protobuf.message import DecodeError

        from tally.forums.http import TryAgain

        error = _error_message(request, body)
        try:
            error.ParseFromString(body)
        except DecodeError:
            return None  # a cut body: read() says so
        code, message = int(error.error.errorno), str(error.error.errmsg)
        if not code:
            return None
        said = (tr("error {code}, “{message}”", code=code, message=message) if message
                else tr("error {code}", code=code))
        if code in TOO_FREQUENT or "频繁" in message:
            raise TryAgain(tr("Baidu answered {error}", error=said))
        if code in GONE:
            return NotAThreadError(
                tr("{where}: Baidu says the thread does not exist or was deleted ({error}); "
                   "check the thread's number in the URL.", where=request.name, error=said)
            )
        if "登录" in message or "login" in message.lower():
            return NotAThreadError(
                tr("{where}: Baidu answered {error}; pass --cookies FILE exported from a "
                   "browser logged in to Baidu (tally sends its BDUSS), or give saved pages.",
                   where=request.name, error=said)
            )
        return FetchError(tr("{where}: Baidu answered {error}.", where=request.name, error=said))

    def read_page(
        self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo, boards: Boards | None = None
    ) -> Page:
        """Page ``number``'s floors, then every 楼中楼 of each floor that has any (Tieba is
        one site: no board profiles)."""
        bduss = get.cookie("BDUSS", self.api_base(ref))
        request = self.page_request(ref, number, bduss)
        page = parse_page_answer(get(request), request, ref, tz)
        if page.page != number:
            # Past the last page the API answers with the last one.
            raise PageMismatchError(
                tr("{where}: Baidu answered with page {page} instead.", where=request.name,
                   page=page.page)
            )
        posts = []
        for post in page.posts:
            # The page's count of a floor's 楼中楼 says whether to ask, except for a floor
            # that may hold a ballot: a page that counted 0 under one hid a 改票 there, so
            # those are asked whatever it says (a vote thread has few); what is asked is checked.
            count = page.comment_counts.get(post.post_id, 0)
            ballot = _MAY_BE_A_BALLOT.search(unicodedata.normalize("NFKC", post.text))
            asked = count > 0 or ballot is not None
            found = self._comments(ref, post, count, get, tz) if asked else []
            posts.append(_with(post, comments=tuple(found)) if found else post)
        return Page(**{**page.__dict__, "posts": tuple(posts)})

    def _comments(
        self, ref: ThreadRef, post: Post, count: int, get: Getter, tz: tzinfo
    ) -> list[Comment]:
        """All pages of one floor's 楼中楼: from the cache when the floor's count is the one
        they were read at, so an unchanged floor costs no request."""
        first = self.floor_request(ref, post, 1)
        cached = get.cached(first)
        answers: list[tuple[Request, Answer]] = []
        if cached is not None:
            total, pages = _floor_counts(cached, first, post, count)
            if total == count:
                answers = [(first, cached)]
                for pn in range(2, pages + 1):
                    more = self.floor_request(ref, post, pn)
                    hit = get.cached(more)
                    if hit is None:
                        answers = []
                        break
                    answers.append((more, hit))
        if not answers:
            answers = [(first, get(first))]
            _, pages = _floor_counts(answers[0][1], first, post, count)
            for pn in range(2, pages + 1):
                more = self.floor_request(ref, post, pn)
                answers.append((more, get(more)))
        found: list[Comment] = []
        seen: set[str] = set()
        for request, answer in answers:
            for comment in parse_floor_answer(answer, request, ref, post, tz):
                if comment.comment_id not in seen:
                    seen.add(comment.comment_id)
                    found.append(comment)
        _check_count(answers, ref, post, count, len(found))
        return sorted(found, key=lambda c: (c.time, c.comment_id))



def _check_count(
    answers: list[tuple[Request, Answer]], ref: ThreadRef, post: Post, count: int, read: int
) -> None:
    """As many 楼中楼 read as the floor's own answers count (fresher than the page's): fewer
    is a floor that changed under the read; more than any of its answers counts is an
    answer that cannot be right (20,000 rows under a floor of 3 were taken before)."""
    first = _floor_counts(answers[0][1], answers[0][0], post, count)[0]
    if read < first:
        raise FetchError(
            tr("floor {floor} of thread {thread} has {total} 楼中楼 but {n} were read; run again "
               "with --fresh.", floor=post.floor, thread=ref.thread_id, total=first, n=read)
        )
    # A 楼中楼 posted while the pages were read is counted by the later pages' answers.
    most = max(_floor_counts(answer, request, post, count)[0] for request, answer in answers)
    if read > most:
        raise _damaged(
            answers[-1][0],
            tr("floor {floor} counts {total} 楼中楼 and its pages hold {n}", floor=post.floor,
               total=most, n=read),
        )


# -- reading the answers ------------------------------------------------------------------------


def _error_message(request: Request, body: bytes) -> Any:
    """A message with only the error field, to read the error of either answer cheaply."""
    if "cmd=302002" in request.url:
        from aiotieba.api.get_comments.protobuf import PbFloorResIdl_pb2

        return PbFloorResIdl_pb2.PbFloorResIdl()
    from aiotieba.api.get_posts.protobuf import PbPageResIdl_pb2

    return PbPageResIdl_pb2.PbPageResIdl()


def _cut(request: Request, why: str) -> TallyError:
    from tally.errors import TruncatedPageError

    return TruncatedPageError(
        tr("{where}: the answer is cut short ({why}).", where=request.name, why=why)
    )


def parse_page_answer(answer: Answer, request: Request, ref: ThreadRef, tz: tzinfo) -> Page:
    """A PbPageResIdl answer as a Page: floors, authors, times, the text of each floor."""
    posts = _checked_posts(answer, request, ref)
    where = request.name
    replies = posts.thread.reply_num
    floors = []
    counts: dict[str, int] = {}
    for p in posts.objs:
        field_value(p.pid or None, tr("{where}: a floor", where=where), tr("id"))
        field_value(p.floor or None, tr("{source}, post {post}", source=where, post=p.pid),
                    tr("floor number"))
        if replies == 0 and p.floor > 1:
            raise _damaged(request, tr("the thread has no reply, and floor {floor}",
                                       floor=p.floor))
        if p.reply_num < 0:
            raise _damaged(request, tr("floor {floor} has {n} 楼中楼", floor=p.floor,
                                       n=p.reply_num))
        at = tr("{where}, floor {floor}", where=where, floor=p.floor)
        author, display = _names(p.user, at)
        floors.append(
            Post(
                platform="tieba",
                thread_id=ref.thread_id,
                post_id=str(p.pid),
                floor=p.floor,
                author=author,
                author_id=str(p.user.user_id) if p.user.user_id else None,
                time=from_unix(p.create_time, tz, at),
                text=fragments_text(p.contents.objs),
                author_display=display,
                page=posts.page.current_page or 1,
            )
        )
        counts[str(p.pid)] = p.reply_num
    return Page(
        platform="tieba",
        thread_id=ref.thread_id,
        page=posts.page.current_page or 1,
        page_count=max(posts.page.total_page, 1),
        posts=tuple(floors),
        title=posts.thread.title,
        reply_count=posts.thread.reply_num,
        comment_counts=counts,
        forum_id=str(posts.forum.fid) if posts.forum.fid else None,
        origin=TIEBA_ORIGIN,
    )


def _checked_posts(answer: Answer, request: Request, ref: ThreadRef) -> Any:
    """aiotieba's Posts of the answer, refused when it is cut (another thread, an author
    not among its users) or its counts cannot be (more floors or pages than replies fill)."""
    from aiotieba.api.get_posts import _api as posts_api
    from google.protobuf.message import DecodeError

    try:
        posts = posts_api.parse_body(answer.body)
    except DecodeError as exc:
        raise _cut(request, _not_whole(exc)) from None
    except KeyError:
        # A floor whose author is not among the answer's users: the user list (sent after
        # the floors) is missing.
        raise _cut(request, tr("a floor's author is not in it")) from None
    except Exception as exc:  # aiotieba's TiebaServerError, when refusal() was bypassed
        raise ParseError(_unreadable(request, exc)) from None
    if str(posts.thread.tid) != ref.thread_id:
        raise _cut(request, _names_thread(posts.thread.tid))
    replies = posts.thread.reply_num
    if replies < 0:
        raise _damaged(request, tr("the thread has {n} replies", n=replies))
    if len(posts.objs) > FLOORS_PER_PAGE:
        raise _damaged(request, tr("{n} floors on a page of {most}", n=len(posts.objs),
                                   most=FLOORS_PER_PAGE))
    # Pages hold 30 floors: a thread of N replies cannot fill more pages than they need.
    if posts.page.total_page > (replies + 1) // FLOORS_PER_PAGE + 2:
        raise _damaged(request, tr("{pages} pages for {n} replies", pages=posts.page.total_page,
                                   n=replies))
    asked = request.page or 1
    if posts.page.current_page and posts.page.current_page > asked:
        raise _damaged(request, tr("it is page {page}, past page {asked}",
                                   page=posts.page.current_page, asked=asked))
    return posts


def _not_whole(exc: Exception) -> str:
    return tr("not a whole protobuf: {error}", error=exc)


def _unreadable(request: Request, exc: Exception) -> str:
    return tr("{where}: Baidu's answer cannot be read ({error}).", where=request.name, error=exc)


def _names_thread(tid: object) -> str:
    return tr("it names thread {thread}", thread=tid) if tid else tr("it names thread none")


def _floor_counts(answer: Answer, request: Request, post: Post, count: int) -> tuple[int, int]:
    """(the floor's 楼中楼 count, the pages they fill) from one PbFloorResIdl answer, checked:
    the answer is for the floor asked, and its counts are counts (not a billion pages)."""
    from aiotieba.api.get_comments.protobuf import PbFloorResIdl_pb2
    from google.protobuf.message import DecodeError

    proto = PbFloorResIdl_pb2.PbFloorResIdl()
    try:
        proto.ParseFromString(answer.body)
    except DecodeError as exc:
        raise _cut(request, _not_whole(exc)) from None
    floor = proto.data.post.id
    if floor and str(floor) != post.post_id:
        raise _damaged(request, tr("it is the answer for post {other}, not post {post}",
                                   other=floor, post=post.post_id))
    total, pages = proto.data.page.total_count, max(proto.data.page.total_page, 1)
    if total < 0:
        raise _damaged(request, tr("it counts {n} 楼中楼", n=total))
    # The pages a floor's 楼中楼 fill: as many as its counts (the floor's, fresher, or the
    # page's) need, and never more than tally reads of one floor.
    needed = -(-max(total, count) // COMMENTS_PER_PAGE)
    if pages > max(needed, 1) or pages > MAX_COMMENT_PAGES:
        raise _damaged(
            request, tr("it claims {pages} pages for {n} 楼中楼 (at most {most})", pages=pages,
                        n=max(total, count), most=needed)
        )
    return total, pages


def _damaged(request: Request, why: str) -> ParseError:
    return ParseError(
        tr("{where}: Baidu's answer cannot be right ({why}); run again.", where=request.name,
           why=why)
    )


def parse_floor_answer(
    answer: Answer, request: Request, ref: ThreadRef, post: Post, tz: tzinfo
) -> list[Comment]:
    """One PbFloorResIdl answer: one page of a floor's 楼中楼."""
    from aiotieba.api.get_comments import _api as comments_api
    from google.protobuf.message import DecodeError

    try:
        comments = comments_api.parse_body(answer.body)
    except DecodeError as exc:
        raise _cut(request, _not_whole(exc)) from None
    except Exception as exc:
        raise ParseError(_unreadable(request, exc)) from None
    if str(comments.thread.tid) != ref.thread_id:
        raise _cut(request, _names_thread(comments.thread.tid))
    if len(comments.objs) > COMMENTS_PER_PAGE:
        raise _damaged(request, tr("{n} 楼中楼 on a page of {most}", n=len(comments.objs),
                                   most=COMMENTS_PER_PAGE))
    out = []
    for c in comments.objs:
        where = tr("{where}, 楼中楼 {comment}", where=request.name, comment=c.pid or "?")
        field_value(c.pid or None, where, tr("id"))
        author, display = _names(c.user, where)
        out.append(
            Comment(
                comment_id=str(c.pid),
                author=author,
                author_id=str(c.user.user_id) if c.user.user_id else None,
                time=from_unix(c.create_time, tz, where),
                text=fragments_text(c.contents.objs),
                author_display=display,
            )
        )
    return out


def fragments_text(fragments: Sequence[Any]) -> str:
    """What the author wrote: text, links and @mentions as their text, emoticons as the
    text the client types for them (#(滑稽)), images, videos and voice as nothing."""
    out = []
    for frag in fragments:
        kind = type(frag).__name__
        if kind.startswith("FragEmoji"):
            out.append(f"#({frag.desc})" if getattr(frag, "desc", "") else "")
        elif kind.startswith("FragLink"):
            # aiotieba keeps the address as ``text`` and what the post shows as ``title``.
            out.append(str(getattr(frag, "title", "") or getattr(frag, "text", "")))
        elif kind.startswith(("FragText", "FragAt", "FragTiebaPlus")):
            out.append(str(getattr(frag, "text", "")))
    return "".join(out).strip()


def _names(user: Any, where: str) -> tuple[str, str | None]:
    """(account name, the name shown when it differs): the user name, else the nickname."""
    account = str(getattr(user, "user_name", "") or "").strip()
    shown = str(getattr(user, "nick_name_new", "") or "").strip()
    name = field_value(account or shown, where, tr("author"))
    return name, shown if shown and shown != name else None


def _with(post: Post, **changes: Any) -> Post:
    return Post(**{**post.__dict__, **changes})
