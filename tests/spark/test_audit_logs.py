"""The audit on what real clusters write: ZooKeeper-mode broker logs and KRaft metadata
dumps, parsed inside Spark, replayed, written to Delta (chispa for the comparisons)."""
from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import functions as F

from ingest.render import render, render_kraft
from jobs.audit import AuditConfig, AuditError, run
from jobs.ingest_spark import unreadable_inputs
from scenarios import SCENARIOS, migration_night
from state_machine.generator import FAULTS, SimConfig, simulate

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
KRAFT = ROOT / "tests" / "ingest" / "fixtures" / "kraft"


def table(spark, warehouse, name):
    return spark.read.format("delta").load(str(Path(warehouse) / name))


# zk-2.4.1-unclean's partition_timeline, less its inferred rows: (partition_state, leader,
# leader_epoch, isr, election, source under the scenario).
UNCLEAN_TIMELINE = [
    ("NewPartition", -1, -1, [], None, "broker-3/state-change.log:1"),
    ("OnlinePartition", 1, 0, [1, 2, 3], "initial", "broker-3/state-change.log:5"),
    ("OnlinePartition", 1, 0, [1, 2], None, "broker-1/server.log:6"),   # the committed write, not the proposal
    ("OnlinePartition", 1, 1, [1], None, "broker-3/state-change.log:12"),
    ("OfflinePartition", 1, 1, [1], None, "broker-3/state-change.log:14"),
    ("OnlinePartition", 3, 2, [3], "unclean", "broker-3/state-change.log:15"),
]


