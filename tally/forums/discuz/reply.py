"""A reply in a Discuz! thread, posted as the director through the forum's own fast-reply form.

What a browser does when the director types into the box under a thread and presses 发表回复:
the thread page holds the form (``#fastpostform``: its action, the session's ``formhash``, the
hidden fields), the message goes in the board's charset (GBK boards take GBK), and the forum
answers the ajax form (``inajax=1``) with a small XML whose script names the new post
(``succeedhandle_fastpost(url, message, {'pid': …})``) or the refusal
(``errorhandle_fastpost(message, …)``); the plain form answers a refusal as a 提示信息 page
and a success with a redirect to ``…&pid=N#pidN``. X3.5 answers a formhash it did not issue
with HTTP 503, "System Error … 含有非法字符".

The forms and answers are Discuz!'s own (source/include/post/post_newreply.php,
source/class/model/model_forum_post.php, template/default/forum/viewthread_fastpost.htm and
source/language/lang_message.php of X3.4 and X3.5). A post is sent once: never retried, since
a forum that took it and then failed to answer would show it twice.
"""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, quote_plus, urljoin, urlsplit

from tally.errors import FetchError, HeldPost, MaybePosted, PostError
from tally.forums.charset import decode_page
from tally.forums.replies import Accepted, ReplyForm, Submit
from tally.i18n import N_, tr

_UID = re.compile(r"discuz_uid\s*=\s*'(\d+)'")
_MEMBER = re.compile(r'<strong class="vwmy[^"]*"><a [^>]*>([^<]+)</a>')
_FORM = re.compile(r'<form\b[^>]*\bid="fastpostform"[^>]*>(.*?)</form>', re.S)
_ACTION = re.compile(r'\baction="([^"]+)"')
_INPUT = re.compile(r"<input\b[^>]*>", re.I)
_ATTR = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
# common/seccheck.htm inside the form: the code or the question is loaded by a script.
_ASKS = (("updateseccode(", "验证码"), ("updatesecqaa(", "验证问答"))
# forum/viewthread.htm's script: var postminchars = parseInt('10'); postmaxchars …
_MAX_CHARS = re.compile(r"postmaxchars\s*=\s*parseInt\('(\d+)'\)")


def reply_form(text: str, page_url: str, charset: str) -> ReplyForm | None:
    """The page's fast-reply form; None when the page has none (a closed thread, a board
    without the box, a theme that moved it)."""
    m = _FORM.search(text)
    if m is None:
        return None
    opening = text[m.start() : text.index(">", m.start()) + 1]
    action = _ACTION.search(opening)
    if action is None:
        return None
    fields = []
    for tag in _INPUT.findall(m.group(1)):
        attrs = {k.lower(): html.unescape(v) for k, v in _ATTR.findall(tag)}
        if attrs.get("type", "").lower() == "hidden" and attrs.get("name"):
            fields.append((attrs["name"], attrs.get("value", "")))
    uid = _UID.search(text)
    member = _MEMBER.search(text)
    return ReplyForm(
        action=urljoin(page_url, html.unescape(action.group(1))),
        fields=tuple(fields),
        charset=codec(charset),
        uid=uid.group(1) if uid else "0",
        member=html.unescape(member.group(1)).strip() if member else "",
        page_url=page_url,
        asks="、".join(word for call, word in _ASKS if call in m.group(1)),
        max_chars=int(most.group(1)) if (most := _MAX_CHARS.search(text)) else None,
    )


def form_body(form: ReplyForm, message: str) -> bytes:
    """The form as the browser submits it: its hidden fields, the message, 表情 off (a
    player's ":)" in a reason stays text), in the board's charset."""
    fields = [(k, v) for k, v in form.fields if k not in ("message", "smileyoff")]
    fields += [("message", message), ("smileyoff", "1"), ("replysubmit", "yes")]
    encoding = codec(form.charset)
    try:
        return "&".join(
            f"{quote_plus(k, encoding=encoding)}={quote_plus(v, encoding=encoding)}"
            for k, v in fields
        ).encode("ascii")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise PostError(
            tr("the board reads posts as {charset}, which cannot hold {text}; take it out of the "
               "post (or the name it comes from) and post again.",
               charset=form.charset.upper(), text=repr(bad))
        ) from None


