"""The harness's own logic that needs no cluster: reading what a restarted node wrote across the
log4j hourly roll-over (a CI run once missed a restarted broker's "started" line this way)."""
from __future__ import annotations

import os
import signal
import time

import pytest

from .harness import HOST, ZK_VERSION, Node, ZkCluster, wait_for, zk_get_data

STARTED = "[2026-11-27 06:00:04,512] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)\n"


def node(tmp_path) -> Node:
    n = Node(id=1, dir=tmp_path, port=0, controller_port=None, process=None)
    n.logs_dir.mkdir()
    return n


def roll(n: Node, suffix: str) -> None:
    """What DailyRollingFileAppender does: rename the file (it keeps its inode) and start a new one."""
    os.rename(n.logs_dir / "server.log", n.logs_dir / f"server.log.{suffix}")
    (n.logs_dir / "server.log").write_text("")


def append(n: Node, text: str) -> None:
    with open(n.logs_dir / "server.log", "a") as fh:
        fh.write(text)


def test_only_what_follows_the_mark_is_read(tmp_path):
    n = node(tmp_path)
    append(n, "before the restart: " + STARTED)
    n.mark_logs()
    assert n.log_since_start() == ""
    append(n, "after\n")
    assert n.log_since_start() == "after\n"


def test_a_started_line_in_a_new_hours_file_larger_than_the_mark_is_found(tmp_path):
    n = node(tmp_path)
    append(n, "x" * 100 + "\n")
    n.mark_logs()
    roll(n, "2026-11-27-05")
    append(n, STARTED + "y" * 1000 + "\n")   # the new file outgrows the old mark
    assert STARTED in n.log_since_start()
    assert "x" * 100 not in n.log_since_start()


def test_a_started_line_written_before_the_roll_over_is_found_and_the_new_file_follows(tmp_path):
    n = node(tmp_path)
    append(n, "old\n")
    n.mark_logs()
    append(n, STARTED)
    roll(n, "2026-11-27-05")
    append(n, "next hour\n")
    assert n.log_since_start() == STARTED + "next hour\n"


def test_two_roll_overs_are_read_in_time_order(tmp_path):
    n = node(tmp_path)
    append(n, "old\n")
    n.mark_logs()
    append(n, "a\n")
    roll(n, "2026-11-27-05")
    append(n, "b\n")
    roll(n, "2026-11-27-06")
    append(n, "c\n")
    assert n.log_since_start() == "a\nb\nc\n"


def test_a_first_starts_started_line_rolled_before_it_was_read_is_found(tmp_path):
    n = node(tmp_path)
    append(n, "an earlier run\n")
    roll(n, "2026-11-27-04")               # an earlier run's file, there at the mark
    os.remove(n.logs_dir / "server.log")   # a fresh start: no server.log at the mark
    n.mark_logs()
    append(n, STARTED)
    roll(n, "2026-11-27-05")
    append(n, "next hour\n")
    assert n.log_since_start() == STARTED + "next hour\n"


def test_a_node_never_marked_reads_its_whole_file(tmp_path):
    n = node(tmp_path)
    append(n, STARTED)
    assert n.log_since_start() == STARTED
    assert Node(id=2, dir=tmp_path / "none", port=0, controller_port=None, process=None).log_since_start() == ""


@pytest.mark.kafka
@pytest.mark.timeout(600)
def test_a_broker_restarted_in_a_new_hour_rolls_its_log_and_is_seen_to_start(tmp_path):
    """The premise, on a real broker: log4j's DailyRollingFileAppender dates the open file by its last
    modification, so a JVM restarted in a later hour renames it at its first line. Backdating the file
    by an hour stands in for a kill at 05:59:58 and a restart at 06:00:05. On the ZooKeeper-mode
    release the live captures run (0.8.2-3.x log through the same log4j 1 configuration): a test run
    fetches no other."""
    with ZkCluster(tmp_path, ZK_VERSION, brokers=1, fetch=True) as c:
        c.start()
        n = c.nodes[1]
        c.stop_node(1, signal.SIGKILL)
        wait_for("the killed broker's ZooKeeper session to expire",
                 lambda: zk_get_data(HOST, c.zk_port, "/brokers/ids/1") is None, timeout=60)
        log = n.logs_dir / "server.log"
        # Keep less than a start writes before its started line (as after a roll-over shortly before
        # the kill): reading the new file from the old size would then skip the restart's first lines.
        before = log.read_bytes()[:4096]
        log.write_bytes(before)
        hour_ago = time.time() - 3600
        os.utime(log, (hour_ago, hour_ago))
        c.start_node(1)   # waits for the started line
        rolled = n.logs_dir / f"server.log.{time.strftime('%Y-%m-%d-%H', time.localtime(hour_ago))}"
        assert rolled.read_bytes() == before
        since = n.log_since_start()
        assert since.startswith(log.read_text()[:300]) and "Log4jController MBean" in since.splitlines()[0]
        assert since.count("started (kafka.server.KafkaServer)") == 1
