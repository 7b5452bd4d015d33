"""`tally desk`: the evening of a game in a local web page (Starlette on 127.0.0.1).

``state`` holds the one reader, the one poller per day and the director's actions, each a
call of the function the matching command calls (``tally.commands.watch.read_polls``,
``tally.commands``), with the game file as ``follow`` reads it now (again when it changed
on disk); ``posted`` knows a day's closing post already made (the journal of posts, tally's
mark); ``views`` turns their results into what the templates show; ``app`` is the ASGI app
and its guard (token, Origin, Host); ``serve`` binds 127.0.0.1 and runs uvicorn. Nothing
here is imported by the other commands.
"""
