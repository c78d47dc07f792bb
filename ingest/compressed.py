"""Compressed rotations (`state-change.log.2024-05-01-13.gz`, log4j2's `.bz2` and `.zst`, logrotate's
`compresscmd`). Hadoop's text reader, which the Spark ingest reads through, picks a codec by the
name's suffix (CompressionCodecFactory); the local ingest decodes the same suffixes the same way.
Three kinds of input cannot be read as they are, and the audit names them before it reads
anything rather than fail half-way or lose their records in silence:
- a compressed one that ends early (copied while logrotate was compressing it, a transfer cut short): neither
  Hadoop's codecs nor Python's read past the cut, and the Spark job failed half-way on it;
- one in a format Hadoop does not decode: it reads `.xz` as raw bytes (lines of garbage), and a
  `.lz4` file of the lz4 tool (its frame format, not Hadoop's block format) as no line at all;
- an archive of files (`kafka-logs.tar.gz`, `.tgz`, `.tar`, `.zip`), the way logs are often handed
  over: read as one log, its files' lines run together under the archive's name (one kind of log,
  one broker), each file's first line glued to the archive's header before it.
Compressed data or an archive under a plain name is known by its first line (misnamed_reason),
which the Spark ingest sees only as it parses: refused then, still before anything is written.
The codecs and archives are data: a format is one row below. Shared by the local and the Spark ingest."""
from __future__ import annotations

import bz2
import io
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
    ".lz4": Undecoded("lz4", b"\x04\x22\x4d\x18", "lz4 -dc", "no line of it, its Lz4Codec reading Hadoop's own block format"),
}


class Archive(NamedTuple):
    name: str
    at: int          # where its magic is in the bytes its name's codec (if any) decodes to
    magic: bytes
    extract: str     # the command that extracts one into a folder


TAR = Archive("tar", 257, b"ustar", "mkdir -p {folder} && tar -xf {name} -C {folder}")   # GNU tar finds the compression
ZIP = Archive("zip", 0, b"PK\x03\x04", "unzip {name} -d {folder}")
HEAD = 512   # decoded bytes read for an archive's magic: a tar header block

# Suffixes that name an archive: the archive, and the codec suffix its bytes are compressed with.
# Hadoop decodes none of the short forms (`.tgz` is read as gzip bytes); `.tar.gz` is a `.gz`.
ARCHIVE_SUFFIXES = {".tar": (TAR, None), ".zip": (ZIP, None), ".tgz": (TAR, ".gz"), ".tbz2": (TAR, ".bz2"),
                    ".tbz": (TAR, ".bz2"), ".tzst": (TAR, ".zst"), ".txz": (TAR, ".xz")}


def _suffix(path: str) -> str:
    dot = path.rfind(".")
    return path[dot:] if dot > path.rfind("/") else ""


def codec_suffix(path: str) -> str | None:
    """The compression suffix of `path` the audit knows (decoded or not), or None."""
    suffix = _suffix(path)
    return suffix if suffix in DECODED or suffix in UNDECODED else None


def checked_suffix(path: str) -> str | None:
    """The suffix that makes `path` an input to check before reading (unreadable_reason): a
    compression or an archive suffix; None for a file read as it is."""
    suffix = _suffix(path)
    return suffix if suffix in DECODED or suffix in UNDECODED or suffix in ARCHIVE_SUFFIXES else None


class UnreadableInput(ValueError):
    """An input the audit cannot read as it is: compressed, an archive (the message says which, where
    and what to do)."""


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


def _archive_reason(file: str, suffix: str, archive: Archive) -> str:
    name = file.rsplit("/", 1)[-1]
    folder = name[:-len(suffix)].removesuffix(".tar")
    return (f"{file}: a {archive.name} archive of files. Read as one log, its files' lines would run together "
            f"under its name (one kind of log, one broker), each file's first line glued to the archive's header "
            f"before it: extract it and audit the folder (`{archive.extract.format(name=name, folder=folder)}`, "
            f"then move {name} out of the input)")


def _archive_in(head: bytes) -> Archive | None:
    """The archive whose magic `head` (an input's first decoded bytes) holds, or None."""
    return next((a for a in (TAR, ZIP) if head[a.at:a.at + len(a.magic)] == a.magic), None)


