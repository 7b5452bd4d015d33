"""The rules tally applies: a game and its threads in, verdicts out. Each folder answers one
question, and stands only on the ones before it (tests/test_house.py):

- ``game``: what game is this? Its file read and checked, its rules, who is who.
- ``judging``: does this ballot count, and why? The vote thread as it stood, post by post.
- ``counting``: what did the day decide? The ballots weighed, the tie broken, the day's facts.
- ``cards``: who is carded? Posts per player, lurking and posting violations, the ledger.

``verdicts`` holds the words every answer is given in (status, kind, why a ballot is void,
tie step, outcome, card colour), each with the sentences said of it.
"""
