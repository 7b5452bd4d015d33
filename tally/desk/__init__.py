"""`tally desk`: the evening of a game in a local web page (Starlette on 127.0.0.1).

``state`` holds the one reader, the one poller per day and the director's actions, each a
call of the function the matching command calls (``tally.commands.watch.read_polls``,
``tally.commands``), with the game file as ``follow`` reads it now (again when it changed
on disk); ``posted`` knows a day's closing post already made (the journal of posts, tally's
mark); ``pages`` holds each page as a view in one table (its path, name, template and JSON
twin) and the actions beside it; ``views`` turns the library's results into what the pages
show; ``app`` builds the ASGI app from the table, behind its ``guard`` (key, Origin, Host);
``serve`` binds 127.0.0.1 and runs uvicorn.

The desk stands a stage above the commands, as the command line does: it imports them, and
of the commands only `tally desk` (``tally.commands.desk``) imports it, to start it
(``serve``).
"""