def test_unclean_election_of_a_2x_zk_cluster_is_inferred_from_its_three_logs(spark, tmp_path):
    """Kafka 2.4.1 writes no line saying an election was unclean: the state-change,
    controller and server logs of three brokers together show it (fixture README)."""
    scenario = SCENARIOS / "zk-2.4.1-unclean"
    warehouse = tmp_path / "wh"
    exe = Path(sys.executable).with_name("controller-replay")
    proc = subprocess.run([str(exe), "audit", "--input", str(scenario), "--warehouse", str(warehouse), "--format", "auto"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "era of zk-2.4.1-unclean: detected: 2.4.1 from server.log banner" in proc.stdout, proc.stdout
    v = table(spark, warehouse, "violations")
    got = v.select("cluster", "topic", "partition", "rule", "severity")
    assert_df_equality(got, spark.createDataFrame(
        [("zk-2.4.1-unclean", "payments", 0, "UNCLEAN_LEADER_ELECTION", "warning")], got.schema))
    (row,) = v.collect()
    assert "leader 3 elected at leader epoch 2 was not in the previous ISR [1]" in row["detail"]
    assert any(e.endswith("broker-3/state-change.log:15") for e in row["evidence"])
    timeline = (table(spark, warehouse, "partition_timeline").where("NOT inferred")
                .select("partition_state", "leader", "leader_epoch", "isr", "election", "source").orderBy("valid_from", "ordinal"))
    got = [(r.partition_state, r.leader, r.leader_epoch, r.isr, r.election, r.source.split("zk-2.4.1-unclean/")[1])
           for r in timeline.collect()]
    assert got == UNCLEAN_TIMELINE
    (audit,) = table(spark, warehouse, "audit_runs").collect()
    files = json.loads(audit["input_files"])
    assert audit["counts_reconcile"] and audit["records_quarantined"] == 0
    assert audit["records_read"] == sum(len([l for l in p.read_text().splitlines() if l.strip()])
                                        for p in scenario.rglob("*.log"))
    assert {Path(f).parent.name + "/" + Path(f).name: (i["lines"], i["recognized"], i["quarantined"]) for f, i in files.items()} == {
        "broker-1/server.log": (6, 6, 0), "broker-1/state-change.log": (4, 4, 0), "broker-2/state-change.log": (2, 2, 0),
        "broker-3/controller.log": (14, 14, 0), "broker-3/state-change.log": (18, 18, 0)}


def test_folder_and_file_names_hadoop_treats_specially_are_read_as_named(spark, tmp_path):
    """Names operators give: a folder `kafka logs [eu-1]` (the reader's glob failed the audit on it),
    files `state-change 100%.log` and `controller#1.log` (their URIs escape the space, % and #: the
    cluster fell back to `default` and the provenance read `kafka%20logs`), and a rotation
    `state-change.log.2024-05-01T02:14` (the checksummed file system cannot open a name with ':'),
    and rotations compressed in each format Hadoop decodes (the local ingest decodes them alike),
    given as the brokers' folders one by one (each was a cluster of its own, one broker's view).
    Each copy of the 2.4.1 scenario audits as the scenario does, under its own name."""
    import bz2
    import zlib

    import zstandard
    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".zst": zstandard.ZstdCompressor().compress,
                ".deflate": zlib.compress}
    scenario = SCENARIOS / "zk-2.4.1-unclean"
    renamed = {"kafka logs [eu-1]": {"broker-2/state-change.log": "broker-2/state-change 100%.log",
                                     "broker-3/controller.log": "broker-3/controller#1.log"},
               "incident 2024-05-01T02:14": {"broker-3/state-change.log": "broker-3/state-change.log.2024-05-01T02:14"},
               "rotated": {"broker-1/server.log": "broker-1/server.log.1.deflate", "broker-1/state-change.log":
                           "broker-1/state-change.log.1.gz", "broker-2/state-change.log": "broker-2/state-change.log.1.zst",
                           "broker-3/controller.log": "broker-3/controller.log.1.zst",
                           "broker-3/state-change.log": "broker-3/state-change.log.2024-05-01-13.bz2"}}
    for cluster, names in renamed.items():
        for log in scenario.rglob("*.log"):
            name = log.relative_to(scenario).as_posix()
            path = tmp_path / cluster / names.get(name, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(compress.get(path.suffix, bytes)(log.read_bytes()))
    warehouse = str(tmp_path / "wh")
    # The rotated copy given as its brokers' folders, as the shell lists `rotated/broker-*`: still one cluster.
    inputs = [str(tmp_path / c) for c in renamed if c != "rotated"] + sorted(str(p) for p in (tmp_path / "rotated").iterdir())
    summary = run(spark, AuditConfig(inputs=inputs, warehouse=warehouse))
    assert summary.records_quarantined == 0 and summary.records_read == summary.lines_recognized == 3 * 44
    (audit,) = table(spark, warehouse, "audit_runs").collect()
    want_files = {"file:" + str(tmp_path / c / names.get(n, n)) for c, names in renamed.items()
                  for n in (log.relative_to(scenario).as_posix() for log in scenario.rglob("*.log"))}
    assert {f: i["cluster"] for f, i in json.loads(audit["input_files"]).items()} == {
        f: f.split(str(tmp_path) + "/")[1].split("/")[0] for f in want_files}
    for cluster, names in renamed.items():
        timeline = (table(spark, warehouse, "partition_timeline").where(F.col("cluster") == cluster).where("NOT inferred")
                    .orderBy("valid_from", "ordinal").collect())
        got = [(r.partition_state, r.leader, r.leader_epoch, r.isr, r.election, r.source) for r in timeline]

        def renamed_source(source: str) -> str:   # broker-3/state-change.log:15 in this copy
            name, line = source.rsplit(":", 1)
            return f"file:{tmp_path / cluster / names.get(name, name)}:{line}"
        assert got == [(*row[:5], renamed_source(row[5])) for row in UNCLEAN_TIMELINE]
    rules = table(spark, warehouse, "violations").select("cluster", "rule")
    assert_df_equality(rules, spark.createDataFrame([(c, "UNCLEAN_LEADER_ELECTION") for c in renamed], rules.schema),
                       ignore_row_order=True)


def test_a_path_hadoop_cannot_read_is_refused_before_anything_is_written(spark, tmp_path):
    """A name with ':' under a folder whose name holds a glob character: Hadoop's glob cannot make
    a Path of it. The audit stops at once, naming the file, rather than lose its records."""
    log = tmp_path / "logs [eu-1]" / "broker-1" / "state-change.log.2024-05-01T02:14"
    log.parent.mkdir(parents=True)
    log.write_text((SCENARIOS / "zk-2.4.1-unclean" / "broker-1" / "state-change.log").read_text())
    with pytest.raises(AuditError, match=r"1 input file\(s\) cannot be read as they are: .*state-change\.log\.2024-05-01T02:14: "
                                         r"Hadoop cannot read this path"):
        run(spark, AuditConfig(inputs=[str(tmp_path / "logs [eu-1]")], warehouse=str(tmp_path / "wh")))
    assert not (tmp_path / "wh").exists()


def test_which_paths_hadoop_cannot_read(spark):
    """Both a glob character and a ':' in a folder or file name, not a port's ':' in the authority."""
    assert set(unreadable_inputs(spark, ["file:/logs/[eu-1]/state-change.log", "file:/logs/2024-05-01T02:14/state-change.log",
                             "hdfs://nn:8020/logs/[eu-1]/state-change.log", "file:/logs/{a}/x:y.log",
                             "file:/logs/a:b/[eu-1]/state-change.log", "s3a://bucket/logs/*/x.log"])) == {
        "file:/logs/{a}/x:y.log", "file:/logs/a:b/[eu-1]/state-change.log"}


def test_compressed_rotations_hadoop_cannot_read_are_refused_before_anything_is_written(spark, tmp_path):
    """Rotations cut a third from their end (copied while logrotate compressed them): the text
    reader failed the job half-way (`Unexpected end of input stream`), and it read an .xz rotation
    as lines of compressed bytes, and a tar archive of logs as one file's lines. The audit names each,
    for the same reason the local ingest gives, and writes nothing; whole rotations beside them (two
    gzip members, bzip2, text in a file named .xz) are no concern."""
    import bz2
    import lzma

    import zstandard

    from ingest.compressed import unreadable_reason

    root = tmp_path / "c"
    for log in (SCENARIOS / "zk-2.4.1-unclean").rglob("*.log"):
        (root / log.parent.name).mkdir(parents=True, exist_ok=True)
        (root / log.parent.name / log.name).write_bytes(log.read_bytes())
    text = (root / "broker-3" / "state-change.log").read_bytes()
    refused = {"broker-3/state-change.log.2024-05-01-13.gz": gzip.compress(text),
               "broker-3/state-change.log.2024-05-01-12.zst": zstandard.ZstdCompressor(write_checksum=True).compress(text),
               "broker-2/state-change.log.2024-05-01-13.bz2": bz2.compress(text)}
    refused = {name: data[: len(data) * 2 // 3] for name, data in refused.items()}
    refused["broker-1/state-change.log.2024-05-01-13.xz"] = lzma.compress(text)
    archive = io.BytesIO()   # the logs of another broker handed over as an archive, beside the folders
    with tarfile.open(fileobj=archive, mode="w") as t:
        t.add(root / "broker-3", arcname="broker-4")
    refused |= {"broker-4-logs.tar.gz": gzip.compress(archive.getvalue()), "broker-4-logs.tgz": gzip.compress(archive.getvalue()),
                "broker-4-logs.tar": archive.getvalue()}
    whole = {"broker-1/state-change.log.2024-05-01-12.gz": gzip.compress(b"") + gzip.compress(b"\n"),
             "broker-1/state-change.log.2024-05-01-11.bz2": bz2.compress(b"\n"),
             "broker-2/state-change.log.2024-05-01-12.xz": b"\n"}
    for name, data in (refused | whole).items():
        (root / name).write_bytes(data)
    want = {f"file:{root / name}": unreadable_reason(f"file:{root / name}", (root / name).open("rb")) for name in refused}
    assert all(want.values())
    assert unreadable_inputs(spark, sorted(f"file:{p}" for p in root.rglob("*") if p.is_file())) == want
    with pytest.raises(AuditError, match=r"7 input file\(s\) cannot be read as they are: .*: xz-compressed, which Hadoop's text reader "
                                         r"does not decompress.*: the bzip2 stream ends early, .*"
                                         r"broker-4-logs\.tar: a tar archive of files\. .*; \.\.\.$"):
        run(spark, AuditConfig(inputs=[str(root)], warehouse=str(tmp_path / "wh")))
    assert not (tmp_path / "wh").exists()


def test_compressed_data_or_an_archive_its_name_does_not_tell_of_is_refused(spark, tmp_path):
    """The 2.4.1 scenario with three logs compressed under their plain names (gzip, zstd, xz) and a
    tar of it named `logs` beside: the text reader would read each as lines of compressed bytes.
    The parse knows each by its first line as the text reader and make_valid_utf8 hand it on, for
    the reason the local ingest gives, and the audit stops before writing anything."""
    import lzma

    import zstandard

    from ingest.compressed import UnreadableInput
    from ingest.local import read_text_lines
    from jobs.ingest_spark import unreadable_message

    root = tmp_path / "c"
    for log in (SCENARIOS / "zk-2.4.1-unclean").rglob("*.log"):
        (root / log.parent.name).mkdir(parents=True, exist_ok=True)
        (root / log.parent.name / log.name).write_bytes(log.read_bytes())
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as t:
        t.add(root, arcname="c")
    misnamed = {"broker-3/state-change.log": gzip.compress, "broker-2/state-change.log": zstandard.ZstdCompressor().compress,
                "broker-1/server.log": lzma.compress, "logs": lambda _: archive.getvalue()}
    want = {}
    for name, compress in misnamed.items():
        (root / name).write_bytes(compress((root / name).read_bytes()) if name != "logs" else compress(b""))
        with pytest.raises(UnreadableInput) as raised:
            read_text_lines(str(root / name))
        want[f"file:{root / name}"] = f"file:{raised.value}"
    assert unreadable_inputs(spark, sorted(f"file:{p}" for p in root.rglob("*") if p.is_file())) == {}   # found by the parse
    with pytest.raises(AuditError) as raised:
        run(spark, AuditConfig(inputs=[str(root)], warehouse=str(tmp_path / "wh")))
    assert str(raised.value) == unreadable_message(want)
    assert not (tmp_path / "wh").exists()


# The clusters of one audit (logs_audit), each in the folder of its name: the tests below read
# each their own cluster's rows. A cluster's rows are the same audited alone or with others (its
# era is its own, its partitions replayed apart), and an audit is most of a test's time.
GENERATED_FAULTS_KRAFT = {f: 1 for f in FAULTS if f not in ("illegal_transition", "zombie_controller")}


@pytest.fixture(scope="module")
def logs_audit(spark, tmp_path_factory):
    """(summary, warehouse, truths) of one audit of six clusters' logs:
    - gen: a simulated history with every kind of fault, written as Kafka 2.4 brokers write
      their logs, broker 1's state-change.log half rotated and gzipped (pinned to 2.4);
    - stale: the zk-2.4.1-stale-isr scenario;
    - kraft-3.7: a KRaft 3.7.0 metadata-log dump alone;
    - k37: the same dump, with the server.log banner of Kafka 3.7.0;
    - genk: a simulated KRaft history as three nodes' metadata-log dumps, a transaction aborted;
    - mig: the aborted-migration fixture cut before its controller failover."""
    root = tmp_path_factory.mktemp("logs")
    truths = {}
    events, truths["gen"] = simulate(SimConfig(cluster="gen", era="2.4", steps=150, brokers=5, topics=3, partitions=3,
                                               seed=3, faults={f: 1 for f in FAULTS}))
    render(events, root / "gen")
    rotated = root / "gen" / "broker-1" / "state-change.log"
    lines = rotated.read_text().splitlines(keepends=True)
    half = len(lines) // 2   # the older half rotated and compressed, as log4j's DailyRollingFileAppender + logrotate leave it
    with gzip.open(root / "gen" / "broker-1" / "state-change.log.2023-11-14-22.gz", "wt") as f:
        f.writelines(lines[:half])
    rotated.write_text("".join(lines[half:]))

    shutil.copytree(SCENARIOS / "zk-2.4.1-stale-isr", root / "stale")
    shutil.copytree(KRAFT / "3.7.0", root / "kraft-3.7")
    (root / "k37" / "controller-1").mkdir(parents=True)
    shutil.copy(KRAFT / "3.7.0" / "00000000000000000000.log.txt", root / "k37" / "controller-1")
    (root / "k37" / "controller-1" / "server.log").write_text(
        "[2024-05-01 09:59:50,000] INFO Kafka version: 3.7.0 (org.apache.kafka.common.utils.AppInfoParser)\n")

    events, truths["genk"] = simulate(SimConfig(cluster="genk", era="kraft", steps=150, brokers=5, topics=3, partitions=3,
                                                seed=3, faults=GENERATED_FAULTS_KRAFT))
    second_failover = [i for i, e in enumerate(events) if e.event_type == "ControllerFailover"][1]
    render_kraft(events, root / "genk",
                 aborted={second_failover: [e for e in events if e.event_type == "PartitionRecord"][-2:]})

    night = root / "mig" / "controller-3001" / "00000000000000000000.log.txt"
    night.parent.mkdir(parents=True)
    night.write_text(migration_night())

    warehouse = root / "wh"
    inputs = [str(root / c) for c in ("gen", "stale", "kraft-3.7", "k37", "genk", "mig")]
    summary = run(spark, AuditConfig(inputs=inputs, warehouse=str(warehouse), kafka_versions=["gen=2.4"]))
    assert summary.records_quarantined == 0 and summary.records_read == summary.lines_recognized
    return summary, warehouse, truths


def of_cluster(spark, warehouse, name: str, cluster: str):
    return table(spark, warehouse, name).where(F.col("cluster") == cluster)


def test_generated_2_4_logs_audit_to_exactly_the_injected_faults(spark, logs_audit):
    """A simulated history with every kind of fault, written as Kafka 2.4 brokers write
    their logs (gzip-rotated in part), audits to exactly the injected faults."""
    summary, warehouse, truths = logs_audit
    got = of_cluster(spark, warehouse, "violations", "gen").select("rule", "topic", "partition")
    want = spark.createDataFrame([(t.rule, t.topic, t.partition) for t in truths["gen"]], got.schema)
    assert len(truths["gen"]) == len(FAULTS)
    assert_df_equality(got, want, ignore_row_order=True, ignore_nullable=True)


def test_isr_writes_zookeeper_refused_are_no_violation(spark, logs_audit):
    """A deposed leader's "Shrinking ISR" lines, each followed by "Cached zkVersion ... skip
    updating ISR" (fixture README): nothing changed, nothing to report, in Spark as locally."""
    summary, warehouse, _ = logs_audit
    assert summary.eras["stale"].startswith("detected: 2.4.1")
    assert of_cluster(spark, warehouse, "violations", "stale").count() == 0
    timeline = of_cluster(spark, warehouse, "partition_timeline", "stale").orderBy("valid_from", "ordinal")
    got = [(r.partition_state, r.leader, r.leader_epoch, r.isr, r.source.split("/stale/")[1])
           for r in timeline.collect()]
    assert got == [("NewPartition", -1, -1, [], "broker-3/state-change.log:1"),
                   ("OnlinePartition", 1, 0, [1, 2, 3], "broker-3/state-change.log:5"),
                   ("OfflinePartition", 1, 0, [1, 2, 3], "broker-3/state-change.log:12"),
                   ("OnlinePartition", 2, 1, [2, 3], "broker-3/state-change.log:13")]


def test_line_numbers_and_quarantine_survive_splits(spark, tmp_path):
    """Small splits cut a file mid-record; every line is still numbered right, every bad
    line quarantined verbatim, and the counts reconcile."""
    scenario = SCENARIOS / "zk-2.4.1-unclean" / "broker-3" / "state-change.log"
    good = scenario.read_text().splitlines()
    lines = []
    bad_at = []
    for i, line in enumerate(good * 40):
        lines.append(line)
        if i % 97 == 13:
            lines.append("this line is no log4j record \u00e9\u00ff")
            bad_at.append(len(lines))
    path = tmp_path / "in" / "broker-3" / "state-change.log"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 * 1024))
    try:
        summary = run(spark, AuditConfig(inputs=[str(path.parent.parent)], warehouse=str(tmp_path / "wh"),
                                         kafka_versions=["2.4"], cluster="split"))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert summary.records_read == len(lines) == summary.lines_recognized + summary.records_quarantined
    q = table(spark, tmp_path / "wh", "quarantine").orderBy("source_line").collect()
    assert [r.source_line for r in q] == bad_at
    assert all(r.raw == "this line is no log4j record \u00e9\u00ff" and "no log4j envelope" in r.reason for r in q)


@pytest.fixture(scope="module")
def odd_files_audit(spark, tmp_path_factory):
    """One audit, read in 16 KB splits, of two clusters of the zk-2.4.1-unclean scenario's logs
    made odd as people's files are: copies (a `state-change.log.bak` beside the log it copies,
    the log long enough for four splits; a gzip copy of a small file; files of blank lines) and
    enc (brokers 2 and 3 in latin-1, a French locale's line among their records; broker 1's logs
    saved as UTF-16). (summary, warehouse, root): each cluster in the folder of its name."""
    scenario = SCENARIOS / "zk-2.4.1-unclean"
    root = tmp_path_factory.mktemp("odd")
    copies = root / "copies"
    shutil.copytree(scenario, copies)
    long = copies / "broker-3" / "state-change.log"
    long.write_text(long.read_text() * 12)   # ~52 KB: four 16 KB splits
    shutil.copy(long, long.with_name("state-change.log.bak"))
    with gzip.open(copies / "broker-1" / "state-change.log.1.gz", "wt") as f:
        f.write((copies / "broker-1" / "state-change.log").read_text())
    for broker in ("broker-1", "broker-2"):
        (copies / broker / "blank.log").write_text("\n \n")
    for log in scenario.rglob("*.log"):
        target = root / "enc" / log.relative_to(scenario)
        target.parent.mkdir(parents=True, exist_ok=True)
        if log.parent.name == "broker-1":
            target.write_bytes(log.read_text().replace("\n", "\r\n").encode("utf-16"))
        else:
            lines = log.read_text().splitlines()
            # With a form feed and \x1c in it: no line end to Hadoop, nor to the local ingest now.
            lines.insert(1, "[2024-05-01 10:00:00,500] WARN Connexion refus\u00e9e\x0c\x1c (org.apache.zookeeper.ClientCnxn)")
            target.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 * 1024))
    try:
        summary = run(spark, AuditConfig(inputs=[str(copies), str(root / "enc")], warehouse=str(root / "wh")))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined
    return summary, root / "wh", root


