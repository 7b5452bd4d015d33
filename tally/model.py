"""The platform-neutral post model: what every forum's parser produces.

Every later stage (ballots, lurkers, archive) reads only these classes, never
forum markup, so a Discuz! thread and a Tieba thread look the same to them.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from urllib.parse import urlsplit


@dataclass(frozen=True, order=True)
class ThreadKey:
    """Which thread: the forum software and the thread's id there. Whatever form of its URL
    was pasted (a page, a filter, the rewritten form), it is the same key."""

    platform: str
    thread_id: str


_DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=1024)  # a few URLs, asked of hundreds of times a count
def origin_of(url: str) -> str:
    """The board a URL is of, as host and directory: "bbs.example.com/bbs/" for
    https://bbs.example.com/bbs/forum.php?…; the scheme left out (one board over http and
    https), the host in lower case, a port only when it is not the scheme's own."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return ""
    if not parts.hostname:
        return ""
    host = parts.hostname.lower()
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme):
        host += f":{port}"
    return host + parts.path.rsplit("/", 1)[0] + "/"


@dataclass(frozen=True)
class ThreadRef:
    """A thread as a URL names it, independent of which page was pasted."""

    platform: str
    thread_id: str
    # The site root the thread's pages live under, e.g. "https://bbs.example.com/bbs/".
    base: str
    # The page the pasted URL pointed at (informational: tally always reads every page).
    page: int = 1
    # The script that serves the thread's pages, where the platform has more than one
    # (Discuz! 6/7 serve viewthread.php; X serves forum.php?mod=viewthread): "" for the usual.
    script: str = ""

    @property
    def key(self) -> ThreadKey:
        return ThreadKey(self.platform, self.thread_id)


@dataclass(frozen=True)
class Quote:
    """A quoted block inside a post: somebody else's words, never the poster's."""

    text: str
    # The post id the quote links to (Discuz!'s ``goto=findpost&pid=…``), when the markup says so.
    post_id: str | None = None
    # The quoted author as the quote header names them ("青山 发表于 …").
    author: str | None = None


@dataclass(frozen=True)
class Edit:
    """The forum's edit mark ("本帖最后由 X 于 T 编辑")."""

    by: str
    at: datetime


@dataclass(frozen=True)
class Comment:
    """A nested comment under a floor: Discuz! 点评 or a Tieba 楼中楼."""

    comment_id: str
    author: str
    author_id: str | None
    time: datetime
    text: str
    # The name shown when it differs from the account name (Tieba nicknames).
    author_display: str | None = None
    # The forum shows its time to the minute (Discuz!'s 点评): posted in that minute.
    to_the_minute: bool = False
    # Red font inside it (RULES L7): Discuz! renders a 点评's [color] (never its [size]).
    red_font: bool = False


# A post's ``hidden`` when the forum shows its [hide] (回复可见) placeholder in place of what
# it holds: to a reader who has not replied, or has too few credits.
HIDE_CODE = "hide_code"
# The fields a read may leave unknown (``Post.unknown``): whether and when the post was
# edited, and whether its font was enlarged (RULES L7).
UNKNOWN_EDIT = "edited"
UNKNOWN_LARGE_FONT = "large_font"


@dataclass(frozen=True)
class Post:
    """One floor of a thread."""

    platform: str
    thread_id: str
    post_id: str
    floor: int
    author: str
    author_id: str | None
    time: datetime
    # What the author wrote, quoted blocks left out.
    text: str
    quotes: tuple[Quote, ...] = ()
    # The post a reply links to without quoting it (Discuz!'s "回复 2# 月影" header).
    reply_to: str | None = None
    edited: Edit | None = None
    comments: tuple[Comment, ...] = ()
    # The page shows only the newest of its nested comments (Discuz! shows its commentnumber
    # 点评 a floor and serves the rest from another script): the platform reads the rest
    # before the post leaves it, or says why it cannot.
    comments_cut: bool = False
    # Red or enlarged font in the poster's own words (RULES L7): the director's alone.
    red_font: bool = False
    large_font: bool = False
    # Why the forum hides the body ("author_banned", "moderated", HIDE_CODE), or None when
    # it is shown.
    hidden: str | None = None
    # The name shown beside the post when it differs from the account name (Tieba nicknames).
    author_display: str | None = None
    page: int = 1
    # The author's user group, where it is one that moderates the board (Discuz!'s 版主,
    # 超级版主, 管理员 …): a player who may 屏蔽 or delete another's ballot.
    moderator: str | None = None
    # What the read could not know of the post, by the name of the field it leaves at its
    # default (``UNKNOWN_EDIT``, ``UNKNOWN_LARGE_FONT``): Discuz!'s mobile JSON strips the
    # edit mark and [size], so a post read through it says neither whether it was edited
    # nor whether its font was enlarged; what rests on them is learnt elsewhere, or stops.
    unknown: frozenset[str] = frozenset()
    # The page prints its time to the minute (a Discuz! board whose admin turned 人性化时间
    # off, Discuz! 6/7, many themes): posted somewhere in that minute, as a 点评 is.
    to_the_minute: bool = False

    @property
    def thread_key(self) -> ThreadKey:
        return ThreadKey(self.platform, self.thread_id)

    @property
    def edit_unknown(self) -> bool:
        """Whether the read could not tell if the post was edited (``edited`` is then None
        for want of the mark, not for want of an edit)."""
        return UNKNOWN_EDIT in self.unknown

    @property
    def quoted_post_ids(self) -> tuple[str, ...]:
        return tuple(q.post_id for q in self.quotes if q.post_id)

    @property
    def answers(self) -> tuple[str, ...]:
        """Every post this one replies to, by quote or by reply link."""
        ids = self.quoted_post_ids
        return (*ids, self.reply_to) if self.reply_to and self.reply_to not in ids else ids


