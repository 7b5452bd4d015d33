"""Tieba threads as scenarios: saved desktop pages (before 2026), 楼中楼 JSON and fragments.

A ``TiebaThread`` is also the scenario the client-API double serves (tests/tiebaapi.py).
The markup follows what public scrapers of tieba.baidu.com document and rely on (see
tally/platforms/tieba_html.py): ``div.l_post.j_l_post`` with a ``data-field`` JSON,
``div#post_content_<pid>``, ``span.tail-info``, ``PageData.pager``, the
``/p/totalComment`` JSON and ``li.lzl_single_post`` fragments of ``/p/comment``.
``python -m tests.tiebagen`` rewrites fixtures/tieba/ from ``sample()``.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

CHINA = ZoneInfo("Asia/Shanghai")
FLOORS_PER_PAGE = 30
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tieba"


@dataclass
class TC:
    author: str  # account name
    time: str  # "2024-05-08 16:00"
    text: str


@dataclass
class TP:
    author: str  # account name (user_name)
    time: str  # "2024-05-08 10:01"
    text: str
    comments: list[TC] = field(default_factory=list)
    deleted: bool = False  # the floor number is used, the floor is gone
    # The client API's content fragments, when the floor is more than plain text
    # (tests/tiebaapi.py): (type, fields) as PbContent has them, e.g. (2, {"c": "滑稽"}).
    parts: list[tuple[int, dict[str, object]]] = field(default_factory=list)


def _attr(value: object) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False), quote=True)


class TiebaThread:
    def __init__(
        self,
        tid: str,
        title: str,
        nicknames: dict[str, str] | None = None,
        fid: int = 4321,
        forum: str = "狼人杀",
    ):
        self.tid, self.title, self.fid, self.forum = tid, title, fid, forum
        self.nicknames = nicknames or {}  # account name -> nickname shown
        self.floors: list[TP] = []
        self.uids: dict[str, int] = {}

    def add(self, *posts: TP) -> TiebaThread:
        self.floors.extend(posts)
        return self

    def uid(self, name: str) -> int:
        return self.uids.setdefault(name, 5000 + len(self.uids))

    def pid(self, floor: int) -> int:
        return 150000000 + floor

    def cid(self, floor: int, index: int) -> int:
        return 160000000 + floor * 100 + index

    def shown(self, name: str) -> str:
        return self.nicknames.get(name, name)

    def _live(self) -> list[tuple[int, TP]]:
        return [(i + 1, p) for i, p in enumerate(self.floors) if not p.deleted]

    def page_count(self) -> int:
        return max(1, -(-len(self._live()) // FLOORS_PER_PAGE))

    def _floor_html(self, floor: int, p: TP) -> str:
        pid, uid = self.pid(floor), self.uid(p.author)
        data = {
            "author": {
                "user_id": uid,
                "user_name": p.author,
                "props": None,
                "portrait": f"tb.1.{uid:x}.portrait",
                "user_nickname": self.shown(p.author),
            },
            "content": {
                "post_id": pid,
                "is_anonym": False,
                "forum_id": self.fid,
                "thread_id": int(self.tid),
                "content": None,
                "post_no": floor,
                "type": "0",
                "comment_num": len(p.comments),
                "is_fold": 0,
                "props": None,
                "post_index": floor - 1,
                "pb_tpoint": None,
            },
        }
        body = "<br>".join(html.escape(line, quote=False) for line in p.text.split("\n"))
        first = " d_post_content_firstfloor" if floor == 1 else ""
        return (
            f'<div class="l_post l_post_bright j_l_post clearfix  " data-field=\'{_attr(data)}\' data-pid="{pid}">\n'
            f'<div class="d_author"><ul class="p_author"><li class="icon"><div class="icon_relative j_user_card" '
            f"data-field='{_attr({'un': p.author, 'id': data['author']['portrait']})}'><a class=\"p_author_face \" "
            f'href="/home/main?id={data["author"]["portrait"]}&amp;fr=pb"><img username="{html.escape(p.author)}" '
            f'src="https://gss0.bdstatic.com/6LZ1dD3d1sgCo2Kml5_Y_D3/sys/portrait/item/{data["author"]["portrait"]}"></a></div></li>\n'
            f'<li class="d_name" data-field=\'{_attr({"user_id": uid})}\'><a alog-group="p_author" '
            f'class="p_author_name j_user_card" href="/home/main?id={data["author"]["portrait"]}&amp;fr=pb" '
            f'target="_blank">{html.escape(self.shown(p.author))}</a></li></ul></div>\n'
            f'<div class="d_post_content_main{first}"><div class="p_content  "><cc>'
            f'<div id="post_content_{pid}" class="d_post_content j_d_post_content " style="display:;">'
            f"            {body}</div><br></cc></div>\n"
            '<div class="core_reply j_lzl_wrapper"><div class="core_reply_tail clearfix"><div class="post-tail-wrap">'
            '<span class="tail-info">来自<a rel="noopener" href="http://c.tieba.baidu.com/c/s/download" '
            f'target="_blank">Android客户端</a></span><span class="tail-info">{floor}楼</span>'
            f'<span class="tail-info">{p.time}</span></div></div>'
            f'<div class="j_lzl_container core_reply_wrapper" style="display:none;" '
            f"data-field='{_attr({'pid': pid, 'total_num': len(p.comments)})}'><div class=\"j_lzl_c_b_a core_reply_content\">"
            '<ul class="j_lzl_m_w" style="display:"></ul></div></div></div>\n</div></div>\n'
        )

    def _pager(self, page: int, pages: int) -> str:
        items = []
        for n in range(1, pages + 1):
            items.append(
                f'<span class="tP">{n}</span>'
                if n == page
                else f'<a href="/p/{self.tid}?pn={n}">{n}</a>'
            )
        if page < pages:
            items.append(
                f'<a href="/p/{self.tid}?pn={page + 1}">下一页</a><a href="/p/{self.tid}?pn={pages}">尾页</a>'
            )
        return "".join(items)

    def page(self, page: int) -> bytes:
        pages = self.page_count()
        live = self._live()[(page - 1) * FLOORS_PER_PAGE : page * FLOORS_PER_PAGE]
        replies = len(self._live()) - 1
        title = html.escape(self.title)
        pager = self._pager(page, pages)
        script = (
            'var PageData = {"tbs": "0123456789abcdef0123456789abcdef", "charset": "UTF-8"};'
            f'PageData.forum = {{"forum_id": {self.fid}, "forum_name": {json.dumps(self.forum, ensure_ascii=False)}}};'
            f'PageData.thread = {{"thread_id": {self.tid}, "title": {json.dumps(self.title, ensure_ascii=False)}, "reply_num": {replies}}};'
            f'PageData.pager = {{"cur_page": {page}, "total_page": {pages}}};'
        )
        floors = "".join(self._floor_html(n, p) for n, p in live)
        text = (
            '<!DOCTYPE html><!--STATUS OK--><html><head><meta charset="UTF-8">'
            f"<title>{title}_{html.escape(self.forum)}吧_百度贴吧</title>"
            f'<script>{script}</script></head>\n<body class="page_pb">\n'
            f'<div id="j_core_title_wrap" class="core_title_wrap_bright clearfix"><h3 class="core_title_txt pull-left text-overflow  " '
            f'title="{title}" style="width: 396px">{title}</h3></div>\n'
            '<div class="p_thread thread_theme_5" id="thread_theme_5"><div class="l_thread_info"><ul class="l_posts_num">'
            f'<li class="l_pager pager_theme_4 pb_list_pager">{pager}</li><li class="l_reply_num" style="margin-left:8px">'
            f'<span class="red" style="margin-right:3px">{replies}</span>回复贴，共<span class="red">{pages}</span>页</li></ul></div></div>\n'
            f'<div class="p_postlist" id="j_p_postlist">\n{floors}</div>\n'
            '<div class="p_thread thread_theme_7" id="thread_theme_7"><div class="l_thread_info"><ul class="l_posts_num">'
            f'<li class="l_pager pager_theme_4 pb_list_pager">{pager}</li></ul></div></div>\n'
            "</body></html>\n"
        )
        return text.encode("utf-8")

    def total_comment(self, page: int) -> bytes:
        live = self._live()[(page - 1) * FLOORS_PER_PAGE : page * FLOORS_PER_PAGE]
        listing = {}
        users = {}
        for floor, p in live:
            if not p.comments:
                continue
            info = []
            for i, c in enumerate(p.comments[:10], start=1):
                uid = self.uid(c.author)
                stamp = datetime.fromisoformat(c.time).replace(tzinfo=CHINA)
                info.append(
                    {
                        "thread_id": self.tid,
                        "post_id": str(self.pid(floor)),
                        "comment_id": str(self.cid(floor, i)),
                        "username": c.author,
                        "user_id": str(uid),
                        "now_time": int(stamp.timestamp()),
                        "content": html.escape(c.text, quote=False),
                        "ptype": "0",
                        "during_time": "0",
                        "show_nickname": self.shown(c.author),
                    }
                )
                users[str(uid)] = {
                    "user_id": uid,
                    "user_name": c.author,
                    "user_nickname": self.shown(c.author),
                    "portrait": f"tb.1.{uid:x}.portrait",
                }
            listing[str(self.pid(floor))] = {
                "comment_num": len(p.comments),
                "comment_list_num": len(info),
                "comment_info": info,
            }
        body = {
            "errno": 0,
            "errmsg": "success",
            "data": {"comment_list": listing or [], "user_list": users},
        }
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def comment_page(self, floor: int, pn: int) -> bytes:
        p = self.floors[floor - 1]
        pages = max(1, -(-len(p.comments) // 10))
        items = []
        for i, c in enumerate(p.comments[(pn - 1) * 10 : pn * 10], start=(pn - 1) * 10 + 1):
            field_ = {
                "spid": self.cid(floor, i),
                "showname": self.shown(c.author),
                "user_name": c.author,
                "portrait": f"tb.1.{self.uid(c.author):x}.portrait",
            }
            when = datetime.fromisoformat(c.time)
            stamp = f"{when.year}-{when.month}-{when.day} {when:%H:%M}"
            items.append(
                f"<li class=\"lzl_single_post j_lzl_s_p {'first_no_border' if i == 1 else ''}\" data-field='{_attr(field_)}'>"
                f'<a rel="noopener" data-field=\'{_attr({"un": c.author})}\' target="_blank" class="j_user_card lzl_p_p" '
                f'href="/home/main?un={html.escape(c.author)}&amp;ie=utf-8&amp;fr=pb"><img src="https://gss0.bdstatic.com/portrait.jpg"></a>'
                f'<div class="lzl_cnt"><a rel="noopener" class="at j_user_card " data-field=\'{_attr({"un": c.author})}\' '
                f'alog-group="p_author" target="_blank" username="{html.escape(c.author)}">{html.escape(self.shown(c.author))}</a>'
                f':&nbsp;<span class="lzl_content_main">{html.escape(c.text, quote=False)}</span>'
                '<div class="lzl_content_reply"><span class="lzl_jb" style="display:none;"><a href="#" class="lzl_jb_in">举报</a>&nbsp;|</span>'
                f'<span class="lzl_op_list j_lzl_o_l"></span><span class="lzl_time">{stamp}</span>'
                '<a href="#" class="lzl_s_r">回复</a></div></div></li>'
            )
        pager_links = "".join(
            f'<span class="tP">{n}</span>' if n == pn else f'<a href="#{n}">{n}</a>'
            for n in range(1, pages + 1)
        )
        items.append(
            f"<li class=\"lzl_li_pager j_lzl_l_p lzl_li_pager_s\" data-field='{_attr({'total_num': len(p.comments), 'total_page': pages})}'>"
            f'<p class="j_pager l_pager pager_theme_2">{pager_links}</p></li>'
        )
        return "".join(items).encode("utf-8")

    def save(self, folder: Path) -> list[Path]:
        """Write the thread as a director would save it: pages, comment JSON, comment pages."""
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for page in range(1, self.page_count() + 1):
            for name, body in (
                (f"thread-p{page}.html", self.page(page)),
                (f"totalComment-p{page}.json", self.total_comment(page)),
            ):
                (folder / name).write_bytes(body)
                written.append(folder / name)
        for floor, p in self._live():
            if len(p.comments) > 10:
                for pn in range(1, -(-len(p.comments) // 10) + 1):
                    path = folder / f"comment-pid={self.pid(floor)}-pn{pn}.html"
                    path.write_bytes(self.comment_page(floor, pn))
                    written.append(path)
        return written


PLAYERS = {  # account name -> nickname shown (the roster uses what the director sees)
    "lengyue2019": "冷月",
    "xiaomi_mi": "小眯",
    "kiwi": "kiwi",
    "ache": "阿澈",
    "fengling": "风铃",
    "laok": "老K",
    "tangtang": "糖糖",
    "xuejian": "雪见",
    "nangua": "南瓜",
    "baitao": "白桃",
    "changye": "长夜",
    "qingshan": "青山",
}


def sample() -> TiebaThread:
    """The 000 vote thread of fixtures/tieba/: three pages, gaps, nicknames, a long 楼中楼."""
    t = TiebaThread("8800123456", "【塔达林】第二天投票帖", nicknames=PLAYERS)
    t.add(
        TP(
            "daoyan_a",
            "2024-05-08 09:30",
            "投票格式：\n投票对象：\n投票理由：\n改票请在自己的投票楼层楼中楼改。",
        )
    )
    ballots = [
        ("lengyue2019", "2024-05-08 10:01", "白桃", "狼面大"),  # floor 2, the sheriff
        ("kiwi", "2024-05-08 10:05", "长夜", "发言划水"),  # 3, the deputy
        ("ache", "2024-05-08 10:20", "小眯", "先挂票"),  # 4: changes by 楼中楼, then again
        ("fengling", "2024-05-08 11:00", "长夜", "站边"),  # 5
        ("laok", "2024-05-08 11:30", "白桃", "跟警长"),  # 6: changes by a new floor (void)
    ]
    for author, time, target, reason in ballots:
        t.add(TP(author, time, f"投票对象：{target}\n投票理由：{reason}"))
    t.floors[3].comments = [
        TC("ache", "2024-05-08 16:00", "改票对象：白桃 改票理由：被说服了"),
        TC("xiaomi_mi", "2024-05-08 16:05", "回复 阿澈 :为什么改我"),
        TC("ache", "2024-05-08 17:00", "改票对象：长夜 改票理由：再改一次"),
    ]
    chatter = ["顶", "楼上说得对", "盘一下票型", "听后置位发言", "这轮先过", "我站边冷月"]
    for i in range(70):  # discussion in the vote thread spills the floors onto three pages
        author = list(PLAYERS)[i % len(PLAYERS)]
        minutes = 11 * 60 + 31 + 4 * i
        t.add(
            TP(
                author,
                f"2024-05-08 {minutes // 60}:{minutes % 60:02d}",
                chatter[i % len(chatter)],
                deleted=i in (3, 17, 25),
            )
        )
    # 糖糖's vote, with a long 楼中楼 under it: more than the first comment page holds.
    t.add(TP("tangtang", "2024-05-08 18:00", "投票对象：白桃\n投票理由：重新投"))
    floor = len(t.floors)
    t.floors[floor - 1].comments = [
        TC(list(PLAYERS)[i % len(PLAYERS)], f"2024-05-08 18:{10 + i:02d}", f"楼中楼闲聊 {i + 1}")
        for i in range(13)
    ] + [TC("tangtang", "2024-05-08 19:30", "改票对象：长夜 改票理由：楼中楼第二页的改票")]
    t.add(
        TP(
            "laok", "2024-05-08 19:00", "改票对象：长夜\n改票理由：新开一楼改票"
        ),  # void: not a 楼中楼
        TP("qingshan", "2024-05-08 20:00", "投票对象：长夜\n投票理由：站边"),
        TP("baitao", "2024-05-09 10:00", "投票对象：弃权\n投票理由：没把握"),
        TP("xuejian", "2024-05-09 21:40", "投票对象：长夜\n投票理由：来晚了"),  # after the close
    )
    return t


def game_toml(vote_url: str) -> str:
    names = ", ".join(f'"{n}"' for n in PLAYERS.values())
    aliases = "\n".join(
        f'"{shown}" = ["{account}"]' for account, shown in PLAYERS.items() if account != shown
    )
    return f"""
name = "【塔达林】贴吧测试局"
ruleset = "000"
directors = ["daoyan_a"]
players = [{names}]

[aliases]
{aliases}

[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "{vote_url}"
sheriff = "冷月"
deputy = "kiwi"
"""


if __name__ == "__main__":
    for old in FIXTURES.glob("*.html"):
        old.unlink()
    for old in FIXTURES.glob("*.json"):
        old.unlink()
    paths = sample().save(FIXTURES)
    (FIXTURES / "game.toml").write_text(
        game_toml("https://tieba.baidu.com/p/8800123456"), encoding="utf-8"
    )
    print(f"wrote {len(paths)} files to {FIXTURES}")