def _files_of(summary, folder: Path) -> dict[str, dict]:
    """The summary's input files under `folder` (one cluster's), by name."""
    return {f: i for f, i in summary.files.items() if f.startswith(f"file:{folder}/")}


def _quarantine_of(spark, warehouse: Path, folder: Path):
    return (table(spark, warehouse, "quarantine").where(F.col("source_file").startswith(f"file:{folder}/"))
            .select("source_file", "source_line", "reason", "raw"))


def test_a_copy_of_an_input_file_is_quarantined_as_the_local_ingest_quarantines_it(spark, odd_files_audit):
    """The copies' lines are quarantined as copies, numbered as read, and their records are
    replayed once, as the local ingest does (tests/ingest/test_copies.py); files with no record
    are no copies."""
    from ingest.lines import COPY_REASON
    from ingest.local import ingest_files, log_files

    summary, warehouse, root = odd_files_audit
    root = root / "copies"
    long = root / "broker-3" / "state-change.log"
    local = ingest_files(log_files(root), "copies")
    files = _files_of(summary, root)
    copied = {f: i["copy_of"] for f, i in summary.files.items() if "copy_of" in i}
    assert copied == {f"file:{long}.bak": f"file:{long}", f"file:{root}/broker-1/state-change.log.1.gz":
                      f"file:{root}/broker-1/state-change.log"}
    without = ingest_files([f for f in log_files(root) if not f.endswith((".bak", ".gz"))], "copies")
    assert sum(i["events"] for i in files.values()) == len(local.events) == len(without.events) > 0
    got = _quarantine_of(spark, warehouse, root)
    want = spark.createDataFrame([("file:" + f, n, reason.replace(str(root), f"file:{root}"), raw)
                                  for f, n, reason, raw in local.quarantine], got.schema)
    assert_df_equality(got, want, ignore_row_order=True, ignore_nullable=True)
    copied_lines = [l for f in (long, root / "broker-1" / "state-change.log") for l in f.read_text().splitlines() if l.strip()]
    assert got.count() == sum(i["quarantined"] for i in files.values()) == len(copied_lines) > 200
    assert {r.reason for r in got.select("reason").distinct().collect()} == {
        COPY_REASON.format(file=f"file:{long}"), COPY_REASON.format(file=f"file:{root}/broker-1/state-change.log")}
    counted = ("lines", "recognized", "quarantined", "events")
    assert {f: [i[k] for k in counted] for f, i in files.items()} == {
        "file:" + f: [i[k] for k in counted] for f, i in local.files.items()}
    assert any(line.startswith(f"  file:{long}.bak: a copy of file:{long}") for line in summary.lines())


