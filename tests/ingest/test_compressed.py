"""Gzip rotations that end early (ingest.compressed): found by name and line before anything is
read, locally and (tests/spark/test_audit_logs.py) inside Spark."""
from __future__ import annotations

import gzip
import io
import shutil
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import compressed
from ingest.compressed import TruncatedGzip, gzip_cut
from ingest.local import ingest_files, log_files

SCENARIO = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "zk-2.4.1-unclean"
TEXT = b"".join(b"[2024-05-01 10:00:00,%03d] TRACE line %d (state.change.logger)\n" % (i % 1000, i) for i in range(20000))
WHOLE = gzip.compress(TEXT)


@pytest.mark.parametrize("data", [WHOLE, WHOLE + gzip.compress(b"x\n"), WHOLE + b"\0" * 16, b"", gzip.compress(b"")],
                         ids=["one member", "two members (cat a.gz b.gz)", "zero padding", "empty file", "empty member"])
def test_a_whole_gzip_is_not_cut(data):
    assert gzip_cut(io.BytesIO(data)) is None


@settings(max_examples=40, deadline=None)
@given(at=st.integers(1, len(WHOLE) - 1), chunk=st.sampled_from([7, 4096, 1 << 20]))
def test_a_cut_gzip_holds_the_line_ends_decoded_before_the_cut(at, chunk):
    """Cut anywhere (in the header, the deflate data or the trailer) and read in chunks of any
    size: the count is that of the line ends a decoder gets from the bytes before the cut."""
    compressed.CHUNK, before = chunk, compressed.CHUNK
    try:
        got = gzip_cut(io.BytesIO(WHOLE[:at]))
    finally:
        compressed.CHUNK = before
    assert got == zlib.decompressobj(wbits=31).decompress(WHOLE[:at]).count(b"\n")


def test_bytes_that_do_not_decode_break_the_stream_off():
    assert gzip_cut(io.BytesIO(WHOLE[:100] + b"\xff" * 64 + WHOLE[164:])) is not None


def test_the_local_ingest_names_a_cut_rotation_and_its_line(tmp_path):
    """The 2.4.1 scenario with broker 3's state-change.log as a rotation cut a third from its end."""
    shutil.copytree(SCENARIO, tmp_path / "c", ignore=shutil.ignore_patterns("README.md"))
    log = tmp_path / "c" / "broker-3" / "state-change.log"
    data = gzip.compress(log.read_bytes())
    (log.parent / "state-change.log.2024-05-01-13.gz").write_bytes(data[: len(data) * 2 // 3])
    log.unlink()
    with pytest.raises(TruncatedGzip, match=r"state-change\.log\.2024-05-01-13\.gz: the gzip stream ends early, after "
                                            r"line \d+ .*gunzip -c state-change\.log\.2024-05-01-13\.gz > "
                                            r"state-change\.log\.2024-05-01-13`"):
        ingest_files(log_files(tmp_path / "c"), "c")
