"""What did the day decide? ``votes.tally_day`` counts one day: the stops for a director's
mistakes first (``guards``, ``uids``, ``announced``), what the day inherits from the days
before (``state``), the judged ballots weighed and totalled and the tie broken (``count``,
RULES C1-C8), acceleration requests (``acceleration``, S3), and a posted result kept
(``closed``). Beside it, a day counted again and again (``polls``, for tally watch) and
moment by moment (``timeline``, for tally report)."""
