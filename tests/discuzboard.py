"""A Discuz! board on the loopback forum that members post to, for `--post`.

Its thread pages are discuzgen's (copies of a real X3.5 render), as a member sees them when
the request carries the member's login cookie: ``discuz_uid``, the member's name in the
header, the session's ``formhash`` and the fast-reply box with its textarea; a guest sees the
saved guest page. Its reply endpoint (``forum.php?mod=post&action=reply``) checks and answers
as Discuz! X3.4/X3.5 do (post_newreply.php, discuz_application::_xss_check, the messages of
lang_message.php), in the ajax form of the fast-reply box (XML with succeedhandle_/
errorhandle_) and the plain form (a redirect, or a 提示信息 page); the answers were built
from those a real X3.5 gave (../shared/discuz-real/answers), with the board's charset
(UTF-8 or GBK). A reply that succeeds becomes a post of the thread, rendered as Discuz!
renders its BBCode.

It serves Discuz!'s mobile interface too (``api/mobile/index.php``: check, viewthread and
sendreply, tests/discuzapi.py), on as X3.5 ships it; ``interface`` switches it off as an
admin does (``"closed"``: 开启手机版 off; ``"plugin_off"``: the plugin disabled). A reply
through it is judged as one through the web form, and answered in the interface's keys.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

from tally.demo.localforum import LocalForum, Reply

from . import discuzapi
from .discuzgen import P, Thread, discuz_render

PREFIX = "NgMM_2132_"
GUEST_FORMHASH = "9893ed6d"  # the saved guest pages' own
MESSAGES = {
    "thread_nonexistence": "抱歉，指定的主题不存在或已被删除或正在被审核",
    "post_sm_isnull": "抱歉，您尚未输入标题或内容",
    "replyperm_login_nopermission": "抱歉，您尚未登录，没有权限在该版块回帖",
    "post_thread_closed": "抱歉，本主题已关闭，不再接受新内容",
    "post_flood_ctrl": "抱歉，您两次发表间隔少于 {floodctrl} 秒，请稍候再发表",
    "post_flood_ctrl_posts_per_hour": "抱歉，您所在的用户组每小时限制发回帖 {posts_per_hour} 个，请稍候再发表",
    "post_message_toolong": "抱歉，您的帖子超过 {maxpostsize} 个字符的限制",
    "post_message_tooshort": "抱歉，您的帖子小于 {minpostsize} 个字符的限制",
    "submit_seccode_invalid": "抱歉，验证码填写错误",
    "word_banned": "抱歉，您填写的内容包含敏感词而无法提交",
    "replyperm_none_nopermission": "抱歉，您没有权限在该版块回帖</p></div><div>",
    "post_newbie_span": "抱歉，您在注册时间起 {newbiespan} 分钟后才能拥有发帖权限",
    "submit_invalid": "抱歉，您的请求来路不正确或表单验证串不符，无法提交",
    "post_reply_mod_succeed": "回复需要审核，请等待通过",
    "post_reply_succeed": "非常感谢，回复发布成功，现在将转入主题页，请稍候……[ 点击这里转入主题列表 ]",
}


@dataclass
class Member:
    uid: int
    name: str
    auth: str  # the login cookie's value

    @property
    def formhash(self) -> str:
        return hashlib.sha1(self.auth.encode()).hexdigest()[:8]


@dataclass
class Board:
    """``Board(forum).member("导演A", 7)``, ``board.thread(t)``; then tally posts to it."""

    forum: LocalForum
    version: str = "X3.5"
    charset: str = "utf-8"
    floodctrl: int = 15  # seconds between two posts of one member (Discuz!'s default)
    posts_per_hour: int | None = None
    minpostsize: int = 10
    maxpostsize: int = 10000
    seccode: bool = False  # a verification code asked on submit (the rule found it then)
    seccode_form: bool = False  # ... and shown in the form (common/seccheck.htm)
    moderate: bool = False  # replies wait for a moderator
    banned: tuple[str, ...] = ()  # the word filter's words that refuse a post (censor level 3)
    clock: Callable[[], datetime] | None = None  # the posts' times (the run's clock)
    # 人性化时间 (dateconvert): the interface shows times counted back from its clock ("1 分钟前").
    dateconvert: bool = False
    members: dict[str, Member] = field(default_factory=dict)
    threads: dict[str, Thread] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    last_post: dict[int, float] = field(default_factory=dict)
    replies: list[tuple[str, str, str]] = field(default_factory=list)  # (tid, member, message)
    answers: list[tuple[int, str]] = field(default_factory=list)  # (status, body) sent
    # The mobile interface: on (X3.5's default), "closed" or "plugin_off" (tests/discuzapi.py).
    interface: str = discuzapi.ON
    saltkey: str = "Vq3sAlt9"  # a session's, for a request that brings none
    forms: list[dict[str, str]] = field(default_factory=list)  # each reply's form, as sent
    moved: set[str] = field(default_factory=set)  # threads whose next viewthread is a 302

    def __post_init__(self) -> None:
        self.forum.request_hook = self._answer
        # Its answers' Date header is its clock's, as is the time its pages' footers print:
        # a board whose clock is set behind the run's is a forum with a slow clock.
        self.forum.clock = lambda: self.clock() if self.clock is not None else None
        self._pages: dict[str, list[bytes]] = {}

    # -- set up ----------------------------------------------------------------------------
    def member(self, name: str, uid: int) -> Member:
        m = Member(uid, name, f"auth{uid:04d}{name.encode().hex()[:8]}")
        self.members[m.auth] = m
        return m

    def cookies(self, member: Member, path) -> object:  # type: ignore[no-untyped-def]
        """A Netscape cookie file logging ``member`` in, as a browser exports it."""
        import os

        path.write_text(
            "# Netscape HTTP Cookie File\n"
            f"127.0.0.1\tFALSE\t/\tFALSE\t0\t{PREFIX}auth\t{member.auth}\n"
            f"127.0.0.1\tFALSE\t/\tFALSE\t0\t{PREFIX}saltkey\tab12CD34\n",
            encoding="utf-8",
        )
        os.chmod(path, 0o600)
        return path

    def thread(self, thread: Thread) -> str:
        self.threads[thread.tid] = thread
        self._pages.pop(thread.tid, None)
        return self.forum.url(f"forum.php?mod=viewthread&tid={thread.tid}")

    # -- answers ---------------------------------------------------------------------------
    def _answer(self, path: str, headers: dict[str, str], body: bytes | None) -> Reply | None:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        who = self._who(headers)
        if body is None and query.get("mod") == "viewthread" and query.get("tid") in self.threads:
            return self._page(query["tid"], int(query.get("page", "1")), who)
        api = parts.path == "/api/mobile/index.php"
        if api and body is None:
            tid = query.get("tid", "")
            if query.get("module") == "viewthread" and tid in self.moved:
                self.moved.discard(tid)
                return discuzapi.moved(self, tid)
            return discuzapi.answer(self, query.get("module", ""), query, who, _cookies(headers))
        sends = query.get("mod") == "post" and query.get("action") == "reply"
        if body is not None and (sends or (api and query.get("module") == "sendreply")):
            reply = self._reply(query, headers, self._form(body), who)
            self.answers.append((reply.status, reply.body.decode(self.charset, "replace")))
            return reply
        return None

    def _who(self, headers: dict[str, str]) -> Member | None:
        return self.members.get(_cookies(headers).get(f"{PREFIX}auth", ""))

    def _form(self, body: bytes) -> dict[str, str]:
        form: dict[str, str] = {}
        for pair in body.split(b"&"):
            key, _, value = pair.partition(b"=")
            decode = lambda b: unquote_to_bytes(b.replace(b"+", b" ")).decode(self.charset)  # noqa: E731
            form[decode(key)] = decode(value)
        return form

    def _page(self, tid: str, page: int, who: Member | None) -> Reply:
        if tid not in self._pages:
            self._pages[tid] = self.threads[tid].pages()
        pages = self._pages[tid]
        if not 1 <= page <= len(pages):
            page = len(pages)  # as Discuz! does: the last page
        text = pages[page - 1].decode("utf-8")
        if self.clock is not None:  # the footer: when the forum made the page, in GMT+8
            made = self.clock().astimezone(timezone(timedelta(hours=8)))
            printed = f"GMT+8, {made.year}-{made.month}-{made.day} {made:%H:%M}"
            text = _FOOTER.sub(printed, text, count=1)
        if who is not None:
            text = _as_member(text, who, asks=self.seccode_form)
        return self._html(200, text)

    def _html(self, status: int, text: str, extra: dict[str, str] | None = None) -> Reply:
        if self.charset != "utf-8":
            text = text.replace('<meta charset="utf-8" />', f'<meta charset="{self.charset}" />')
        headers = {"Content-Type": f"text/html; charset={self.charset}", **(extra or {})}
        return Reply(status, text.encode(self.charset, errors="xmlcharrefreplace"), headers)

    def _reply(self, query: dict[str, str], headers: dict[str, str], form: dict[str, str],
               who: Member | None) -> Reply:  # fmt: skip
        """A reply through the web form or the interface (``module=sendreply``), judged alike
        and answered in each one's way."""
        self.forms.append(form)
        tid = query.get("tid", "")
        key, values, pid = self._judge(query, headers, form, who)
        api = query.get("module") == "sendreply"
        if key == "system_error":
            return discuzapi.system_error() if api else self._system_error()
        if api:
            return discuzapi.sendreply(self, who, _cookies(headers), tid, key, pid)
        ajax = query.get("inajax") == "1"
        if key != "post_reply_succeed":
            return self._refuse(ajax, key, values)
        floor = len(self.threads[tid].posts)
        url = f"forum.php?mod=viewthread&tid={tid}&pid={pid}&page={-(-floor // 10)}&extra=#pid{pid}"
        if not ajax:
            return self._html(301, "", {"Location": url})
        said = MESSAGES["post_reply_succeed"]
        script = (f"succeedhandle_fastpost('{url}', '{said}', {{'fid':'3','tid':'{tid}',"
                  f"'pid':'{pid}','from':'','sechash':''}});")  # fmt: skip
        return self._xml(f'<script type="text/javascript" reload="1">if(typeof '
                         f"succeedhandle_fastpost=='function') {{{script}}}</script>")  # fmt: skip

    def _judge(self, query: dict[str, str], headers: dict[str, str], form: dict[str, str],
               who: Member | None) -> tuple[str, dict[str, str], int | None]:  # fmt: skip
        """Discuz!'s verdict on a reply, in its message's key (``system_error``: the 503
        page), the values its message names, and the new post's id (shown, or held for a
        moderator); a reply taken becomes a post of the thread."""
        tid = query.get("tid", "")
        formhash = form.get("formhash")
        message = form.get("message", "")
        expected = who.formhash if who is not None else GUEST_FORMHASH
        if self.version == "X3.5" and formhash is not None and formhash != expected:
            return "system_error", {}, None  # _xss_check: a formhash it did not issue
        if self.version == "X3.5" and formhash is None and any(c in message for c in "()<>\"'"):
            return "system_error", {}, None  # _xss_check: a bracket, and no formhash
        if who is None:
            return "replyperm_login_nopermission", {}, None
        if tid not in self.threads:
            return "thread_nonexistence", {}, None
        if tid in self.closed:
            return "post_thread_closed", {}, None
        referer = urlsplit(headers.get("referer", "")).netloc
        if formhash != expected or (referer and referer != urlsplit(self.forum.base).netloc):
            return "submit_invalid", {}, None  # submitcheck()
        now = self.clock() if self.clock else datetime.now()
        stamp = now.timestamp()
        if who.uid in self.last_post and stamp - self.last_post[who.uid] < self.floodctrl:
            return "post_flood_ctrl", {"floodctrl": str(self.floodctrl)}, None
        mine = [r for r in self.replies if r[1] == who.name]
        if self.posts_per_hour is not None and len(mine) >= self.posts_per_hour:
            return "post_flood_ctrl_posts_per_hour", {"posts_per_hour": str(self.posts_per_hour)}, None
        if not message.strip():
            return "post_sm_isnull", {}, None
        if len(message) < self.minpostsize:
            return "post_message_tooshort", {"minpostsize": str(self.minpostsize)}, None
        if len(message) > self.maxpostsize:
            return "post_message_toolong", {"maxpostsize": str(self.maxpostsize)}, None
        if any(word in message for word in self.banned):
            return "word_banned", {}, None
        if self.seccode:
            return "submit_seccode_invalid", {}, None
        self.last_post[who.uid] = stamp
        self.replies.append((tid, who.name, message))
        thread = self.threads[tid]
        if self.moderate:  # the post takes the next id, and is not shown
            return "post_reply_mod_succeed", {}, thread.pid(len(thread.posts) + 1)
        shown = discuz_render(html.escape(message, quote=False))
        thread.add(P(who.name, now.strftime("%Y-%m-%d %H:%M:%S"), message, html=shown))
        self._pages.pop(tid, None)
        return "post_reply_succeed", {}, thread.pid(len(thread.posts))

    def _refuse(self, ajax: bool, key: str, values: dict[str, str] | None = None) -> Reply:
        said = MESSAGES[key].format(**(values or {}))
        if ajax:
            extra = "{" + ",".join(f"'{k}':'{v}'" for k, v in (values or {}).items()) + "}"
            return self._xml(f'{said}<script type="text/javascript" reload="1">if(typeof '
                             f"errorhandle_fastpost=='function') {{errorhandle_fastpost('{said}', "
                             f"{extra});}}</script>")  # fmt: skip
        page = (f"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\" />\n<title>提示信息 -  "
                "Discuz! Board -  Powered by Discuz!</title>\n</head>\n<body>\n<div id=\"ct\" "
                "class=\"wp cl w\">\n<div class=\"nfl\">\n<div class=\"f_c altw\">\n<div "
                f"id=\"messagetext\" class=\"alert_error\">\n<p>{said}</p>\n</div>\n</div>\n</div>"
                "\n</div>\n</body>\n</html>\n")  # fmt: skip
        return self._html(200, page)

    def _xml(self, inner: str) -> Reply:
        text = f'<?xml version="1.0" encoding="{self.charset}"?>\n<root><![CDATA[{inner}]]></root>'
        return Reply(200, text.encode(self.charset, errors="xmlcharrefreplace"),
                     {"Content-Type": f"text/xml; charset={self.charset}"})  # fmt: skip

    def _system_error(self) -> Reply:
        page = ("<!DOCTYPE html>\n<html>\n<head>\n\t<title>127.0.0.1 - System Error</title>\n"
                '\t<meta charset="utf-8" />\n</head>\n<body>\n<div id="container">\n'
                "<h1>Discuz! System Error</h1>\n<div class='info'>您当前的访问请求当中含有非法字符，"
                "已经被系统拒绝</div>\n</div>\n</body>\n</html>\n")  # fmt: skip
        return self._html(503, page, {"Retry-After": "3600"})


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    """The request's cookies, by name."""
    pairs = (part.strip().partition("=") for part in headers.get("cookie", "").split(";"))
    return {name: value for name, _, value in pairs if name}


