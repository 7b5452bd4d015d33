"""A body decompressed as it comes off the wire, in bounded memory: gzip, and deflate both
as the standard wraps it (zlib) and as some servers send it (raw), never more than the cap
at once, so a gzip bomb stops at the cap (``tally.forums.http`` reads the body through it).
"""

from __future__ import annotations

import zlib
from typing import Any

# The Content-Encodings tally reads; another is one sentence, not a guess.
ENCODINGS = ("identity", "", "gzip", "x-gzip", "deflate")


def _zlib_header(data: bytes) -> bool:
    """Whether a deflate body starts with a zlib header (RFC 1950) rather than raw deflate."""
    return len(data) >= 2 and data[0] & 0x0F == 8 and ((data[0] << 8) | data[1]) % 31 == 0


class Unpacker:
    """One body's bytes, unpacked chunk by chunk up to ``cap`` bytes; a damaged body raises
    ``zlib.error``."""

    def __init__(self, encoding: str, cap: int):
        self.encoding = encoding
        self.cap = cap
        self.out = bytearray()
        self._head = b""  # the first bytes of a deflate body, until they tell which kind it is
        self._decoder: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def feed(self, chunk: bytes) -> bool:
        """Unpack one chunk; False once the body unpacks to more than the cap."""
        if self.encoding == "deflate" and self._decoder is None:
            # "deflate" is zlib-wrapped by the standard and raw deflate by some servers
            # (old IIS, some PHP set-ups): the first two bytes tell.
            self._head += chunk
            if len(self._head) < 2:
                return True
            raw = not _zlib_header(self._head)
            self._decoder = zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
            chunk = self._head
        if self._decoder is None:
            self.out += chunk
            return len(self.out) <= self.cap
        data = chunk
        while data:
            # Never more than the cap at once: a bomb is cut off in bounded memory.
            self.out += self._decoder.decompress(data, self.cap - len(self.out) + 1)
            if len(self.out) > self.cap:
                return False
            data = self._decoder.unconsumed_tail
        return True

    @property
    def whole(self) -> bool:
        """Whether the body ended where its compression says it ends (a plain one always
        has; one byte of a deflate body has not)."""
        if self._decoder is None:
            return not self._head
        return bool(self._decoder.eof)
