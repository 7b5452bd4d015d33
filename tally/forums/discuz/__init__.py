"""Discuz! (X2 to X3.5, and 6/7): the platform and how its pages are read."""

from tally.forums.discuz.pages import DiscuzPages
from tally.forums.discuz.platform import Discuz

__all__ = ["Discuz", "DiscuzPages"]