def test_bytes_that_are_not_utf8_are_read_as_the_local_ingest_reads_them(spark, odd_files_audit):
    """Brokers whose JVM writes latin-1 and a broker's logs saved as UTF-16 (a Windows
    PowerShell redirect): the audit runs (Arrow's UTF-8 decoding failed the workers before),
    each byte that is not UTF-8 is U+FFFD as in the local ingest, the latin-1 brokers' records
    are replayed, and every UTF-16 line is quarantined as such, with the counts reconciled."""
    from ingest.envelope import NUL_BYTES
    from ingest.local import ingest_files, log_files

    summary, warehouse, root = odd_files_audit
    root = root / "enc"
    local = ingest_files(log_files(root), "enc")
    files = _files_of(summary, root)
    assert sum(i["events"] for i in files.values()) == len(local.events) > 0
    got = _quarantine_of(spark, warehouse, root)
    want = spark.createDataFrame([("file:" + f, n, reason, raw) for f, n, reason, raw in local.quarantine], got.schema)
    assert_df_equality(got, want, ignore_row_order=True, ignore_nullable=True)
    assert {r.reason for r in got.collect()} == {NUL_BYTES}
    assert all("/broker-1/" in f for f, *_ in local.quarantine)
    assert len(local.quarantine) == sum(i["quarantined"] for i in files.values())
    counted = ("lines", "recognized", "quarantined", "events")
    assert {f: [i[k] for k in counted] for f, i in files.items()} == {
        "file:" + f: [i[k] for k in counted] for f, i in local.files.items()}