MINUTE = timedelta(minutes=1)


def last_instant(shown: datetime, to_the_minute: bool) -> datetime:
    """The latest a time shown so may be: the last instant of its minute, shown to the
    minute (21:30 is 21:30:00 to 21:30:59.999999), else itself."""
    return shown + MINUTE - timedelta(microseconds=1) if to_the_minute else shown


@dataclass(frozen=True)
class Writing:
    """A post or one of its nested comments: what someone wrote, where, and when."""

    post: Post  # the floor (for a comment, the floor it sits under)
    comment_index: int | None  # 1 = the oldest comment; None for the floor itself
    item_id: str  # the post id, or the comment id
    author: str
    author_display: str | None
    time: datetime
    text: str
    # The author's account id (Discuz! uid, Tieba user id), when the page shows it.
    author_id: str | None = None
    # Its time is shown to the minute (a Discuz! 点评, a floor of a page that prints no
    # seconds): posted somewhere in that minute.
    to_the_minute: bool = False
    # Red or enlarged font inside it (RULES L7).
    red_font: bool = False
    large_font: bool = False

    @property
    def is_comment(self) -> bool:
        return self.comment_index is not None

    @property
    def earliest(self) -> datetime:
        """The earliest it can have been posted: a comment comes after its floor."""
        return max(self.time, self.post.time) if self.is_comment else self.time

    @property
    def latest(self) -> datetime:
        """The latest it can have been posted: the last instant of the minute shown."""
        return last_instant(self.time, self.to_the_minute)


@dataclass(frozen=True)
class Page:
    """One parsed page of a thread: its posts and what the pager says."""

    platform: str
    thread_id: str
    page: int
    page_count: int
    posts: tuple[Post, ...]
    title: str = ""
    # The thread's reply count as the page header shows it, when it does.
    reply_count: int | None = None
    # How many nested comments the page says each post has (Tieba loads them separately).
    comment_counts: Mapping[str, int] = field(default_factory=dict)
    forum_id: str | None = None
    # The board the page says it is of (``Thread.origin``), when it says so.
    origin: str = ""
    # Posts the page shows out of their place, whose floors stand on another page (Discuz!'s
    # 置顶回复 from a later page, shown without its number): read there, not here.
    elsewhere: tuple[str, ...] = ()
    # Posts the page shows out of their place without their floor number (Discuz!'s 热门回复,
    # labelled 推荐), read with floor 0: each is on its own floor on another page, or stands
    # nowhere else, its floor the one its post id leaves between the others
    # (``tally.forums.out_of_place.place_floating``).
    floating: tuple[Post, ...] = ()
    # The posts shown above the page's others (a Discuz! 置顶回复 or 热门回复), by post id.
    top: tuple[str, ...] = ()
    # The page says the thread is closed (关闭): nobody but a moderator may post in it.
    closed: bool = False
    # The one offset the page prints every time at, when it says so (a Discuz! footer):
    # what the rest of a floor's 点评, fetched apart, are read at too.
    clock: tzinfo | None = field(default=None, compare=False)
    # When the forum made the page, as it prints it (a Discuz! footer: "GMT+8, 2026-12-6
    # 10:16"), to the minute: the forum's clock (tally.forums.clocks).
    printed_at: datetime | None = None


# -- what a thread looked like when (its stored form: tally.forums.history) ------------


