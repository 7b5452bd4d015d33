"""Does this ballot count, and why? A day's vote thread read post by post (RULES V1-V12, S2):
the thread as it stood at the close (``standing``, ``approved``, ``merges``), what a post says
(``ballot_text``), whom it names (``targets``), a voter's ballots in order (``changes``,
``ordering``), times shown to the minute (``minutes``), the posts that hold no ballot
(``rows``, ``own``); ``judge`` makes each a ``Ballot`` (``ballots``) with its status and
reason, weighed while it is judged as ``work``."""
