"""Baidu Tieba: the platform (its client API) and its saved pages."""

from tally.forums.tieba.platform import Tieba

__all__ = ["Tieba"]