def test_kraft_metadata_dump_is_audited(spark, logs_audit):
    summary, warehouse, _ = logs_audit
    # The dump's metadata.version (3.7-IV4, level 19) leaves 3.7-3.8 (config not read) and 3.9+ (read).
    assert summary.eras["kraft-3.7"].startswith("detected: kraft from kafka-dump-log")
    assert "metadata.version level 19 (3.7+)" in summary.eras["kraft-3.7"]
    assert "pin with --kafka-version" in summary.eras["kraft-3.7"]
    v = of_cluster(spark, warehouse, "violations", "kraft-3.7").select("rule", "topic", "partition").collect()
    assert [(r.rule, r.topic, r.partition) for r in v] == [("UNCLEAN_LEADER_ELECTION", "orders", 0)]


def test_a_kraft_3_7_banner_replays_in_the_release_that_does_not_read_the_unclean_config(spark, logs_audit):
    """KRaft 3.7's controller never elects outside the ISR on its own (the unclean config is read
    from 3.9.0): the server.log banner picks that release, and the election is an error."""
    summary, warehouse, _ = logs_audit
    assert summary.eras["k37"].startswith("detected: kraft-3.7.0 from server.log banner")
    (v,) = of_cluster(spark, warehouse, "violations", "k37").collect()
    assert (v.rule, v.topic, v.partition, v.severity) == ("UNCLEAN_LEADER_ELECTION", "orders", 0, "error")
    assert "does not read unclean.leader.election.enable" in v.detail


