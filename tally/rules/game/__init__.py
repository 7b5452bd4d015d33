"""What game is this? The game file read, checked and frozen into a ``Game`` (``gamefile``,
its values by ``filekeys``, its days by ``dayblocks``; ``game``: players, days, threads,
rulings; ``cast``: who wrote what), the rules it plays by (``rulesets``: the four seed
games' presets and a game's ``[rules]``), and who is who: a name matched to the roster
(``names``), a name or ``uid:N`` the director types matched to a player (``accounts``)."""
