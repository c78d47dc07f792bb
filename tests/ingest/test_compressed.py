"""Compressed rotations (ingest.compressed): decoded by suffix as Hadoop decodes them; one cut short
or in a format Hadoop does not decode, and an archive of files, is named by file and line before
anything is read, locally and (tests/spark/test_audit_logs.py) inside Spark."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import shutil
import subprocess
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.compressed import (ARCHIVE_SUFFIXES, DECODED, TAR, UNDECODED, ZIP, UnreadableInput, misnamed_reason, read_bytes,
                               unreadable_reason)
from ingest.local import ingest_files, log_files, read_text_lines

SCENARIO = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "zk-2.4.1-unclean"
TEXT = b"".join(b"[2024-05-01 10:00:00,%03d] TRACE line %d (state.change.logger)\n" % (i % 1000, i) for i in range(20000))
# What each format's own tool writes (the zstd tool writes a checksum, without which a corrupt frame may decode).
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".zst": zstandard.ZstdCompressor(write_checksum=True).compress, ".deflate": zlib.compress}
WHOLE = {suffix: compress(TEXT) for suffix, compress in COMPRESS.items()}


def test_every_format_hadoop_decodes_is_written_here():
    assert set(COMPRESS) == set(DECODED)


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("layout", ["one stream", "two streams (cat a b)", "zero padding", "empty file", "empty stream"])
def test_a_whole_file_reads_to_its_lines(suffix, layout):
    compress = COMPRESS[suffix]
    data, text = {"one stream": (WHOLE[suffix], TEXT), "two streams (cat a b)": (WHOLE[suffix] + compress(b"x\n"), TEXT + b"x\n"),
                  "zero padding": (WHOLE[suffix] + b"\0" * 16, TEXT), "empty file": (b"", b""),
                  "empty stream": (compress(b""), b"")}[layout]
    assert unreadable_reason("state-change.log.1" + suffix, io.BytesIO(data)) is None
    assert read_bytes("state-change.log.1" + suffix, io.BytesIO(data)) == text


@settings(max_examples=60, deadline=None)
@given(suffix=st.sampled_from(sorted(COMPRESS)), cut=st.floats(0, 1, exclude_max=True),
       chunk=st.sampled_from([7, 4096, 1 << 20]))
def test_a_cut_file_is_named_with_the_line_ends_decoded_before_the_cut(suffix, cut, chunk):
    """Cut anywhere (in a header, the compressed data or a trailer) and read in chunks of any size:
    the line named is the count of line ends a decoder gets from the bytes before the cut."""
    data = WHOLE[suffix][:max(1, int(len(WHOLE[suffix]) * cut))]
    lines = DECODED[suffix].decoder().decompress(data).count(b"\n")
    reason = unreadable_reason("logs/state-change.log.1" + suffix, io.BytesIO(data), chunk)
    assert reason.startswith(f"logs/state-change.log.1{suffix}: the {DECODED[suffix].name} stream ends early, "
                             f"after line {lines:,} ")
    with pytest.raises(UnreadableInput) as raised:
        read_bytes("logs/state-change.log.1" + suffix, io.BytesIO(data))
    assert str(raised.value) == unreadable_reason("logs/state-change.log.1" + suffix, io.BytesIO(data))


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_bytes_that_do_not_decode_break_the_stream_off(suffix):
    data = WHOLE[suffix][:100] + b"\xff" * 64 + WHOLE[suffix][164:]
    assert "stream ends early" in unreadable_reason("state-change.log.1" + suffix, io.BytesIO(data))


def lz4_tool(data: bytes) -> bytes:   # the lz4 frame format, which no standard library writes
    if shutil.which("lz4") is None:
        pytest.skip("the lz4 tool is not installed")
    return subprocess.run(["lz4", "-q", "-c"], input=data, capture_output=True, check=True).stdout


@pytest.mark.parametrize("suffix, compress", [(".xz", lzma.compress), (".lz4", lz4_tool)])
def test_a_format_hadoop_does_not_decode_is_named_and_plain_text_so_named_is_read(suffix, compress):
    """What the format's tool writes starts with its magic: refused, with the command that decodes it."""
    data = compress(TEXT)
    assert data.startswith(UNDECODED[suffix].magic)
    reason = unreadable_reason("logs/controller.log.1" + suffix, io.BytesIO(data))
    assert reason.startswith(f"logs/controller.log.1{suffix}: {UNDECODED[suffix].name}-compressed, which Hadoop's "
                             f"text reader does not decompress")
    assert f"`{UNDECODED[suffix].to_stdout} controller.log.1{suffix} > controller.log.1`" in reason
    with pytest.raises(UnreadableInput):
        read_bytes("logs/controller.log.1" + suffix, io.BytesIO(data))
    assert unreadable_reason("logs/controller.log.1" + suffix, io.BytesIO(TEXT)) is None
    assert read_bytes("logs/controller.log.1" + suffix, io.BytesIO(TEXT)) == TEXT


