"""Copies of input files (ingest.lines.copied_files): a file with the same lines as another of
the same cluster is quarantined line by line as a copy, not replayed again; the Spark job does
the same (tests/spark/test_audit_logs.py)."""
from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from ingest.lines import COPY_REASON, copied_files, copy_fingerprint
from ingest.local import ingest_files, log_files

SCENARIO = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "zk-2.4.1-unclean"


def test_of_files_with_the_same_lines_the_first_in_path_order_is_read():
    fingerprints = {"b/state-change.log": ("c", 1), "a/state-change.log": ("c", 1), "b/state-change.log.bak": ("c", 1),
                    "b/controller.log": ("c", 2), "b/empty.log": None, "a/empty.log": None,
                    "other/state-change.log": ("d", 1)}   # another cluster's: no copy of cluster c's
    assert copied_files(fingerprints) == {"b/state-change.log": "a/state-change.log",
                                          "b/state-change.log.bak": "a/state-change.log"}


def test_a_file_with_no_record_or_a_kraft_dump_is_no_copy():
    assert copy_fingerprint("b/state-change.log", "c", b"d", 3) == ("c", b"d")
    assert copy_fingerprint("b/empty.log", "c", b"d", 0) is None
    # Every quorum member's dump of the metadata log holds the same records: read once by offset.
    assert copy_fingerprint("broker-9/__cluster_metadata-0/00000000000000000000.log.txt", "c", b"d", 3) is None


def test_a_copy_is_quarantined_line_by_line_and_its_records_are_read_once(tmp_path):
    root = tmp_path / "in"
    shutil.copytree(SCENARIO, root)
    original = root / "broker-3" / "state-change.log"
    shutil.copy(original, original.with_name("state-change.log.bak"))
    # Saved on Windows and compressed: the same lines all the same.
    with gzip.open(root / "broker-3" / "state-change.log.1.gz", "wb") as f:
        f.write(original.read_bytes().replace(b"\n", b"\r\n"))
    # One line more: not a copy, read (its records again).
    (root / "broker-1" / "state-change.log.old").write_text((root / "broker-1" / "state-change.log").read_text()
                                                            + "[2024-05-01 10:00:09,000] INFO x (kafka.server.KafkaServer)\n")
    (root / "broker-1" / "blank.log").write_text("\n\n")
    (root / "broker-2" / "blank.log").write_text("\n\n")

    alone = ingest_files([f for f in log_files(SCENARIO)], "c")
    got = ingest_files(log_files(root), "c")
    old = ingest_files([str(root / "broker-1" / f) for f in ("state-change.log", "state-change.log.old")], "c")
    assert len(got.events) == len(alone.events) + len(old.events) // 2 > 0
    lines = original.read_text().splitlines()
    reason = COPY_REASON.format(file=str(original))
    copies = [str(original) + suffix for suffix in (".1.gz", ".bak")]
    assert got.quarantine == [(copy, n, reason, raw) for copy in copies for n, raw in enumerate(lines, 1) if raw.strip()]
    for copy in copies:
        assert got.files[copy] == {"lines": len(lines), "recognized": 0, "quarantined": len(lines), "events": 0,
                                   "copy_of": str(original)}
    assert not any("copy_of" in info for f, info in got.files.items() if f not in copies)
    assert all(i["lines"] == i["recognized"] + i["quarantined"] for i in got.files.values())