_FOOTER = re.compile(r"GMT\+8, \d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}")
_LOGIN_FORM = re.compile(r'<form method="post" autocomplete="off" id="lsform".*?</form>', re.S)
_LOGIN_PROMPT = re.compile(r'<div class="pt hm">\n您需要登录后才可以回帖.*?</div>', re.S)


# forum/seccheck_post.htm and common/seccheck.htm in the fast-reply form, as a real X3.5 shows
# it with the post rule on: the code is loaded by a script (sechash "S" + the session id).
_SECCHECK = (
    '<div id="seccheck_fastpost">\n<div class="mtm"><span id="seccode_cSqqTqK1"></span>\t\t\n'
    '<script type="text/javascript" reload="1">updateseccode(\'cSqqTqK1\', \'<sec> <span '
    'id="sec<hash>" onclick="showMenu(this.id)"><sec></span><div id="sec<hash>_menu" '
    'class="p_pop p_opt" style="display:none"><sec></div>\', \'forum::viewthread\');</script>\n'
    "</div></div>\n"
)


def _as_member(text: str, who: Member, *, asks: bool = False) -> str:
    """The guest page as ``who`` sees it when logged in (what a real X3.5 shows); ``asks``:
    with the verification code in the reply form."""
    text = text.replace("discuz_uid = '0'", f"discuz_uid = '{who.uid}'")
    header = (f'<div id="um">\n<p>\n<strong class="vwmy"><a href="space-uid-{who.uid}.html" '
              f'target="_blank" title="访问我的空间">{html.escape(who.name)}</a></strong>\n</p>\n</div>')  # fmt: skip
    text = _LOGIN_FORM.sub(lambda _: header, text, count=1)
    box = ('<textarea rows="6" cols="80" name="message" id="fastpostmessage" class="pt">'
           "</textarea>")  # fmt: skip
    text = _LOGIN_PROMPT.sub(lambda _: box, text, count=1)
    formhash = f'<input type="hidden" name="formhash" value="{who.formhash}" />'
    text = text.replace(f'<input type="hidden" name="formhash" value="{GUEST_FORMHASH}" />', formhash)
    if asks:  # inside the fast-reply form, before its formhash, as the template has it
        at = text.index(formhash, text.index('id="fastpostform"'))
        text = text[:at] + _SECCHECK + text[at:]
    return text.replace(
        '<input type="hidden" name="usesig" value="" />',
        '<input type="hidden" name="posttime" id="posttime" value="1715262000" />\n'
        '<input type="hidden" name="usesig" value="1" />',
    )
