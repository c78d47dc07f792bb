"""Compressed rotations (`state-change.log.2024-05-01-13.gz`, log4j2's `.bz2` and `.zst`, logrotate's
`compresscmd`). Hadoop's text reader, which the Spark ingest reads through, picks a codec by the
name's suffix (CompressionCodecFactory); the local ingest decodes the same suffixes the same way.
Two kinds of such a file cannot be read as they are, and the audit names them before it reads
anything rather than fail half-way or lose their records in silence:
- one that ends early (copied while logrotate was compressing it, a transfer cut short): neither
  Hadoop's codecs nor Python's read past the cut, and the Spark job failed half-way on it;
- one in a format Hadoop does not decode: it reads `.xz` and `.zip` as raw bytes (lines of garbage),
  and a `.lz4` file of the lz4 tool (its frame format, not Hadoop's block format) as no line at all.
The codecs are data: a format is one row below. Shared by the local and the Spark ingest."""
from __future__ import annotations

import bz2
import zlib
from typing import Any, BinaryIO, Callable, Iterator, NamedTuple

import zstandard

CHUNK = 1 << 20   # compressed bytes decoded at a time: memory stays bounded on a large rotation


class Codec(NamedTuple):
    name: str                      # as its command-line tool is called
    magic: bytes                   # every stream (gzip member, bzip2 stream, zstd frame) starts with it
    decoder: Callable[[], Any]     # a fresh streaming decoder: decompress(data), eof, unused_data
    errors: tuple[type[Exception], ...]   # what the decoder raises on bytes that do not decode
    to_stdout: str                 # the command that writes the lines the file holds


# What Hadoop decodes (GzipCodec, BZip2Codec, ZStandardCodec, DefaultCodec), by suffix.
DECODED = {
    ".gz": Codec("gzip", b"\x1f\x8b", lambda: zlib.decompressobj(wbits=31), (zlib.error,), "gunzip -c"),
    ".bz2": Codec("bzip2", b"BZh", bz2.BZ2Decompressor, (OSError,), "bzip2 -dc"),
    ".zst": Codec("zstd", b"\x28\xb5\x2f\xfd", lambda: zstandard.ZstdDecompressor().decompressobj(),
                  (zstandard.ZstdError,), "zstd -dc"),
    ".deflate": Codec("zlib", b"\x78", zlib.decompressobj, (zlib.error,), "pigz -dcz"),   # log4j2's .deflate
}


class Undecoded(NamedTuple):
    name: str
    magic: bytes         # a file so named that does not start with it is plain text, read as such
    to_stdout: str
    hadoop_reads: str    # what Hadoop's text reader makes of it


# What Hadoop does not decode, by suffix: log4j2 and logrotate write these too.
UNDECODED = {
    ".xz": Undecoded("xz", b"\xfd7zXZ\x00", "xz -dc", "its compressed bytes as lines"),
    ".zip": Undecoded("zip", b"PK\x03\x04", "unzip -p", "its compressed bytes as lines"),
    ".lz4": Undecoded("lz4", b"\x04\x22\x4d\x18", "lz4 -dc", "no line of it, its Lz4Codec reading Hadoop's own block format"),
}


def codec_suffix(path: str) -> str | None:
    """The compression suffix of `path` the audit knows (decoded or not), or None."""
    dot = path.rfind(".")
    suffix = path[dot:] if dot > path.rfind("/") else ""
    return suffix if suffix in DECODED or suffix in UNDECODED else None


class UnreadableInput(ValueError):
    """A compressed input the audit cannot read as it is (the message says which, where and what to do)."""


class _Cut(Exception):
    def __init__(self, lines: int):
        self.lines = lines


def _decoded(codec: Codec, stream: BinaryIO, chunk: int) -> Iterator[bytes]:
    """The bytes `stream` decodes to, stream after stream (`cat a.gz b.gz` joins two, and every
    decoder reads on); bytes after the last one that start no stream are padding, as gzip -d and
    bzip2 -d leave them. Raises _Cut with the count of line ends before a cut or undecodable bytes."""
    lines, decoder, data = 0, None, b""
    while True:
        if not data:
            data = stream.read(chunk)
            if not data:   # the input's end: whole unless a stream is still open
                if decoder is not None and not decoder.eof:
                    raise _Cut(lines)
                return
        if decoder is None or decoder.eof:
            if decoder is not None and not data.startswith(codec.magic[:len(data)]):
                return
            decoder = codec.decoder()
        try:
            out = decoder.decompress(data)
        except codec.errors:
            raise _Cut(lines) from None
        lines += out.count(b"\n")
        yield out
        data = decoder.unused_data


def _cut_reason(file: str, suffix: str, lines: int) -> str:
    name = file.rsplit("/", 1)[-1]
    return (f"{file}: the {DECODED[suffix].name} stream ends early, after line {lines:,} (a copy taken while "
            f"logrotate was compressing it, or a transfer cut short). Its records after the cut cannot be read, and "
            f"the audit does not lose them in silence: use a whole copy, or audit the lines it holds "
            f"(`{DECODED[suffix].to_stdout} {name} > {name[:-len(suffix)]}`, then move the {suffix} out of the input)")


def _undecoded_reason(file: str, suffix: str) -> str:
    name, codec = file.rsplit("/", 1)[-1], UNDECODED[suffix]
    return (f"{file}: {codec.name}-compressed, which Hadoop's text reader does not decompress (it would read "
            f"{codec.hadoop_reads}): decompress it first "
            f"(`{codec.to_stdout} {name} > {name[:-len(suffix)]}`, then move the {suffix} out of the input)")


def unreadable_reason(file: str, stream: BinaryIO, chunk: int = CHUNK) -> str | None:
    """Why the compressed input `file` (its bytes in `stream`) cannot be read as it is, or None."""
    suffix = codec_suffix(file)
    if suffix in UNDECODED:
        magic = UNDECODED[suffix].magic
        return _undecoded_reason(file, suffix) if stream.read(len(magic)) == magic else None
    if suffix in DECODED:
        try:
            for _ in _decoded(DECODED[suffix], stream, chunk):
                pass
        except _Cut as cut:
            return _cut_reason(file, suffix, cut.lines)
    return None


def read_bytes(file: str, stream: BinaryIO) -> bytes:
    """The bytes of `file` as Hadoop's text reader gets them: decompressed by its suffix. Raises
    UnreadableInput where unreadable_reason gives a reason."""
    suffix = codec_suffix(file)
    if suffix in DECODED:
        try:
            return b"".join(_decoded(DECODED[suffix], stream, CHUNK))
        except _Cut as cut:
            raise UnreadableInput(_cut_reason(file, suffix, cut.lines)) from None
    head = stream.read()
    if suffix in UNDECODED and head.startswith(UNDECODED[suffix].magic):
        raise UnreadableInput(_undecoded_reason(file, suffix))
    return head