@dataclass(frozen=True)
class Version:
    """One page as one read found it."""

    page: int
    read_at: datetime
    posts: tuple[Post, ...]
    # The read that found it, an id of its own ("": kept before reads had ids): two runs
    # reading the thread at once interleave their pages' times.
    read: str = ""
    # The way that read was made ("pages", or "api": the platform's interface for its own
    # clients, tally.forums.api). The two ways number their pages differently (100 floors a
    # page through Discuz!'s interface, 10 to 20 on its HTML pages): a page is a page of one
    # way, and never stands for the other's page of the same number.
    way: str = "pages"


@dataclass(frozen=True)
class Lost:
    """A version the history lists and cannot read back: its file missing, damaged (cut
    short by a crash or a full disk, a byte changed) or of the wrong shape. Which page, when
    and by which read (``Version``'s fields): where the thread as it stood at a moment would
    take it, the count says so (``tally.rules.judging.as_of.lost_at``)."""

    page: int
    read_at: datetime
    read: str = ""
    way: str = "pages"
    # Its address (the SHA-256 of its posts as stored): a read that reads the same content
    # writes it again (``tally.forums.fetch.store_versions``).
    digest: str = ""


@dataclass(frozen=True)
class History:
    """The versions of one thread's pages, oldest read first (read as of a moment by
    tally.rules.judging.standing)."""

    versions: tuple[Version, ...] = ()
    # The cap of versions a thread keeps was reached: reads after it were not kept.
    capped: bool = False
    # The versions listed that could not be read back, oldest read first.
    lost: tuple[Lost, ...] = ()

    def came_in_unseen(
        self, posts: Iterable[Post], before: datetime
    ) -> tuple[frozenset[str], datetime | None]:
        """Of ``posts``, those no read before ``before`` showed though posted more than
        ``DURING_A_READ`` before the last of those reads: they came in since, unseen then
        (merged or moved in, 合并; approved late, 审核), where a post made since is newer.
        And that last read (None: there is none)."""
        earlier = [v for v in self.versions if v.read_at < before]
        if not earlier:
            return frozenset(), None
        posts = tuple(posts)
        seen = {p.post_id for v in earlier for p in v.posts}
        # A lost page shows none of its posts: not one of them came in for it.
        seen |= self.lost_could_show(posts, (v for v in self.lost if v.read_at < before))
        last = max(v.read_at for v in earlier)
        late = last - DURING_A_READ
        return frozenset(p.post_id for p in posts if p.post_id not in seen and p.time < late), last

    def lost_could_show(self, posts: Iterable[Post], lost: Iterable[Lost]) -> frozenset[str]:
        """Of ``posts``, those a version ``lost`` could have shown: posted between the last
        post of the page before it and the first of the page after it as that read found
        them (``_page_then``; the page before never read: no bound; the page after: the
        read's own time, within ``DURING_A_READ``, since a post made after a read cannot be
        in it). tally cannot say they were not in the thread then (came in since,
        合并; approved late, 审核); the count says the read is lost
        (``tally.rules.judging.as_of.lost_notes``)."""
        could: set[str] = set()
        posts = tuple(posts)  # walked once for each version lost
        for gone in lost:
            low = max((p.time for p in self._page_then(gone, gone.page - 1)), default=None)
            high = min((p.time for p in self._page_then(gone, gone.page + 1)),
                       default=gone.read_at + DURING_A_READ)  # fmt: skip
            could |= {p.post_id for p in posts if (low is None or low <= p.time) and p.time <= high}
        return frozenset(could)

    def _page_then(self, gone: Lost, page: int) -> tuple[Post, ...]:
        """Page ``page`` as the read that lost ``gone`` found it: that read's own version,
        else the newest read before it. A page a read found unchanged has its listing moved
        on to a later read's (``ThreadCache.store_versions`` keeps a content's first read and
        its last), and one a read took from the cache is as it was last read: either way
        the newest version before the read holds the same posts. (Where the read's own is
        lost too, that older one bounds it closely enough: a post it held on either side
        of the bound was seen by that older read.)"""
        mine = [v for v in self.versions if (v.way, v.page) == (gone.way, page)]
        own = next((v for v in mine if gone.read and v.read == gone.read), None)
        before = (v for v in mine if v.read_at <= gone.read_at)
        found = own or max(before, key=lambda v: v.read_at, default=None)
        return found.posts if found is not None else ()


# A post made while a read was under way may miss it and still be older than its end: the
# forum's clock against this machine's, times shown to the minute, a read of many pages.
DURING_A_READ = timedelta(minutes=5)


# The writings of each thread alive (``Thread.writings``), made once a thread: a count and a
# lurker check walk a thread's writings a few dozen times (each day's check, each guard), and
# each walk made them anew. Kept by the thread's id, not in it: a thread's ``__dict__`` holds
# its fields alone (``Thread(**vars(thread))`` is a copy), and the entry goes with it.
_WRITINGS: dict[int, tuple[Writing, ...]] = {}