def test_generated_kraft_dumps_audit_to_exactly_the_injected_faults(spark, logs_audit):
    """A simulated KRaft history with the faults a metadata log can hold (not an illegal state
    transition: KRaft has no state machines; not a zombie controller's record: a Raft log's
    epochs never decrease), written as three nodes' metadata-log dumps: detected as KRaft,
    every record replayed once, exactly the injected faults reported. At the log's second
    controller failover, the old Raft leader left open a metadata transaction, which the new
    one aborted, of copies of the history's last two PartitionRecords (t4's, created long
    after): both undone, named in the summary and in audit_runs."""
    summary, warehouse, truths = logs_audit
    assert summary.eras["genk"].startswith("detected: kraft")
    (aborted,) = summary.transactions["genk"]
    assert (aborted[0], aborted[3]) == (None, 2)   # by offset; two PartitionRecords (and any TopicRecord: a fact)
    assert any(line.startswith("  genk: ") and f"was aborted at offset {aborted[2]}: 2 events of its records undone"
               in line for line in summary.lines())
    (row,) = table(spark, warehouse, "audit_runs").select("aborted_transactions").collect()
    assert json.loads(row[0])["genk"] == [list(aborted)]
    got = of_cluster(spark, warehouse, "violations", "genk").select("rule", "topic", "partition")
    want = spark.createDataFrame([(t.rule, t.topic, t.partition) for t in truths["genk"]], got.schema)
    assert len(truths["genk"]) == len(GENERATED_FAULTS_KRAFT)
    assert_df_equality(got, want, ignore_row_order=True, ignore_nullable=True)