def ajax_url(form: ReplyForm) -> str:
    """The form's action as the fast-reply box sends it: answered as XML (inajax=1)."""
    action = form.action
    query = parse_qs(urlsplit(action).query)
    if "inajax" not in query:
        action += "&inajax=1"
    if "handlekey" not in query:
        action += "&handlekey=fastpost"
    return action


def codec(charset: str) -> str:
    # tally reads GBK pages as GB18030 (a superset, for what a page may hold), but a board
    # reads a post as GBK: what GBK cannot hold must not be sent.
    name = charset.lower().replace("_", "-")
    return "gbk" if name in ("gbk", "gb2312", "gb18030", "x-gbk") else name


def send(form: ReplyForm, text: str, board: str, submit: Submit) -> Accepted:
    """The reply sent once through the form as the fast-reply box sends it, and the forum's
    answer read; a post sent that got no answer is ``MaybePosted`` (it may be in the thread)."""
    body = form_body(form, text)
    headers = {
        "Content-Type": f"application/x-www-form-urlencoded; charset={form.charset}",
        "Referer": form.page_url,
    }

    def explain(raw: bytes, content_type: str | None) -> PostError | None:
        # X3.5 answers a formhash it did not issue with HTTP 503, "System Error".
        try:
            read_answer(503, {}, raw.decode(form.charset, errors="replace"), board)
        except PostError as exc:
            return exc
        return None

    try:
        answer = submit(ajax_url(form), body, headers, explain)
    except FetchError as exc:  # sent, and no answer: it may be in the thread
        raise MaybePosted(str(exc)) from None
    said = decode_page(answer.body, answer.headers.get("content-type"), source=tr("the answer"))
    return read_answer(answer.status, answer.headers, said, board)


# -- the forum's answer -----------------------------------------------------------------------

_SUCCEED = re.compile(r"succeedhandle_\w+\('([^']*)',\s*'([^']*)'(?:,\s*(\{.*?\}))?\)", re.S)
_ERROR = re.compile(r"errorhandle_\w+\('([^']*)'", re.S)
_PID = re.compile(r"'pid'\s*:\s*'(\d+)'")
_LOCATION_PID = re.compile(r"[?&]pid=(\d+)")
_MESSAGE = re.compile(r'<div id="messagetext"[^>]*>\s*<p>(.*?)</p>', re.S)
_SYSTEM = re.compile(r"System Error|含有非法字符|非法字符")
_TAG = re.compile(r"<[^>]+>")


def system_error(status: int, body: str) -> PostError | None:
    """X3.5's answer to a form hash it did not issue (a stale one, or none with a bracket in
    the message): HTTP 503 and its "System Error" page; never sent again blindly."""
    if status != 503 or not _SYSTEM.search(body):
        return None
    return PostError(
        tr("the forum refused the form as a System Error (HTTP 503, 含有非法字符): it did not "
           "accept the session's formhash; log in again in the browser, export the cookies "
           "again and post again.")
    )


def read_answer(status: int, headers: dict[str, str], body: str, board: str) -> Accepted:
    """The forum's answer to a reply: the new post, or one sentence for each refusal."""
    location = {k.lower(): v for k, v in headers.items()}.get("location", "")
    if status in (301, 302, 303) and location:
        pid = _LOCATION_PID.search(location)
        if pid:
            return Accepted(pid.group(1), urljoin(board, location))
    stale = system_error(status, body)
    if stale is not None:
        raise stale
    succeed = _SUCCEED.search(body)
    if succeed:
        url, said, extra = succeed.group(1), succeed.group(2), succeed.group(3) or ""
        pid = _PID.search(extra) or _LOCATION_PID.search(url)
        if pid:
            return Accepted(pid.group(1), urljoin(board, html.unescape(url)))
        if "审核" in said:
            raise held()
    error = _ERROR.search(body)
    found = _MESSAGE.search(body)
    said = error.group(1) if error else found.group(1) if found else ""
    said = html.unescape(_TAG.sub("", said)).strip()
    if "审核" in said and "回复" in said:
        raise held()
    if said:
        raise PostError(refusal(said))
    raise unknown_answer(f"HTTP {status}")