@dataclass(frozen=True)
class Thread:
    """Every page of one thread, read and parsed."""

    platform: str
    thread_id: str
    url: str
    title: str
    page_count: int
    posts: tuple[Post, ...]
    reply_count: int | None = None
    # Where each page came from (``tally.vocabulary.Origin``: network, cache, file, …).
    sources: tuple[str, ...] = field(default=())
    # Floor numbers below the last one that the thread no longer shows (deleted, hidden).
    gaps: tuple[int, ...] = ()
    # When the forum was read (the last page fetched); None for saved files, which say
    # nothing of when they were saved.
    read_at: datetime | None = None
    # What a partial read lacks ("page 3 of 4", "floor 7: 10 of its 14 楼中楼"); empty for a
    # whole thread. Only `tally archive --partial` makes such a thread.
    missing: tuple[str, ...] = ()
    # The board the thread is of, as host and path ("bbs.example.com/bbs/"; Tieba:
    # "tieba.baidu.com"): thread 23 of one board is not thread 23 of another. "" for saved
    # pages that name no board.
    origin: str = ""
    # Every version of its pages tally read from the forum (kept in its cache), when
    # it was read through the cache; None for saved pages and archives.
    history: History | None = field(default=None, compare=False, repr=False)
    # Posts of this thread that tally read in another thread of the board before (post id ->
    # that thread's id): a moderator moved or merged them in (移动, 合并).
    moved_in: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    # What tally read each post's thread as when it first found the post there, this
    # thread or the one of ``moved_in`` (post id -> (day, role) pairs the game file gave
    # that thread: "vote", "discussion", …; "unsure" where that read could not tell: a
    # vote thread merged into it, 合并). A post no read with the game's days found is left
    # out (a cache written before they were kept).
    read_as: Mapping[str, tuple[tuple[int, str], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    # The days this thread is the vote thread of now, read as another of their threads
    # before, while tally read as that day's vote thread a thread the game file names
    # otherwise now: the file was mended since (the two URLs swapped), not merged.
    mended: frozenset[int] = field(default=frozenset(), compare=False, repr=False)
    # The thread's last page read says it is closed (关闭); and each run of tally's reads
    # that found it closed, its first and last (kept in the cache).
    closed: bool = False
    # (first and last closed read, first open read after it or None).
    closed_runs: tuple[tuple[datetime, datetime, datetime | None], ...] = field(
        default=(), compare=False, repr=False
    )
    # How the forum was read: "pages" (its HTML pages), "api" (its interface for its own
    # clients: tally.forums.api); "" for saved pages and archives.
    read_by: str = field(default="", compare=False)

    def closed_during(
        self, opens: datetime, closes: datetime
    ) -> tuple[datetime, datetime, datetime | None] | None:
        """The first run of reads that found it closed and may reach into the day: read
        closed before the close, and not read open again by the open."""
        return next(
            (r for r in self.closed_runs if r[0] < closes and (r[2] is None or r[2] > opens)),
            None,
        )

    @property
    def key(self) -> ThreadKey:
        return ThreadKey(self.platform, self.thread_id)

    def short_of_replies(self) -> bool:
        """Whether the floors (and their comments) read fall short of the replies the thread
        says it has: a page, a floor or a comment is missing from what was read."""
        if self.reply_count is None:
            return False
        replies = len(self.posts) - 1
        comments = sum(len(p.comments) for p in self.posts)
        return replies < self.reply_count and replies + comments < self.reply_count

    @property
    def as_of(self) -> datetime | None:
        """The time the thread is known to be complete up to.

        Read from the forum: the time it was read. Saved files: the newest post or comment
        in them, since a page saved earlier cannot show what came after.
        """
        if self.read_at is not None:
            return self.read_at
        return max((w.time for w in self.writings()), default=None)

    def writings(self, *, comments: bool = True) -> Iterator[Writing]:
        """Every floor, each followed by its comments (oldest first) when asked for."""
        made = _WRITINGS.get(id(self))
        if made is None:
            made = _WRITINGS[id(self)] = tuple(self._writings())
            weakref.finalize(self, _WRITINGS.pop, id(self), None)
        if comments:
            return iter(made)
        return (w for w in made if w.comment_index is None)

    def _writings(self) -> Iterator[Writing]:
        for p in self.posts:
            yield Writing(p, None, p.post_id, p.author, p.author_display, p.time, p.text,
                          p.author_id, p.to_the_minute, p.red_font, p.large_font)  # fmt: skip
            for i, c in enumerate(p.comments, start=1):
                yield Writing(p, i, c.comment_id, c.author, c.author_display, c.time, c.text,
                              c.author_id, c.to_the_minute, red_font=c.red_font)  # fmt: skip
