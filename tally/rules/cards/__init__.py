"""Who is carded? ``lurkers.check`` counts each player's writings of a day (``writings``) and
proposes the cards the rules give (RULES L1-L3) and flags for the director (L5-L8); the card
ledger (``ledger``) holds every card of the game and what the cards make (K1-K3)."""