def unknown_answer(what: str) -> MaybePosted:
    """An answer that is neither a new post nor a refusal tally knows (``what`` names it, in
    words that hold nothing of its body): the thread may hold the post."""
    return MaybePosted(
        tr("the forum answered {what} and neither a new post nor a reason tally knows; look at "
           "the thread before posting again: it may hold the post.", what=what)
    )


def held() -> HeldPost:
    """The post the forum took for a moderator to approve, by either way of posting."""
    return HeldPost(
        tr("the forum took the post for a moderator to approve (回复需要审核): it is not shown "
           "yet; ask a moderator to approve it. It is not sent again: the journal of posts holds "
           "it until the thread shows it")
    )
# What each refusal Discuz! gives a reply means, and what the director can do; ``{said}`` is
# the forum's own word for it (its message, or the key its mobile interface answers), never
# translated. Each is one sentence, translated where it is said (``refused``).
REFUSED = {
    "login": N_("the forum does not see tally as logged in ({said}): export the cookies again "
                "from a browser that is logged in as the director, and pass them with "
                "--cookies."),
    "invalid": N_("the forum refused the form ({said}): the formhash or the page it was sent "
                  "from did not match the session; export the cookies again and post again."),
    "flood": N_("the forum's flood control refused it ({said}); tally does not try again on "
                "its own: post again after that wait."),
    "hourly": N_("the forum's hourly limit refused it ({said}); post by hand later or from "
                 "another director's account."),
    "short": N_("the forum finds the post too short ({said})."),
    "long": N_("the forum finds the post too long ({said}); shorten the template."),
    "closed": N_("the thread is closed to new replies ({said}); ask a moderator to open it, or "
                 "post the result in another thread."),
    "no_new": N_("the thread is closed to new replies ({said})."),
    "seccode": N_("the forum wants a verification code (验证码) for this post ({said}), which "
                  "only a person can type: post by hand."),
    "secqaa": N_("the forum wants its verification question answered ({said}): post by hand."),
    "gone": N_("the thread is gone ({said})."),
    "perm": N_("the account has no right to reply here ({said})."),
    "newbie": N_("the account is too new to post on this board ({said}); post after that "
                 "time, or from an older director account."),
    "censor": N_("the forum's word filter refused the post ({said}); a name or reason in it is "
                 "on the board's list: edit the text and post by hand."),
    "empty": N_("the post was empty to the forum ({said})."),
}  # fmt: skip
# Each refusal by the words of Discuz!'s message (lang_message.php).
_REFUSALS: tuple[tuple[str, str], ...] = (
    ("尚未登录", "login"), ("来路不正确", "invalid"), ("间隔少于", "flood"),
    ("每小时限制", "hourly"), ("小于", "short"), ("超过", "long"), ("已关闭", "closed"),
    ("不再接受新回复", "no_new"), ("验证码", "seccode"), ("验证问答", "secqaa"),
    ("不存在", "gone"), ("没有权限", "perm"), ("注册时间起", "newbie"), ("敏感词", "censor"),
    ("尚未输入", "empty"),
)  # fmt: skip


def refused(meaning: str, said: str) -> str:
    """The sentence for a refusal of this meaning (a key of ``REFUSED``)."""
    return tr(REFUSED[meaning], said=said)


def refusal(said: str) -> str:
    """One sentence for a refusal the forum gave in its own words."""
    for words, meaning in _REFUSALS:
        if words in said:
            return refused(meaning, said)
    return tr("the forum refused the post: {said}.", said=said)
