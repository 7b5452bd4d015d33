"""What each command does, one module per command named as the command (``votes``,
``lurkers``, ``announce``, …), each holding the library function the command calls; beside
them ``threads`` (a day's threads as the commands read them), ``checks`` (what a command
checks before it reads) and ``run`` (a run's setup: the settings merged, the game loaded).

The CLI parses options, calls one of these and shows what it returns (``tally.outputs.
results``); the demo, the desk and any program that embeds tally call the same functions,
with the same checks. Every thread comes through one ``Reader`` per run (the HTTP client,
the cache, the clock; ``tally.forums.reader``).
"""