def unreadable_reason(file: str, stream: BinaryIO, chunk: int = CHUNK,
                      decoded: list[bytes] | None = None) -> str | None:
    """Why the input `file` (its bytes in `stream`) cannot be read as it is, or None. Only a file
    with a checked_suffix is examined; another is read as it is. `decoded`, if given, receives what
    a rotation Hadoop decodes decodes to (read_bytes keeps it rather than decode it a second time)."""
    suffix = checked_suffix(file)
    named, outer = ARCHIVE_SUFFIXES.get(suffix, (None, suffix))   # `.tgz`: a tar, in gzip
    if (named is not None and outer is not None) or outer in UNDECODED:
        # Hadoop reads its bytes as they are: what they start with decides.
        magic = (DECODED.get(outer) or UNDECODED[outer]).magic
        if stream.read(len(magic)) != magic:
            return None   # plain text so named: read as such
        if named is None and file[:-len(suffix)].endswith(".tar"):   # `.tar.xz`: the name says what it holds
            named = TAR
        return _archive_reason(file, suffix, named) if named is not None else _undecoded_reason(file, suffix)
    head = b""
    if outer in DECODED:   # decoded to its end: a cut shows only there
        try:
            for out in _decoded(DECODED[outer], stream, chunk):
                head += out[:HEAD - len(head)]
                if decoded is not None:
                    decoded.append(out)
        except _Cut as cut:
            return _cut_reason(file, suffix, cut.lines)
    elif suffix is not None:   # `.tar`, `.zip`
        head = stream.read(HEAD)
    archive = _archive_in(head)
    return _archive_reason(file, suffix, archive) if archive is not None else None


def _text(magic: bytes) -> str:
    return magic.decode("utf-8", errors="replace")   # as both readers hand bytes that are not UTF-8 on


def misnamed_reason(file: str, first_line: str) -> str | None:
    """Why `file`, whose name says it is text (no checked_suffix), cannot be read as it is, from
    its first line as the readers hand it on (a byte that is not UTF-8 as U+FFFD): it is compressed
    data or an archive, which both readers know only by the name. None for text: every format here
    writes bytes no log text holds (NUL, or not UTF-8) in its first line, and only its magic starts it."""
    if "\x00" not in first_line and "\ufffd" not in first_line:
        return None
    name = file.rsplit("/", 1)[-1]
    # A tar header holds the member's name (in UTF-8, so maybe not one character a byte) before its magic.
    head = first_line[:HEAD]
    archive = (ZIP if first_line.startswith(_text(ZIP.magic)) else
               TAR if "ustar\x00" in head or "ustar  \x00" in head else None)
    if archive is not None:
        return (f"{file}: a {archive.name} archive of files, though its name does not say so: extract it and audit "
                f"the folder (`{archive.extract.format(name=name, folder=name + '.d')}`, then move {name} out of the input)")
    for suffix, codec in (*DECODED.items(), *UNDECODED.items()):
        if len(codec.magic) < 2 or not first_line.startswith(_text(codec.magic)):   # zlib's one byte is an `x`
            continue
        if suffix in DECODED:
            return (f"{file}: {codec.name}-compressed, though its name does not end in {suffix}: Hadoop's text reader "
                    f"decodes by the name (and so does the local ingest): rename it (`mv {name} {name}{suffix}`)")
        return (f"{file}: {codec.name}-compressed, which Hadoop's text reader does not decompress: decompress it first "
                f"(`{codec.to_stdout} < {name} > {name}.log`, then move {name} out of the input)")
    return None


def read_bytes(file: str, stream: BinaryIO) -> bytes:
    """The bytes of `file` as Hadoop's text reader gets them: decompressed by its suffix. Raises
    UnreadableInput where unreadable_reason gives a reason."""
    data, decoded = stream.read(), []
    reason = unreadable_reason(file, io.BytesIO(data), CHUNK, decoded)
    if reason is not None:
        raise UnreadableInput(reason)
    return b"".join(decoded) if codec_suffix(file) in DECODED else data
