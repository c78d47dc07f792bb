"""The local runner (`controller-replay replay`): bundled samples, bad input, counts."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jobs.cli import main
from ingest.detect import cluster_eras
from jobs.local_runner import input_files, read_events, replay_local
from state_machine.eras import resolve_era
from state_machine.findings import render

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"


def _replay(paths, specs=()):
    default, per_cluster = cluster_eras([str(p) for p in paths], specs)
    run = read_events(input_files([str(p) for p in paths]))
    return replay_local(run, lambda c: resolve_era(per_cluster.get(c, default)))


def test_bundled_samples_report_exactly_their_injected_faults():
    out = _replay([SAMPLES])
    reported = sorted((v["rule"], v["cluster"], v["topic"], v["partition"], v["seq"]) for v in out["violations"])
    truth = [json.loads(line) for f in sorted(SAMPLES.glob("*.truth.jsonl")) for line in f.read_text().splitlines()]
    injected = sorted((t["rule"], t["cluster"], t["topic"], t["partition"], t["seq"]) for t in truth)
    assert injected and reported == injected
    c = out["counts"]
    assert c["read"] == c["replayed"] and c["quarantined"] == 0


def test_bad_input_is_quarantined_with_file_line_and_reason(tmp_path):
    good = {"cluster": "x", "seq": 1, "event_type": "TopicCreation", "topic": "t", "partition": 0, "replicas": [1, 2]}
    lines = [
        json.dumps(good),
        '{"cluster": "x", "seq": 2, "event_type": "Broker',                              # truncated mid-record
        json.dumps({**good, "seq": 3, "event_type": "Bogus"}),                           # unknown event type
        json.dumps({"cluster": "x", "seq": 4, "event_type": "TopicCreation", "topic": "t", "partition": 1}),  # no replicas
        json.dumps({**good, "seq": "five"}),                                             # wrong type
        "[1, 2, 3]",                                                                     # not an object
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    (tmp_path / "empty.jsonl").write_text("")
    out = _replay([tmp_path])
    q = out["quarantine"]
    assert [(r["source_line"], r["reason"].split()[0]) for r in q] == [
        (2, "malformed"), (3, "unknown"), (4, "TopicCreation"), (5, "field"), (6, "not")]
    assert all(r["source_file"].endswith("bad.jsonl") and r["raw"] for r in q)
    c = out["counts"]
    assert (c["read"], c["replayed"], c["quarantined"]) == (6, 1, 5)


def test_an_event_naming_no_cluster_and_a_bad_broker_id_are_quarantined_naming_the_field(tmp_path):
    """A canonical event names its cluster: null or absent, it is quarantined (the local runner
    has no --cluster to give one). A bad element of an array field is named by its index, in
    every array field."""
    good = {"cluster": "x", "seq": 1, "event_type": "TopicCreation", "topic": "t", "partition": 0, "replicas": [1, 2]}
    isr_change = {**good, "event_type": "IsrChange", "leader": 1, "isr": [1, 2]}
    lines = [good, {**good, "seq": 2, "cluster": None}, {k: v for k, v in {**good, "seq": 3}.items() if k != "cluster"},
             {**isr_change, "seq": 4, "isr": [2, "x"]}, {**good, "seq": 5, "replicas": [1, 2147483648]},
             {**good, "seq": 6, "replicas": [1, None]},
             {"cluster": "x", "seq": 7, "event_type": "BrokerStartup", "brokers": [1, 2.5]},
             {**good, "seq": 8, "event_type": "PartitionChangeRecord", "elr": [True]}]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    run = read_events([tmp_path / "h.jsonl"])
    assert [(q.source_file, q.source_line, q.reason) for q in run.quarantine] == [
        (str(tmp_path / "h.jsonl"), n, reason) for n, reason in (
            (2, "missing required field 'cluster'"),
            (3, "missing required field 'cluster'"),
            (4, 'isr[1]: expected an integer broker id, got "x"'),
            (5, "replicas[1]: expected an integer broker id, got 2147483648, out of the range of int"),
            (6, "replicas[1]: expected an integer broker id, got null"),
            (7, "brokers[1]: expected an integer broker id, got 2.5"),
            (8, "elr[0]: expected an integer broker id, got true"))]
    assert run.lines_read == len(run.events["x"]) + len(run.quarantine) == len(lines)


def test_cli_simulate_then_replay(tmp_path, capsys):
    events = tmp_path / "h.jsonl"
    assert main(["simulate", "--out", str(events), "--era", "0.11", "--steps", "40", "--seed", "4",
                 "--fault", "zombie_controller=1", "--fault-rate", "1.0"]) == 0
    truth = [json.loads(x) for x in (tmp_path / "h.truth.jsonl").read_text().splitlines()]
    assert main(["replay", str(events), "--kafka-version", "0.11", "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "quarantined 0" in printed
    violations = [json.loads(x) for x in (tmp_path / "out" / "violations.jsonl").read_text().splitlines()]
    assert sorted((v["rule"], v["seq"]) for v in violations) == sorted((t["rule"], t["seq"]) for t in truth)
    # Each with its facts, of which its detail is the sentence.
    assert violations and all(v["facts"]["era"] == "0.11" and v["detail"] == render(v["rule"], v["facts"])
                              for v in violations)


def test_cli_replay_refuses_an_era_of_the_other_mode(capsys):
    """A KRaft history pinned to a ZooKeeper-mode release: exit 2 naming the cluster, the KRaft
    event types and where each first appears; nothing replayed."""
    assert main(["replay", str(SAMPLES / "era-kraft-trace.jsonl"), "--kafka-version", "2.4"]) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.startswith("replay: cluster c-kraft: 2.4 is ZooKeeper-mode, but its input holds KRaft events: ")
    assert "PartitionRecord (first at generated/c-kraft.events:4)" in printed.err
    assert main(["replay", str(SAMPLES / "era-kraft-trace.jsonl"), "--kafka-version", "0.7"]) == 2
    assert capsys.readouterr().err == "replay: --kafka-version: Kafka 0.7 predates the controller (0.8.0)\n"


def test_cli_replay_refuses_a_missing_or_empty_input(tmp_path, capsys):
    """A wrong path is not a clean, empty history."""
    assert main(["replay", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"replay: input {tmp_path / 'missing'} does not exist\n"
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "x.truth.jsonl").write_text("")
    assert main(["replay", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err == f"replay: input {tmp_path / 'empty'} holds no .jsonl file (*.truth.jsonl skipped)\n"


def test_console_script_is_installed():
    exe = Path(sys.executable).with_name("controller-replay")
    assert exe.exists(), "install with scripts/setup.sh"
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True).stdout
    assert "simulate" in out and "replay" in out


def test_a_byte_order_mark_is_no_part_of_the_first_line(tmp_path):
    """A file saved by a Windows editor starts with a UTF-8 byte-order mark: the first event is
    read like the others (Spark's reader drops the mark too), not quarantined as malformed."""
    sample = SAMPLES / "era-2.4-trace.jsonl"
    text = "\n".join(sample.read_text().splitlines()[:20])
    (tmp_path / "plain.jsonl").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "bom.jsonl").write_text(text + "\n", encoding="utf-8-sig")
    assert (tmp_path / "bom.jsonl").read_bytes().startswith(b"\xef\xbb\xbf")
    runs = [read_events([tmp_path / name]) for name in ("plain.jsonl", "bom.jsonl")]
    assert [r.quarantine for r in runs] == [[], []]
    assert runs[0].events == runs[1].events and runs[0].lines_read == runs[1].lines_read == 20