def test_a_metadata_transaction_open_at_the_inputs_end_is_replayed_with_a_warning(spark, logs_audit):
    """A night's input that ends while a ZooKeeper migration's metadata transaction is open (the
    aborted-migration fixture cut before the controller failover): its PartitionRecord is
    replayed (payments-0 led by 1), and the summary and audit_runs.open_transactions say the
    transaction is open with the one event read from its records, which an abort in a later
    input would not take back."""
    summary, warehouse, _ = logs_audit
    assert of_cluster(spark, warehouse, "violations", "mig").count() == 0
    assert summary.transactions["mig"] == [(None, 8, None, 1)]
    assert "  mig: the metadata transaction begun at offset 8 is still open at the input's end: 1 event of its " \
           "records replayed" in "\n".join(summary.lines())
    (row,) = table(spark, warehouse, "audit_runs").select("aborted_transactions", "open_transactions").collect()
    assert "mig" not in json.loads(row[0]) and json.loads(row[1])["mig"] == [[None, 8, 1]]
    got = of_cluster(spark, warehouse, "partition_timeline", "mig").select("topic", "partition", "leader", "leader_epoch", "isr")
    assert_df_equality(got, spark.createDataFrame([("payments", 0, 1, 4, [1])], got.schema), ignore_nullable=True)


