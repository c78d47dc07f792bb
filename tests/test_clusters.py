"""Which cluster a log file is read as (jobs.audit.file_clusters) and which era is chosen for it
from manifests (ingest.detect.era_choices), without a Spark session: a broker's folder given alone
(`--input logs/prod/broker-*`, which the shell lists one by one) is its cluster's, not a cluster
of its own."""
from __future__ import annotations

import json

import pytest

from ingest.lines import cluster_folder, is_input
from ingest.local import log_files
from jobs.audit import file_clusters
from ingest.detect import era_choices


@pytest.mark.parametrize("folder, inner, cluster", [
    ("file:/logs/prod", ["broker-1"], "file:/logs/prod"),
    ("file:/logs/prod/broker-1", [], "file:/logs/prod"),
    ("file:/logs/prod/broker-1/", [], "file:/logs/prod"),
    ("file:/logs/prod/kafka_2", ["2024-05-01"], "file:/logs/prod"),
    ("s3a://bucket/prod/my-cluster-kafka-0", [], "s3a://bucket/prod"),
    ("hdfs://nn:8020/x/node3", [], "hdfs://nn:8020/x"),
    # a single file's folder: itself, or the cluster's above a broker's
    ("file:/logs/prod", [], "file:/logs/prod"),
    # a cluster named like a node, holding its brokers' folders, stays the cluster
    ("file:/logs/kafka1", ["broker-1"], "file:/logs/kafka1"),
    # nothing above the broker's folder but the bucket or the file system root
    ("s3a://bucket/broker-1", [], "s3a://bucket/broker-1"),
    ("file:/broker-1", [], "file:/broker-1"),
    ("file:/logs/prod/kafka-2.4.1", [], "file:/logs/prod/kafka-2.4.1"),
])
def test_the_folder_an_input_stands_for_as_a_cluster(folder, inner, cluster):
    assert cluster_folder(folder, inner) == cluster


def brokers(tmp_path, manifest: dict | None = None):
    for broker in (1, 2, 3):
        (tmp_path / "prod" / f"broker-{broker}").mkdir(parents=True)
        (tmp_path / "prod" / f"broker-{broker}" / "state-change.log").write_text("")
    if manifest is not None:
        (tmp_path / "prod" / "manifest.json").write_text(json.dumps(manifest))
    return [(f"file:{tmp_path}/prod/broker-{b}/state-change.log", f"file:{tmp_path}/prod/broker-{b}") for b in (1, 2, 3)]


def test_brokers_folders_given_one_by_one_are_one_cluster(tmp_path):
    found = brokers(tmp_path)
    assert set(file_clusters(found, None).values()) == {"prod"}
    assert set(file_clusters(found, "eu-1").values()) == {"eu-1"}


def test_the_cluster_folders_manifest_names_the_cluster_and_its_era(tmp_path):
    found = brokers(tmp_path, {"clusters": {"payments-eu": {"kafka_version": "2.4.1"}}})
    assert set(file_clusters(found, None).values()) == {"payments-eu"}
    default, per_cluster, why = era_choices([root[len("file:"):] for _, root in found], [])
    assert per_cluster == {"payments-eu": "2.4.1"} and why == {"payments-eu": str(tmp_path / "prod" / "manifest.json")}


def test_a_single_file_is_its_folders_cluster_or_above_a_brokers_folder(tmp_path):
    """A file given alone: its folder names the cluster (a manifest beside it is not read, as
    before); in a broker's folder, the cluster folder above it does, with its manifest."""
    found = brokers(tmp_path, {"clusters": {"payments-eu": {"kafka_version": "2.4.1"}}})
    file = found[0][0]
    assert file_clusters([(file, file)], None) == {file: "payments-eu"}
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "manifest.json").write_text(json.dumps({"clusters": {"other": {"kafka_version": "2.4.1"}}}))
    (tmp_path / "flat" / "state-change.log").write_text("")
    flat = f"file:{tmp_path}/flat/state-change.log"
    assert file_clusters([(flat, flat)], None) == {flat: "flat"}
    assert era_choices([str(tmp_path / "flat" / "state-change.log")], [])[1] == {}


# Below an input folder: a file read, or not (hidden, in a hidden folder, a side file, a truth).
LISTING = {"broker-1/state-change.log": True, "broker-1/state-change.log.2024-05-01-13.gz": True, "era.jsonl": True,
           ".snapshot/hourly.0/broker-1/state-change.log": False, "broker-1/.snapshot/nightly.1/controller.log": False,
           "broker-1/__cluster_metadata-0/00000000000000000000.log.txt": True, ".git/objects/ab/cdef": False,
           "broker-1/.state-change.log.swp": False,
           "broker-2/_SUCCESS": False, "manifest.json": False, "broker-1/README.md": False, "era.truth.jsonl": False}


def test_which_files_under_an_input_are_read(tmp_path):
    """A NetApp share's `.snapshot/` holds a copy of every file, and each would be replayed again:
    hidden folders are skipped, below the input folder only (one that is itself under a hidden
    folder is read); `__cluster_metadata-0/`, the metadata log's folder, is read."""
    root = tmp_path / ".cache" / "logs"
    for relative in LISTING:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("x\n")
    assert {r: is_input(r) for r in LISTING} == LISTING
    assert log_files(root) == sorted(str(root / r) for r, read in LISTING.items() if read)
    assert log_files(root / ".snapshot" / "hourly.0" / "broker-1" / "state-change.log") == [
        str(root / ".snapshot" / "hourly.0" / "broker-1" / "state-change.log")]   # a file given is read