def test_compressed_rotations_ingest_as_the_plain_logs(tmp_path):
    """Every log of the 2.4.1 scenario compressed in a format Hadoop decodes: the same records,
    each from its rotation, read as the kind of log it holds (`state-change.log.1.bz2` is a state-change log)."""
    plain = ingest_files(log_files(SCENARIO), "c")
    rotation = {}
    for log, suffix in zip(sorted(SCENARIO.rglob("*.log")), sorted(COMPRESS) * 2):
        rotation[str(log)] = str(tmp_path / log.parent.name / (log.name + ".1" + suffix))
        Path(rotation[str(log)]).parent.mkdir(exist_ok=True)
        Path(rotation[str(log)]).write_bytes(COMPRESS[suffix](log.read_bytes()))
    rotated = ingest_files(log_files(tmp_path), "c")
    assert len(plain.events) > 20 and not plain.quarantine and not rotated.quarantine
    assert {Path(f).suffix for f in rotated.files} == set(COMPRESS)
    assert [(e.event_type, e.source_line) for e in rotated.events] == [(e.event_type, e.source_line) for e in plain.events]
    assert rotated.files == {rotation[f]: i for f, i in plain.files.items()}


def test_the_local_ingest_names_a_cut_rotation_and_its_line(tmp_path):
    """The 2.4.1 scenario with broker 3's state-change.log as a rotation cut a third from its end."""
    shutil.copytree(SCENARIO, tmp_path / "c", ignore=shutil.ignore_patterns("README.md"))
    log = tmp_path / "c" / "broker-3" / "state-change.log"
    data = gzip.compress(log.read_bytes())
    (log.parent / "state-change.log.2024-05-01-13.gz").write_bytes(data[: len(data) * 2 // 3])
    log.unlink()
    with pytest.raises(UnreadableInput, match=r"state-change\.log\.2024-05-01-13\.gz: the gzip stream ends early, after "
                                              r"line \d+ .*gunzip -c state-change\.log\.2024-05-01-13\.gz > "
                                              r"state-change\.log\.2024-05-01-13`"):
        ingest_files(log_files(tmp_path / "c"), "c")


def tarred(folder: Path) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:   # as `tar -cf - zk-2.4.1-unclean` writes it
        t.add(folder, arcname=folder.name)
    return out.getvalue()


def zipped(folder: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(folder.rglob("*")):
            z.write(f, f.relative_to(folder.parent))
    return out.getvalue()


TAR_BY_SUFFIX = {".tar": bytes, ".tar.gz": gzip.compress, ".tgz": gzip.compress, ".tar.bz2": bz2.compress,
                 ".tbz2": bz2.compress, ".tbz": bz2.compress, ".tar.zst": zstandard.ZstdCompressor().compress,
                 ".tzst": zstandard.ZstdCompressor().compress, ".tar.xz": lzma.compress, ".txz": lzma.compress,
                 ".tar.deflate": zlib.compress}


def test_every_archive_suffix_is_written_here():
    assert {s for s in TAR_BY_SUFFIX if s.count(".") == 1} | {".zip"} == set(ARCHIVE_SUFFIXES)


@pytest.mark.parametrize("suffix", [*TAR_BY_SUFFIX, ".zip"])
def test_an_archive_of_logs_is_refused_with_the_command_that_extracts_it(suffix):
    """A cluster's logs handed over as an archive: Hadoop would read a tar (decoded, or as the
    bytes of a `.tgz`) or a zip as one file's lines. Named, with how to extract it, whatever it is
    compressed with; text named as an archive Hadoop reads as bytes is read as text."""
    data = zipped(SCENARIO) if suffix == ".zip" else TAR_BY_SUFFIX[suffix](tarred(SCENARIO))
    archive, name = (ZIP if suffix == ".zip" else TAR), "kafka-logs" + suffix
    reason = unreadable_reason("in/" + name, io.BytesIO(data))
    assert reason.startswith(f"in/{name}: a {archive.name} archive of files. Read as one log, ")
    assert f"(`{archive.extract.format(name=name, folder='kafka-logs')}`, then move {name} out of the input)" in reason
    with pytest.raises(UnreadableInput) as raised:
        read_bytes("in/" + name, io.BytesIO(data))
    assert str(raised.value) == reason
    if suffix in ARCHIVE_SUFFIXES:
        assert unreadable_reason("in/" + name, io.BytesIO(TEXT)) is None
        assert read_bytes("in/" + name, io.BytesIO(TEXT)) == TEXT


@pytest.mark.parametrize("suffix", [".tar.gz", ".zip"])
def test_an_archive_extracted_as_the_reason_says_ingests_as_its_logs(tmp_path, suffix):
    """The scenario handed over as an archive: the local ingest refuses it; extracted by the
    reason's own command, the folder reads to the scenario's records."""
    tool = "unzip" if suffix == ".zip" else "tar"
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    given = tmp_path / "given"
    given.mkdir()
    archive = given / ("kafka-logs" + suffix)
    archive.write_bytes(zipped(SCENARIO) if suffix == ".zip" else gzip.compress(tarred(SCENARIO)))
    with pytest.raises(UnreadableInput) as raised:
        ingest_files(log_files(given), "c")
    command = str(raised.value).split("`")[1]
    subprocess.run(command, shell=True, cwd=given, check=True, capture_output=True)
    archive.rename(tmp_path / archive.name)
    plain, extracted = ingest_files(log_files(SCENARIO), "c"), ingest_files(log_files(given), "c")
    assert len(plain.events) > 20 and not extracted.quarantine
    assert [e._replace(source_file=None) for e in extracted.events] == [e._replace(source_file=None) for e in plain.events]


MISNAMED = {"gzip": gzip.compress, "bzip2": bz2.compress, "zstd": zstandard.ZstdCompressor().compress, "xz": lzma.compress,
            "lz4": lz4_tool, "tar": lambda data: tarred(SCENARIO), "zip": lambda data: zipped(SCENARIO)}


@pytest.mark.parametrize("fmt", sorted(MISNAMED))
def test_compressed_data_or_an_archive_its_name_does_not_tell_of_is_named(tmp_path, fmt):
    """`state-change.log.1` that is gzip data (a rotation renamed, a download that kept no suffix):
    both readers pick a codec by the name, so it would be read as lines of compressed bytes. Its
    first line, as read, tells: refused with what to do (rename, decompress, extract)."""
    data = MISNAMED[fmt](TEXT)
    (tmp_path / "state-change.log.1").write_bytes(data)
    with pytest.raises(UnreadableInput) as raised:
        read_text_lines(str(tmp_path / "state-change.log.1"))
    reason = str(raised.value)
    assert reason == misnamed_reason(str(tmp_path / "state-change.log.1"), data.decode("utf-8", "replace").split("\n")[0])
    kind = {"tar": "a tar archive of files", "zip": "a zip archive of files"}.get(fmt, f"{fmt}-compressed")
    assert reason.startswith(f"{tmp_path}/state-change.log.1: {kind}")
    suffix = next((s for s, c in DECODED.items() if c.name == fmt), None)
    if suffix is not None:   # renamed as told, it reads to its lines
        assert f"(`mv state-change.log.1 state-change.log.1{suffix}`)" in reason
        (tmp_path / "state-change.log.1").rename(tmp_path / ("state-change.log.1" + suffix))
        assert read_text_lines(str(tmp_path / ("state-change.log.1" + suffix))) == TEXT.decode().splitlines()


@pytest.mark.parametrize("text", ["[2024-05-01 10:00:00,000] INFO caf\ufffd (state.change.logger)", "BZh is no log line",
                                  "x\ufffd\x00 a first line with binary bytes in it", "", "a line naming ustar\ufffd, no tar header",
                                  "[\x002\x000\x002\x004\x00-\x00"])   # UTF-16 text: quarantined line by line
def test_text_is_not_taken_for_compressed_data(text):
    assert misnamed_reason("logs/server.log", text) is None