def test_input_coverage_names_a_brokers_gap_and_missing_files_and_the_violation_in_the_gap(spark, tmp_path):
    """Real captures made incomplete: zk-3.9-trace less broker 3's lines from 09:48:10 to
    09:48:44, zk-2.8-trace less broker 3's files, and zk-2.8-trace less broker 3's files and
    every controller.log (no controller change names broker 3; its partitions' lines do).
    audit_runs.input_coverage is what the local ingest's lines give (ingest/coverage.py, one code
    for both), and each capture's unclean election, inside broker 3's gap, says so in its facts."""
    from tests.ingest.test_coverage import cut_capture, local_coverage

    cut = cut_capture("zk-3.9-trace", tmp_path / "in", 3, "2026-11-21 09:48:10", "2026-11-21 09:48:44")
    missing = cut_capture("zk-2.8-trace", tmp_path / "in", 3)
    partitions_only = cut_capture("zk-2.8-trace", tmp_path / "partitions", 3)
    for log in partitions_only.glob("broker-*/controller.log"):
        log.unlink()
    manifest = json.loads((partitions_only / "manifest.json").read_text())
    manifest["clusters"] = {"zk-2.8-state-change": manifest["clusters"]["zk-2.8-trace"]}
    (partitions_only / "manifest.json").write_text(json.dumps(manifest))
    partitions_only = partitions_only.rename(tmp_path / "in" / "zk-2.8-state-change")
    warehouse = str(tmp_path / "wh")
    summary = run(spark, AuditConfig(inputs=[str(tmp_path / "in")], warehouse=warehouse, input_gap_minutes=4 / 60))
    # What the operator reads first: the summary names each gap and each broker without files.
    said = [line for line in summary.lines() if "(violations of that time say so in their facts)" in line]
    assert "  zk-2.8-trace: broker 3's logs are not in the input (its controller or its partitions name it)" in "\n".join(said), said
    assert any(line.startswith("  zk-3.9-trace: broker 3 logged no line from ") for line in said), said
    (audit,) = table(spark, warehouse, "audit_runs").collect()
    coverage = json.loads(audit["input_coverage"].replace('"file:', '"'))
    for folder in (cut, missing, partitions_only):
        assert coverage[folder.name] == local_coverage(folder, folder.name, 4_000)[1][folder.name]
    assert [coverage[c]["missing"] for c in ("zk-2.8-trace", "zk-2.8-state-change", "zk-3.9-trace")] == [[3], [3], []]
    facts = {}
    for r in table(spark, warehouse, "violations").collect():
        facts.setdefault(r["cluster"], []).append(r["facts"])
    assert set(facts) == {"zk-3.9-trace", "zk-2.8-trace", "zk-2.8-state-change"}
    assert all(3 in json.loads(f["input_gap_brokers"]) and f["case"] for fs in facts.values() for f in fs)
    (unclean,) = facts["zk-3.9-trace"]
    assert ("broker 3 logged no line from 2026-11-21T09:48:39.482Z to 2026-11-21T09:48:45.097Z while broker(s) 1, 2 "
            "recorded events") in unclean["input_gap"]
    assert all("broker 3's logs are not in the input" in f["input_gap"]
               for c in ("zk-2.8-trace", "zk-2.8-state-change") for f in facts[c])
    # docs/tables.md's query, as written there.
    from jobs.audit import register_tables
    from test_violation_facts import doc_query
    register_tables(spark, warehouse)
    assert len(spark.sql(doc_query("violations-inside-an-input-gap")).collect()) == sum(map(len, facts.values()))
