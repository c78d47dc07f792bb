"""Gzip rotations (`state-change.log.2024-05-01-13.gz`) that end before their end-of-stream
marker: a copy taken while logrotate was still compressing, or a transfer cut short. Neither
Python's gzip nor Hadoop's codec reads past the cut (both raise), so the audit names such a file
before it reads anything instead of failing half-way. Shared by the local and the Spark ingest."""
from __future__ import annotations

import zlib
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20   # compressed bytes decoded at a time: memory stays bounded on a large rotation


def gzip_cut(stream: BinaryIO) -> int | None:
    """None if `stream` is whole gzip (one member, or several as `cat a.gz b.gz` joins them; an
    empty file too); else the count of line ends it holds before the stream breaks off (a cut,
    or bytes that do not decode)."""
    lines, member, data = 0, None, b""
    while True:
        if not data:
            data = stream.read(CHUNK)
            if not data:   # the input's end: whole unless a member is still open
                return lines if member is not None and not member.eof else None
        if member is None or member.eof:
            if member is not None and not data.startswith(GZIP_MAGIC[:len(data)]):
                return None   # bytes after the last member (padding): as gzip -d, not records
            member = zlib.decompressobj(wbits=31)
        try:
            lines += member.decompress(data).count(b"\n")
        except zlib.error:
            return lines
        data = member.unused_data


class TruncatedGzip(ValueError):
    """A gzip input that ends early (cut_reason says which, where and what to do)."""


def cut_reason(file: str, lines: int) -> str:
    name = file.rsplit("/", 1)[-1]
    return (f"{file}: the gzip stream ends early, after line {lines:,} (a copy taken while logrotate was "
            f"compressing it, or a transfer cut short). Its records after the cut cannot be read, and the audit "
            f"does not lose them in silence: use a whole copy, or audit the lines it holds (`gunzip -c {name} > "
            f"{name[:-3]}`, then move the .gz out of the input)")
