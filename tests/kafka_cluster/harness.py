"""Real Kafka clusters on 127.0.0.1, started from the jars `fetch.sh` puts in .cache/kafka/<version>/.

  with ZkCluster(workdir, "3.9.2", state_change_level="TRACE") as cluster:   # 1 ZooKeeper + 3 brokers
      cluster.start()
      print(cluster.describe())
  with KRaftCluster(workdir, "4.3.1") as cluster:                            # 3 combined nodes
      cluster.start()

Everything binds to 127.0.0.1 on free ports chosen at start; no JMX port is opened (we never pass
-Dcom.sun.management.jmxremote, which only kafka-run-class.sh adds). Every wait is bounded and
raises `ClusterTimeout` naming what it waited for. Every JVM is killed when the cluster's context
exits, at interpreter exit (atexit), and by the kernel if this Python process dies first
(PR_SET_PDEATHSIG): no broker outlives the test that started it.

Log files follow Kafka's stock layout (`[%d] %p %m (%c)%n`; server.log, state-change.log,
controller.log per node): 0.8.2-3.x with the content of Kafka 3.9's config/log4j.properties, 4.x with
Kafka 4.x's config/log4j2.yaml, both written here from the source (see LOG4J_*). The JVMs run with
-Duser.timezone=UTC, so log timestamps (which carry no zone) are UTC."""
from __future__ import annotations

import atexit
import base64
import ctypes
import functools
import json
import os
import re
import signal
import socket
import struct
import subprocess
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from state_machine.eras import parse_version

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("KAFKA_CACHE", ROOT / ".cache" / "kafka"))
FETCH = Path(__file__).with_name("fetch.sh")
ZK_VERSION = os.environ.get("KAFKA_ZK_VERSION", "3.9.2")        # last ZooKeeper-mode line
ZK08_VERSION = os.environ.get("KAFKA_ZK08_VERSION", "0.8.2.2")    # 0.8: no listeners, no kafka-tools, no fetcher back-off
ZK09_VERSION = os.environ.get("KAFKA_ZK09_VERSION", "0.9.0.1")    # 0.8.2-0.10.1 log forms (broker lines print [t,0]; Scala 2.11 build)
ZK010_VERSION = os.environ.get("KAFKA_ZK010_VERSION", "0.10.2.2")  # the controller of ZkClient listeners and locks, before 0.11's event queue
ZK011_VERSION = os.environ.get("KAFKA_ZK011_VERSION", "0.11.0.3")  # the 0.x log formats ([t,0], lower-case sentences)
ZK10_VERSION = os.environ.get("KAFKA_ZK10_VERSION", "1.0.2")    # the controller before 1.1's rewrite (Scala 2.12 build)
ZK24_VERSION = os.environ.get("KAFKA_ZK24_VERSION", "2.4.1")    # the 1.1-2.5 log formats; state.change.logger TRACE by default
ZK2_VERSION = os.environ.get("KAFKA_ZK2_VERSION", "2.8.2")      # last 2.x: the rewritten controller, no unclean warning
KRAFT_VERSION = os.environ.get("KAFKA_KRAFT_VERSION", "4.3.1")  # latest 4.x fully on Maven Central
KRAFT3_VERSION = os.environ.get("KAFKA_KRAFT3_VERSION", "3.8.1")  # last KRaft before 3.9: reads no unclean.leader.election.enable
KRAFT40_VERSION = os.environ.get("KAFKA_KRAFT40_VERSION", "4.0.2")  # ELR off by default; elects a dead last known leader
# Feature levels a KRaft cluster is formatted with when its scenario names none, for one-off captures:
# e.g. KAFKA_KRAFT_FEATURES=eligible.leader.replicas.version=1 turns KIP-966's ELR on in 4.0.x, where it
# is off by default (StorageTool --feature, @4.0.2). Comma-separated name=level; none by default.
KRAFT_FEATURES = tuple(f for f in os.environ.get("KAFKA_KRAFT_FEATURES", "").split(",") if f)
HOST = "127.0.0.1"

T = TypeVar("T")


class ClusterTimeout(TimeoutError):
    """A bounded wait ran out."""


class ToolFailed(RuntimeError):
    """A Kafka command-line tool exited non-zero."""


# ---------------------------------------------------------------- versions and main classes

# Each tool's main class, newest home first. The admin commands moved from core's Scala kafka.admin
# to tools' org.apache.kafka.tools one by one during 3.x (in 3.6.2's jars TopicCommand is still
# kafka.admin's; in 3.9.2's all three are tools'), DumpLogSegments in 4.0; ZooKeeper is gone in 4.0.
# A release's own jars decide (KafkaDist.main), so any fetched release runs.
MAIN_CLASSES: dict[str, tuple[str, ...]] = {
    "broker": ("kafka.Kafka",),
    "zookeeper": ("org.apache.zookeeper.server.quorum.QuorumPeerMain",),   # what zookeeper-server-start.sh runs
    "storage": ("kafka.tools.StorageTool",),
    "topics": ("org.apache.kafka.tools.TopicCommand", "kafka.admin.TopicCommand"),
    "reassign": ("org.apache.kafka.tools.reassign.ReassignPartitionsCommand", "kafka.admin.ReassignPartitionsCommand"),
    "leader_election": ("org.apache.kafka.tools.LeaderElectionCommand", "kafka.admin.LeaderElectionCommand"),
    "producer_perf": ("org.apache.kafka.tools.ProducerPerformance",
                      "org.apache.kafka.clients.tools.ProducerPerformance"),   # 0.8.2: in kafka-clients, positional arguments
    "metadata_quorum": ("org.apache.kafka.tools.MetadataQuorumCommand", "kafka.admin.MetadataQuorumCommand"),   # 3.3-3.4: core
    "features": ("org.apache.kafka.tools.FeatureCommand", "kafka.admin.FeatureCommand"),   # kafka-features.sh
    "dump_log": ("org.apache.kafka.tools.DumpLogSegments", "kafka.tools.DumpLogSegments"),
    "preferred_election": ("kafka.admin.PreferredReplicaLeaderElectionCommand",),   # before 2.4 (ZK_ONLY_BEFORE)
}

# The line each mode's broker logs (server.log) once it serves: KafkaServer.scala @3.9.2 `info("started")`
# behind the `[KafkaServer id=N] ` logIdent (`[Kafka Server N], ` before 1.0, @0.11.0.3);
# KafkaRaftServer.scala @4.3.1 `info(KafkaBroker.STARTED_MESSAGE)`.
STARTED_LINE = {
    "zk": re.compile(r"(?:\[KafkaServer id=\d+\] |\[Kafka Server \d+\], )started \(kafka\.server\.KafkaServer\)"),
    "kraft": re.compile(r"Kafka Server started \(kafka\.server\.KafkaRaftServer\)"),
}

# FeatureCommand describe: "Feature: %s\tSupportedMinVersion: %s\t...FinalizedVersionLevel: %s\tEpoch: %s"
# @3.9.2; @4.3.1 the same fields padded with spaces ("Feature: %-40s  SupportedMinVersion: ...").
FEATURE_LINE = re.compile(r"^Feature: (\S+)\s.*?FinalizedVersionLevel: (\S+)", re.M)


@dataclass(frozen=True)
class KafkaDist:
    """One fetched Kafka version: its jar directory and main classes."""
    version: str
    jar_dir: Path

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def release(self) -> tuple[int, ...]:
        return parse_version(self.version)

    @property
    def classpath(self) -> str:
        return f"{self.jar_dir}/*"

    def main(self, tool: str) -> str:
        classes = self.classes()
        for name in MAIN_CLASSES.get(tool, ()):
            if name in classes:
                return name
        raise KeyError(f"Kafka {self.version}'s jars in {self.jar_dir} hold none of {MAIN_CLASSES.get(tool)} ({tool!r})")

    def classes(self) -> frozenset[str]:
        """The class names the jars hold (read once per directory)."""
        return _jar_classes(self.jar_dir)


@functools.lru_cache(maxsize=None)
def _jar_classes(jar_dir: Path) -> frozenset[str]:
    names = set()
    for jar in sorted(jar_dir.glob("*.jar")):
        with zipfile.ZipFile(jar) as z:
            names.update(n[:-6].replace("/", ".") for n in z.namelist() if n.endswith(".class") and "$" not in n)
    return frozenset(names)


def kafka_dist(version: str, fetch: bool = False) -> KafkaDist:
    """The jars of `version`; with fetch=True, run fetch.sh first (idempotent, no network when present)."""
    jar_dir = CACHE / version
    if fetch:
        subprocess.run(["bash", str(FETCH), version], check=True, timeout=900,
                       env={**os.environ, "KAFKA_CACHE": str(CACHE)})
    if not any(jar_dir.glob(f"kafka_2.1?-{version}.jar")):   # the Scala build fetch.sh chose
        raise FileNotFoundError(f"Kafka {version} jars not in {jar_dir}; run tests/kafka_cluster/fetch.sh {version}")
    return KafkaDist(version, jar_dir)


# ---------------------------------------------------------------- logging configurations

# Kafka 3.9's config/log4j.properties: the stored apache/kafka copy of this file (pre-2.6) plus the two
# later changes, KAFKA-8470 (2.6: state.change.logger at INFO) and 3.4's KRaft controller logger
# routed to controller.log; the ZK-client comment is singular since the zkclient line was dropped.
# {state_change_level} is the only knob: INFO is stock, TRACE is what packaged images often run.
LOG4J_PROPERTIES = """\
# Unspecified loggers and loggers with additivity=true output to server.log and stdout
# Note that INFO only applies to unspecified loggers, the log level of the child logger is used otherwise
log4j.rootLogger=INFO, stdout, kafkaAppender

log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.kafkaAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.kafkaAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.kafkaAppender.File=${{kafka.logs.dir}}/server.log
log4j.appender.kafkaAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.kafkaAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.stateChangeAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.stateChangeAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.stateChangeAppender.File=${{kafka.logs.dir}}/state-change.log
log4j.appender.stateChangeAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.stateChangeAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.requestAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.requestAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.requestAppender.File=${{kafka.logs.dir}}/kafka-request.log
log4j.appender.requestAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.requestAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.cleanerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.cleanerAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.cleanerAppender.File=${{kafka.logs.dir}}/log-cleaner.log
log4j.appender.cleanerAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.cleanerAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.controllerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.controllerAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.controllerAppender.File=${{kafka.logs.dir}}/controller.log
log4j.appender.controllerAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.controllerAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.authorizerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.authorizerAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.authorizerAppender.File=${{kafka.logs.dir}}/kafka-authorizer.log
log4j.appender.authorizerAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.authorizerAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

# Change the line below to adjust ZK client logging
log4j.logger.org.apache.zookeeper=INFO

# Change the two lines below to adjust the general broker logging level (output to server.log and stdout)
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO

# Change to DEBUG or TRACE to enable request logging
log4j.logger.kafka.request.logger=WARN, requestAppender
log4j.additivity.kafka.request.logger=false

# Uncomment the lines below and change log4j.logger.kafka.network.RequestChannel$ to TRACE for additional output
# related to the handling of requests
#log4j.logger.kafka.network.Processor=TRACE, requestAppender
#log4j.logger.kafka.server.KafkaApis=TRACE, requestAppender
#log4j.additivity.kafka.server.KafkaApis=false
log4j.logger.kafka.network.RequestChannel$=WARN, requestAppender
log4j.additivity.kafka.network.RequestChannel$=false

# Change the line below to adjust KRaft mode controller logging
log4j.logger.org.apache.kafka.controller=INFO, controllerAppender
log4j.additivity.org.apache.kafka.controller=false

# Change the line below to adjust ZK mode controller logging
log4j.logger.kafka.controller=TRACE, controllerAppender
log4j.additivity.kafka.controller=false

log4j.logger.kafka.log.LogCleaner=INFO, cleanerAppender
log4j.additivity.kafka.log.LogCleaner=false

log4j.logger.state.change.logger={state_change_level}, stateChangeAppender
log4j.additivity.state.change.logger=false

# Access denials are logged at INFO level, change to DEBUG to also log allowed accesses
log4j.logger.kafka.authorizer.logger=INFO, authorizerAppender
log4j.additivity.kafka.authorizer.logger=false
"""

# The one departure from the stock file, for 0.8: its replica fetcher retries a dead leader with no
# back-off (KAFKA-1461, fixed in 0.9.0) and logs two lines per try, 128 MB of server.log in one
# capture. Neither logger is one the audit reads (ingest.lines.AUDITED_LOGGERS).
LOG4J_0_8_FETCHER = """
log4j.logger.kafka.consumer.SimpleConsumer=WARN
log4j.logger.kafka.server.ReplicaFetcherThread=ERROR
"""

# Kafka 4.x's config/log4j2.yaml (apache/kafka, the 4.x file that replaced log4j.properties, KAFKA-9366).
# Loggers and appenders as shipped; {state_change_level} as above.
LOG4J2_YAML = """\
Configuration:
  Properties:
    Property:
      # Fallback if the system property is not set
      - name: "kafka.logs.dir"
        value: "."
      - name: "logPattern"
        value: "[%d] %p %m (%c)%n"

  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        pattern: "${{logPattern}}"

    RollingFile:
      - name: KafkaAppender
        fileName: "${{sys:kafka.logs.dir}}/server.log"
        filePattern: "${{sys:kafka.logs.dir}}/server.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
      - name: StateChangeAppender
        fileName: "${{sys:kafka.logs.dir}}/state-change.log"
        filePattern: "${{sys:kafka.logs.dir}}/state-change.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
      - name: RequestAppender
        fileName: "${{sys:kafka.logs.dir}}/kafka-request.log"
        filePattern: "${{sys:kafka.logs.dir}}/kafka-request.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
      - name: CleanerAppender
        fileName: "${{sys:kafka.logs.dir}}/log-cleaner.log"
        filePattern: "${{sys:kafka.logs.dir}}/log-cleaner.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
      - name: ControllerAppender
        fileName: "${{sys:kafka.logs.dir}}/controller.log"
        filePattern: "${{sys:kafka.logs.dir}}/controller.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
      - name: AuthorizerAppender
        fileName: "${{sys:kafka.logs.dir}}/kafka-authorizer.log"
        filePattern: "${{sys:kafka.logs.dir}}/kafka-authorizer.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1

  Loggers:
    Root:
      level: INFO
      AppenderRef:
        - ref: STDOUT
        - ref: KafkaAppender
    Logger:
      - name: kafka
        level: INFO
      - name: org.apache.kafka
        level: INFO
      - name: kafka.request.logger
        level: WARN
        additivity: false
        AppenderRef:
          ref: RequestAppender
      - name: kafka.network.RequestChannel$
        level: WARN
        additivity: false
        AppenderRef:
          ref: RequestAppender
      - name: org.apache.kafka.controller
        level: INFO
        additivity: false
        AppenderRef:
          ref: ControllerAppender
      - name: org.apache.kafka.storage.internals.log.LogCleaner
        level: INFO
        additivity: false
        AppenderRef:
          ref: CleanerAppender
      - name: org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread
        level: INFO
        additivity: false
        AppenderRef:
          ref: CleanerAppender
      - name: org.apache.kafka.storage.internals.log.Cleaner
        level: INFO
        additivity: false
        AppenderRef:
          ref: CleanerAppender
      - name: state.change.logger
        level: {state_change_level}
        additivity: false
        AppenderRef:
          ref: StateChangeAppender
      - name: kafka.authorizer.logger
        level: INFO
        additivity: false
        AppenderRef:
          ref: AuthorizerAppender
"""

# Command-line tools log WARN+ to stderr (as config/tools-log4j.properties / tools-log4j2.yaml do).
TOOLS_LOG4J_PROPERTIES = """\
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
"""
TOOLS_LOG4J2_YAML = """\
Configuration:
  Appenders:
    Console:
      name: STDERR
      target: SYSTEM_ERR
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDERR
"""

# The admin commands the scenario runs take --bootstrap-server from these releases on; before them
# they take --zookeeper and no admin-client config (checked in the sources jars of 1.0.2-2.6.0).
ZK_ONLY_BEFORE: dict[str, tuple[int, int]] = {
    "topics": (2, 2),            # TopicCommand --bootstrap-server: KIP-377 (2.2.0)
    "reassign": (2, 6),          # ReassignPartitionsCommand writes the plan to ZooKeeper until KIP-455's rewrite (2.6.0)
    "leader_election": (2, 4),   # LeaderElectionCommand: KIP-460 (2.4.0); before it PreferredReplicaLeaderElectionCommand
}

# What the harness uses that a release before the one given lacks (checked in the sources jars of
# 0.8.2.2 and 0.9.0.1): the harness falls back to the older way below it.
FIRST_RELEASE_WITH: dict[str, tuple[int, int]] = {
    "listeners": (0, 9),              # listeners=PLAINTEXT://host:port (KIP-2); 0.8 binds host.name:port
    "tools_producer_perf": (0, 9),    # kafka-tools' ProducerPerformance; 0.8.2's is kafka-clients', positional args
    "fetcher_backoff": (0, 9),        # the replica fetcher backs off from a dead leader (KAFKA-1461)
    "leader_epoch_checkpoint": (0, 11),   # a replica's leader-epoch-checkpoint file (KIP-101)
    # A new leader records its epoch when it becomes leader (KIP-279); before, on its first append
    # (Partition.makeLeader @1.0.2, @2.0.1).
    "epoch_checkpointed_on_election": (2, 0),
    # LeaderElectionCommand's admin-client config as --command-config: kafka-tools sources @4.0.2,
    # @4.1.1 and @4.1.2 know only --admin.config; @4.2.0 adds --command-config and deprecates it.
    "leader_election_command_config": (4, 2),
    # KRaft: the controller reads a topic's unclean.leader.election.enable (ConfigurationControlManager
    # @3.9.0; @3.7.2 and @3.8.1 it is `return false; // TODO`): before, only an admin UNCLEAN election
    # elects outside the ISR.
    "kraft_unclean_config": (3, 9),
}


def has(release: tuple[int, ...], feature: str) -> bool:
    return release >= FIRST_RELEASE_WITH[feature]


# Admin clients of the tools: fail in seconds, not after the 60 s default, when a broker is down.
TOOLS_CLIENT_PROPERTIES = "request.timeout.ms=10000\ndefault.api.timeout.ms=30000\nretry.backoff.ms=200\n"

# Small heap, C1 only and the serial collector: on 2 cores four broker JVMs plus a tool JVM start
# and run faster this way, and the load is a few thousand 100-byte records.
BROKER_JVM = ["-Xms128m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
              "-Duser.timezone=UTC"]
TOOL_JVM = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
            "-Duser.timezone=UTC"]


def log_config(dist: KafkaDist, path: Path, state_change_level: str) -> list[str]:
    """Write the broker logging configuration for `dist`; the JVM options that select it."""
    if dist.major >= 4:
        path = path.with_suffix(".yaml")
        path.write_text(LOG4J2_YAML.format(state_change_level=state_change_level))
        return [f"-Dlog4j2.configurationFile={path}"]
    path = path.with_suffix(".properties")
    text = LOG4J_PROPERTIES.format(state_change_level=state_change_level)
    if not has(dist.release, "fetcher_backoff"):
        text += LOG4J_0_8_FETCHER
    path.write_text(text)
    return [f"-Dlog4j.configuration=file:{path}"]


# ---------------------------------------------------------------- processes

_LIVE: dict[int, subprocess.Popen] = {}
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # The kernel SIGKILLs the JVM if the Python process that started it dies (even by kill -9),
    # which atexit cannot cover. Runs in the child between fork and exec.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def _kill_all() -> None:
    for proc in list(_LIVE.values()):
        _kill(proc)


atexit.register(_kill_all)


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    _LIVE.pop(proc.pid, None)


@dataclass
class JavaProcess:
    """One long-running JVM (ZooKeeper or a Kafka node), its console output in `console`."""
    name: str
    argv: list[str]
    console: Path
    cwd: Path
    proc: subprocess.Popen | None = None

    def start(self) -> None:
        if self.alive:
            raise RuntimeError(f"{self.name} is already running (pid {self.proc.pid})")
        with open(self.console, "ab") as out:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=self.cwd, start_new_session=True, preexec_fn=_die_with_parent)
        _LIVE[self.proc.pid] = self.proc

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGKILL, timeout: float = 60) -> None:
        """Send `sig` and wait for exit; what does not exit in `timeout` s is killed (-9) and reported."""
        if not self.alive:
            return
        if sig == signal.SIGKILL:
            _kill(self.proc)
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(self.proc)
            raise ClusterTimeout(f"{self.name} did not exit {timeout:.0f}s after signal {sig}; killed with -9") from None
        _LIVE.pop(self.proc.pid, None)

    def kill(self) -> None:
        if self.proc is not None:
            _kill(self.proc)


def java_argv(dist: KafkaDist, main: str, args: Iterable[str], jvm: Iterable[str]) -> list[str]:
    return ["java", *jvm, "-cp", dist.classpath, main, *args]


def free_ports(n: int) -> list[int]:
    """n distinct free ports on 127.0.0.1 (all sockets held open until all are chosen)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((HOST, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


def wait_for(what: str, check: Callable[[], T], timeout: float, interval: float = 0.5,
             describe_last: Callable[[], str] | None = None) -> T:
    """Poll `check` until it returns a truthy value (returned); ClusterTimeout after `timeout` s."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while True:
        try:
            value = check()
            if value:
                return value
        except (ToolFailed, subprocess.TimeoutExpired, OSError) as exc:  # a tool or a node not ready yet
            last_error = exc
        if time.monotonic() >= deadline:
            extra = f"; last error: {last_error}" if last_error else ""
            if describe_last is not None:
                try:
                    extra += f"; last state:\n{describe_last()}"
                except Exception as exc:  # the report must not hide the timeout
                    extra += f"; (state unavailable: {exc})"
            raise ClusterTimeout(f"timed out after {timeout:.0f}s waiting for {what}{extra}")
        time.sleep(interval)


# ---------------------------------------------------------------- describe output

# TopicCommand.PartitionDescription.printDescription (tools @3.9.2 and @4.3.1): tab-separated,
# `Leader: none` when there is no leader; Adding/Removing Replicas only during a reassignment.
_PARTITION_LINE = re.compile(
    r"^\tTopic: (?P<topic>\S+)\tPartition: (?P<partition>\d+)\tLeader: (?P<leader>none|-?\d+)"
    r"\tReplicas: (?P<replicas>[\d,]*)\tIsr: (?P<isr>[\d,]*)(?P<rest>.*)$")


def _ids(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def parse_describe(text: str) -> dict[str, dict]:
    """`kafka-topics --describe` text -> {"t-0": {"topic", "partition", "leader" (-1 = none), "isr",
    "replicas", "adding", "removing", "marked_for_deletion"}}."""
    out: dict[str, dict] = {}
    for line in text.splitlines():
        m = _PARTITION_LINE.match(line)
        if not m:
            continue
        rest = m["rest"]
        adding = re.search(r"\tAdding Replicas: ([\d,]*)", rest)
        removing = re.search(r"\tRemoving Replicas: ([\d,]*)", rest)
        out[f"{m['topic']}-{m['partition']}"] = {
            "topic": m["topic"], "partition": int(m["partition"]),
            "leader": -1 if m["leader"] == "none" else int(m["leader"]),
            "isr": _ids(m["isr"]), "replicas": _ids(m["replicas"]),
            "adding": _ids(adding[1]) if adding else [], "removing": _ids(removing[1]) if removing else [],
            "marked_for_deletion": "MarkedForDeletion: true" in rest,
        }
    return out


# ---------------------------------------------------------------- clusters

@dataclass
class Node:
    """One Kafka broker (ZK mode) or combined broker+controller (KRaft)."""
    id: int
    dir: Path
    port: int
    controller_port: int | None
    process: JavaProcess
    log_marks: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> (inode, size) at the last start
    rolled_at_mark: frozenset[str] = frozenset()   # the rolled files (name.<yyyy-MM-dd-HH>) there at the last start

    @property
    def logs_dir(self) -> Path:
        return self.dir / "logs"

    @property
    def data_dir(self) -> Path:
        return self.dir / "data"

    def mark_logs(self) -> None:
        """Remember where each log ends, so that log_since_start reads only what comes after."""
        self.log_marks, self.rolled_at_mark = {}, frozenset()
        if self.logs_dir.is_dir():
            self.log_marks = {p.name: (p.stat().st_ino, p.stat().st_size) for p in self.logs_dir.glob("*.log")}
            self.rolled_at_mark = frozenset(p.name for p in self.logs_dir.glob("*.log.*"))

    def log_since_start(self, name: str = "server.log") -> str:
        """What the node wrote to `name` since mark_logs, across hourly roll-overs. The appender renames
        the file to `name.<yyyy-MM-dd-HH>` (same inode) and starts a new one, at the first line of a new
        hour, and at a restarted JVM's first line when the file was last written in an earlier hour. So
        the text may begin in a rolled file, from the mark, and go on in the files written after it."""
        current = self.logs_dir / name
        if not current.is_file():
            return ""
        inode, offset = self.log_marks.get(name, (None, 0))
        rolled = sorted(self.logs_dir.glob(f"{name}.*"))   # the date suffix sorts in time
        marked = next((i for i, p in enumerate(rolled) if p.stat().st_ino == inode), None)
        if current.stat().st_ino == inode:
            files = [(current, offset)]
        elif marked is not None:
            files = [(rolled[marked], offset)] + [(p, 0) for p in rolled[marked + 1:]] + [(current, 0)]
        else:   # no file at the mark (a first start), or the marked file is gone: all written since, which
            # may have rolled already (a CI run's first start wrote "started" at 15:59:59.8, rolled at 16:00:00)
            files = [(p, 0) for p in rolled if p.name not in self.rolled_at_mark] + [(current, 0)]
        out = []
        for path, start in files:
            with open(path, "rb") as fh:
                fh.seek(start)
                out.append(fh.read().decode("utf-8", errors="replace"))
        return "".join(out)


class Cluster:
    """What both modes share: nodes, tools, describe, start/stop of single nodes, kill at exit."""
    mode = ""

    def __init__(self, workdir: Path | str, version: str, brokers: int = 3, state_change_level: str = "INFO",
                 startup_timeout: float = 120, fetch: bool = False) -> None:
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.dist = kafka_dist(version, fetch=fetch)
        self.version = version
        self.release = parse_version(version)
        self.broker_ids = list(range(1, brokers + 1))
        self.state_change_level = state_change_level.upper()
        self.startup_timeout = startup_timeout
        self.nodes: dict[int, Node] = {}
        self.tools_dir = self.workdir / "tools"
        self.tools_dir.mkdir(exist_ok=True)
        if self.dist.major >= 4:
            (self.tools_dir / "log4j2.yaml").write_text(TOOLS_LOG4J2_YAML)
            self.tool_logging = [f"-Dlog4j2.configurationFile={self.tools_dir / 'log4j2.yaml'}"]
        else:
            (self.tools_dir / "log4j.properties").write_text(TOOLS_LOG4J_PROPERTIES)
            self.tool_logging = [f"-Dlog4j.configuration=file:{self.tools_dir / 'log4j.properties'}"]
        self.client_config = self.tools_dir / "client.properties"
        self.client_config.write_text(TOOLS_CLIENT_PROPERTIES)

    def kafka_process(self, d: Path) -> JavaProcess:
        """The Kafka server of node directory `d` (its server.properties, its logs/), named after it."""
        logging = log_config(self.dist, d / "log4j", self.state_change_level)
        return JavaProcess(d.name, java_argv(self.dist, self.dist.main("broker"), [str(d / "server.properties")],
                                             BROKER_JVM + logging + [f"-Dkafka.logs.dir={d / 'logs'}"]), d / "console.out", d)

    # -- context: every process dies with the context, pass or fail
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.kill_all()

    def processes(self) -> list[JavaProcess]:
        return [n.process for n in self.nodes.values()]

    def kill_all(self) -> None:
        """SIGKILL every JVM of the cluster at once: nothing gets to log a shutdown (no controlled
        shutdown, no leader moves), so the logs end with the state the last step left."""
        procs = [p for p in self.processes() if p.alive]
        for p in procs:
            try:
                os.killpg(p.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in procs:
            p.kill()

    # -- nodes
    @property
    def bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.port}" for n in self.nodes.values())

    def live_ids(self) -> list[int]:
        return [i for i, n in self.nodes.items() if n.process.alive]

    def start_node(self, node_id: int, wait: bool = True) -> None:
        node = self.nodes[node_id]
        node.mark_logs()
        node.process.start()
        if wait:
            self.wait_started(node_id)

    def wait_started(self, node_id: int) -> None:
        node = self.nodes[node_id]
        pattern = STARTED_LINE[self.mode]

        def started() -> bool:
            if not node.process.alive:
                raise RuntimeError(f"node {node_id} exited with {node.process.proc.returncode}; see {node.process.console}")
            return bool(pattern.search(node.log_since_start())) and port_open(node.port)

        def last() -> str:   # what the node was doing when the wait gave up
            tail = node.log_since_start().splitlines()[-15:]
            return f"port {node.port} open: {port_open(node.port)}; last lines of server.log since the start:\n" + \
                "\n".join(f"  {line[:300]}" for line in tail)

        wait_for(f"node {node_id} to start ({pattern.pattern} in {node.logs_dir / 'server.log'})", started,
                 self.startup_timeout, describe_last=last)

    def stop_node(self, node_id: int, sig: int = signal.SIGKILL, timeout: float = 90) -> None:
        self.nodes[node_id].process.stop(sig, timeout)

    # -- tools
    def tool(self, name: str, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        """Run one of Kafka's command-line tools (MAIN_CLASSES) from the same jars."""
        argv = java_argv(self.dist, self.dist.main(name), args, TOOL_JVM + self.tool_logging)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=self.tools_dir,
                              stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        if check and proc.returncode != 0:
            raise ToolFailed(f"{name} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        return proc

    def admin(self, name: str, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        """A tool that takes --bootstrap-server and an admin-client config file (topics, reassign, leader election)."""
        old_option = name == "leader_election" and not has(self.release, "leader_election_command_config")
        option = "--admin.config" if old_option else "--command-config"
        return self.tool(name, "--bootstrap-server", self.bootstrap, option, str(self.client_config),
                         *args, timeout=timeout, check=check)

    def describe(self) -> str:
        return self.admin("topics", "--describe").stdout

    def partitions(self) -> dict[str, dict]:
        return parse_describe(self.describe())

    def wait_partitions(self, what: str, predicate: Callable[[dict[str, dict]], bool], timeout: float = 90) -> dict[str, dict]:
        """Poll `--describe` until `predicate(partitions)`; returns the partitions."""
        box: dict[str, dict] = {}

        def check():
            parts = self.partitions()
            box.clear()
            box.update(parts)
            return parts if predicate(parts) else None

        def last() -> str:
            return "\n".join(f"  {k}: {v}" for k, v in sorted(box.items()))

        return wait_for(what, check, timeout, interval=1.0, describe_last=last)

    def wait_fully_replicated(self, timeout: float = 120) -> dict[str, dict]:
        """Every partition led by a live broker, its ISR equal to its replica set, no reassignment."""
        def ok(parts: dict[str, dict]) -> bool:
            live = set(self.live_ids())
            return bool(parts) and all(p["leader"] in live and sorted(p["isr"]) == sorted(p["replicas"])
                                       and not p["adding"] and not p["removing"] for p in parts.values())
        return self.wait_partitions("every partition to be led by a live broker with ISR = replicas", ok, timeout)

    def leader_epoch_checkpoint(self, node_id: int, topic: str, partition: int) -> int | None:
        """The newest leader epoch in the node's `leader-epoch-checkpoint` of the partition (written
        synchronously when the node becomes leader, LeaderEpochFileCache.assign): the broker's own record
        of the epoch it leads at. None when the file is absent or empty."""
        path = self.nodes[node_id].data_dir / f"{topic}-{partition}" / "leader-epoch-checkpoint"
        if not path.is_file():
            return None
        lines = path.read_text().split("\n")
        entries = [ln.split() for ln in lines[2:] if ln.strip()]  # line 1 version, line 2 count, then "epoch offset"
        return int(entries[-1][0]) if entries else None


def _properties(values: dict[str, object]) -> str:
    return "".join(f"{k}={v}\n" for k, v in values.items())


def _read_properties(path: Path) -> dict[str, str]:
    """A properties file this harness wrote with `_properties` (key=value lines, no comments)."""
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line)


# Broker settings both modes share: fast failure detection and no automatic leader moves, so every
# election in the logs is one a scenario step caused.
COMMON_BROKER = {
    "num.partitions": 1,
    "default.replication.factor": 3,
    "offsets.topic.replication.factor": 3,
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "auto.create.topics.enable": "false",
    "auto.leader.rebalance.enable": "false",     # preferred elections only when a step asks for one
    "delete.topic.enable": "true",
    "replica.lag.time.max.ms": 5000,             # default 30 s
    "group.initial.rebalance.delay.ms": 0,
    "num.network.threads": 2,
    "num.io.threads": 2,
    "log.cleaner.enable": "false",               # no compacted topics here; one thread less per JVM
}


def zk_get_data(host: str, port: int, path: str, timeout: float = 10.0) -> bytes | None:
    """A znode's data, read in ZooKeeper's own wire protocol (length-framed jute records: a
    ConnectRequest, then a GetDataRequest, opcode 4, then closeSession, -11); None if there is no
    such znode. Not ZooKeeperMain: the 3.4.6 of Kafka 0.8.2-0.9 ignores a command given on its
    command line (ZOOKEEPER-1897), and a JVM per read is slow anyway."""
    def send(sock: socket.socket, payload: bytes) -> None:
        sock.sendall(struct.pack(">i", len(payload)) + payload)

    def receive(sock: socket.socket) -> bytes:
        (n,) = struct.unpack(">i", _recv_exactly(sock, 4))
        return _recv_exactly(sock, n)

    raw = path.encode()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        # protocolVersion, lastZxidSeen, timeOut (ms), sessionId, passwd (16 bytes): a new session
        send(sock, struct.pack(">iqiqi", 0, 0, int(timeout * 1000), 0, 16) + bytes(16))
        receive(sock)
        send(sock, struct.pack(">iii", 1, 4, len(raw)) + raw + b"\x00")   # xid 1, getData(path, watch=false)
        reply = receive(sock)
        send(sock, struct.pack(">ii", 2, -11))
    _xid, _zxid, err = struct.unpack_from(">iqi", reply)   # ReplyHeader
    if err == -101:   # NONODE
        return None
    if err:
        raise ToolFailed(f"ZooKeeper error {err} reading {path}")
    (n,) = struct.unpack_from(">i", reply, 16)
    return reply[20:20 + n] if n > 0 else b""


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ToolFailed("ZooKeeper closed the connection")
        out += chunk
    return out


class ZkCluster(Cluster):
    """One ZooKeeper server + `brokers` ZooKeeper-mode brokers (Kafka 0.8.2-3.9)."""
    mode = "zk"

    def __init__(self, workdir, version: str = ZK_VERSION, **kw) -> None:
        super().__init__(workdir, version, **kw)
        if self.dist.major >= 4:
            raise ValueError(f"Kafka {version} has no ZooKeeper mode")
        ports = free_ports(1 + len(self.broker_ids))
        self.zk_port = ports[0]
        zk_dir = self.workdir / "zookeeper"
        (zk_dir / "data").mkdir(parents=True, exist_ok=True)
        (zk_dir / "logs").mkdir(exist_ok=True)
        zk_conf = zk_dir / "zookeeper.properties"
        zk_conf.write_text(_properties({
            "dataDir": zk_dir / "data",
            "clientPort": self.zk_port,
            "clientPortAddress": HOST,
            "tickTime": 500,                 # sessions of 1-10 s allowed (2x..20x tickTime)
            "maxClientCnxns": 0,
            "admin.enableServer": "false",   # no Jetty admin port
        }))
        zk_logging = log_config(self.dist, zk_dir / "log4j", "INFO")
        self.zookeeper = JavaProcess("zookeeper", java_argv(
            self.dist, self.dist.main("zookeeper"), [str(zk_conf)],
            BROKER_JVM + zk_logging + [f"-Dkafka.logs.dir={zk_dir / 'logs'}", "-Dzookeeper.jmx.log4j.disable=true"]),
            zk_dir / "console.out", zk_dir)
        for node_id, port in zip(self.broker_ids, ports[1:]):
            d = self.workdir / f"broker-{node_id}"
            (d / "logs").mkdir(parents=True, exist_ok=True)
            (d / "data").mkdir(exist_ok=True)
            props = d / "server.properties"
            listeners = ({"listeners": f"PLAINTEXT://{HOST}:{port}", "advertised.listeners": f"PLAINTEXT://{HOST}:{port}",
                          "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT"} if has(self.release, "listeners") else
                         {"host.name": HOST, "port": port, "advertised.host.name": HOST, "advertised.port": port})
            props.write_text(_properties({
                "broker.id": node_id,
                **listeners,
                "zookeeper.connect": f"{HOST}:{self.zk_port}",
                "zookeeper.session.timeout.ms": 4000,       # default 18 s: a killed broker is noticed in ~4 s
                "zookeeper.connection.timeout.ms": 15000,
                "log.dirs": d / "data",
                "controlled.shutdown.enable": "true",
                "controlled.shutdown.max.retries": 3,
                "controlled.shutdown.retry.backoff.ms": 500,  # default 5 s
                "controller.socket.timeout.ms": 10000,
                **COMMON_BROKER,
            }))
            proc = self.kafka_process(d)
            self.nodes[node_id] = Node(node_id, d, port, None, proc)

    def processes(self) -> list[JavaProcess]:
        return super().processes() + [self.zookeeper] + ([self.migration_controller.process]
                                                          if self.migration_controller else [])

    # -- a ZooKeeper-to-KRaft migration (KIP-866, 3.4-3.9), Kafka's documented steps: a KRaft
    # controller with zookeeper.metadata.migration.enable, formatted with the ZooKeeper cluster's id;
    # then every broker restarted with migration on and the controller quorum named. The controller
    # copies ZooKeeper's metadata into its metadata log, takes /controller with the next ZooKeeper
    # epoch and sends the brokers their requests (dual write), until the migration is finalized.
    migration_controller: Node | None = None

    def start_migration_controller(self, node_id: int = 3000) -> Node:
        """Start the KRaft controller of a migration; returns once it waits for the brokers."""
        if self.release < (3, 4):
            raise ValueError(f"Kafka {self.version} has no ZooKeeper migration (3.4+)")
        port = free_ports(1)[0]
        d = self.workdir / f"controller-{node_id}"
        (d / "logs").mkdir(parents=True, exist_ok=True)
        props = d / "server.properties"
        props.write_text(_properties({
            "process.roles": "controller",
            "node.id": node_id,
            "controller.quorum.voters": f"{node_id}@{HOST}:{port}",
            "controller.listener.names": "CONTROLLER",
            "listeners": f"CONTROLLER://{HOST}:{port}",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "zookeeper.metadata.migration.enable": "true",
            "zookeeper.connect": f"{HOST}:{self.zk_port}",
            "log.dirs": d / "data",
        }))
        cluster_id = json.loads(self.zk_get("/cluster/id"))["id"]
        self.tool("storage", "format", "--cluster-id", cluster_id, "--config", str(props), timeout=120)
        proc = self.kafka_process(d)
        node = self.migration_controller = Node(node_id, d, port, port, proc)
        node.mark_logs()
        proc.start()
        self.wait_migration("the KRaft controller to wait for the brokers", "Now waiting for ZK brokers")
        return node

    def wait_migration(self, what: str, line: str, timeout: float = 240) -> None:
        """Until the migration's controller writes `line` to its server.log."""
        node = self.migration_controller

        def written() -> bool:
            if not node.process.alive:
                raise RuntimeError(f"controller {node.id} exited; see {node.process.console}")
            return line in node.log_since_start()
        wait_for(what, written, timeout)

    def enable_migration(self, broker: int) -> None:
        """Restart `broker` (a controlled shutdown, SIGTERM) with migration on and the KRaft
        controller named (the inter-broker protocol pinned to the release, as the migration asks)."""
        node, controller = self.nodes[broker], self.migration_controller
        props = node.dir / "server.properties"
        values = _read_properties(props)
        values["listener.security.protocol.map"] += ",CONTROLLER:PLAINTEXT"   # the listener the controller is reached on
        values.update({"zookeeper.metadata.migration.enable": "true",
                       "controller.quorum.voters": f"{controller.id}@{HOST}:{controller.port}",
                       "controller.listener.names": "CONTROLLER",
                       "inter.broker.protocol.version": ".".join(map(str, self.release[:2]))})
        props.write_text(_properties(values))
        self.stop_node(broker, signal.SIGTERM, timeout=120)
        self.start_node(broker)

    def start(self) -> None:
        self.zookeeper.start()
        wait_for(f"ZooKeeper on {HOST}:{self.zk_port}", lambda: self._zk_up(), self.startup_timeout)
        # Broker 1 first, so that it is the first controller and the others join a running cluster.
        self.start_node(self.broker_ids[0])
        for node_id in self.broker_ids[1:]:
            self.start_node(node_id, wait=False)
        for node_id in self.broker_ids[1:]:
            self.wait_started(node_id)

    def admin(self, name: str, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        """Before the releases in ZK_ONLY_BEFORE, the command talks to ZooKeeper itself."""
        before = ZK_ONLY_BEFORE.get(name)
        if before is None or self.release >= before:
            return super().admin(name, *args, timeout=timeout, check=check)
        if name == "leader_election":
            if args != ("--election-type", "PREFERRED", "--all-topic-partitions"):
                raise ValueError(f"Kafka {self.version} has only the preferred election of every partition, not {args}")
            name, args = "preferred_election", ()   # PreferredReplicaLeaderElectionCommand's default: all partitions
        return self.tool(name, "--zookeeper", f"{HOST}:{self.zk_port}", *args, timeout=timeout, check=check)

    def _zk_up(self) -> bool:
        if not self.zookeeper.alive:
            raise RuntimeError(f"ZooKeeper exited; see {self.zookeeper.console}")
        return port_open(self.zk_port)

    def zk_get(self, path: str) -> str:
        """The data of a znode, e.g. /controller or a partition's state."""
        data = zk_get_data(HOST, self.zk_port, path)
        if not data:
            raise ToolFailed(f"no data for {path} in ZooKeeper on port {self.zk_port}")
        return data.decode()

    def controller_id(self) -> int:
        return int(json.loads(self.zk_get("/controller"))["brokerid"])

    def partition_state(self, topic: str, partition: int) -> dict:
        """/brokers/topics/<t>/partitions/<p>/state (ZkData.scala): leader, leader_epoch, isr, controller_epoch."""
        return json.loads(self.zk_get(f"/brokers/topics/{topic}/partitions/{partition}/state"))


def random_cluster_id() -> str:
    """A cluster id as Uuid.randomUuid() makes them: 16 random bytes, URL-safe base64 without padding,
    re-drawn when it would start with '-' (it would read as a command-line option)."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


class KRaftCluster(Cluster):
    """`brokers` combined nodes (process.roles=broker,controller) with a static voter set, formatted
    with StorageTool under one cluster id."""
    mode = "kraft"

    def __init__(self, workdir, version: str = KRAFT_VERSION, features: tuple[str, ...] = KRAFT_FEATURES, **kw) -> None:
        super().__init__(workdir, version, **kw)
        self.features = features   # name=level, given to StorageTool format
        ports = free_ports(2 * len(self.broker_ids))
        self.cluster_id = random_cluster_id()
        pairs = list(zip(self.broker_ids, ports[0::2], ports[1::2]))
        voters = ",".join(f"{i}@{HOST}:{c}" for i, _, c in pairs)
        for node_id, port, cport in pairs:
            d = self.workdir / f"broker-{node_id}"
            (d / "logs").mkdir(parents=True, exist_ok=True)
            props = d / "server.properties"
            props.write_text(_properties({
                "process.roles": "broker,controller",
                "node.id": node_id,
                "controller.quorum.voters": voters,
                "listeners": f"PLAINTEXT://{HOST}:{port},CONTROLLER://{HOST}:{cport}",
                "advertised.listeners": f"PLAINTEXT://{HOST}:{port}",
                "controller.listener.names": "CONTROLLER",
                "inter.broker.listener.name": "PLAINTEXT",
                "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs": d / "data",
                "broker.heartbeat.interval.ms": 500,     # default 2 s
                "broker.session.timeout.ms": 3000,       # default 9 s: a killed node is fenced in ~3 s
                **COMMON_BROKER,
            }))
            proc = self.kafka_process(d)
            self.nodes[node_id] = Node(node_id, d, port, cport, proc)

    def format(self) -> None:
        for node in self.nodes.values():
            if (node.data_dir / "meta.properties").is_file():
                continue
            features = [arg for f in self.features for arg in ("--feature", f)]
            self.tool("storage", "format", "--cluster-id", self.cluster_id,
                      "--config", str(node.dir / "server.properties"), *features, timeout=120)

    def start(self) -> None:
        self.format()
        for node_id in self.broker_ids:      # a quorum needs a majority: start them together
            self.start_node(node_id, wait=False)
        for node_id in self.broker_ids:
            self.wait_started(node_id)

    def quorum_status(self) -> dict[str, str]:
        """MetadataQuorumCommand describe --status as {"LeaderId": "2", "LeaderEpoch": "5", ...}."""
        out = self.tool("metadata_quorum", "--bootstrap-server", self.bootstrap, "--command-config",
                        str(self.client_config), "describe", "--status", timeout=60).stdout
        return {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in out.splitlines()) if v}

    def controller_id(self) -> int:
        """The active controller (the quorum leader)."""
        def leader() -> int | None:
            leader_id = int(self.quorum_status().get("LeaderId", "-1"))
            return leader_id if leader_id >= 0 else None
        return wait_for("a KRaft quorum leader", leader, 60)

    def finalized_features(self) -> dict[str, str]:
        """`kafka-features describe` as {feature: finalized level}: the levels the controller acts on,
        e.g. eligible.leader.replicas.version (KIP-966; the feature exists from 4.0)."""
        out = self.tool("features", "--bootstrap-server", self.bootstrap, "--command-config",
                        str(self.client_config), "describe", timeout=60).stdout
        return dict(FEATURE_LINE.findall(out))

    def metadata_segments(self, node_id: int) -> list[Path]:
        return sorted((self.nodes[node_id].data_dir / "__cluster_metadata-0").glob("*.log"))

    def dump_metadata(self, node_id: int, segment: Path) -> str:
        """`kafka-dump-log --cluster-metadata-decoder --print-data-log` of one segment of the node."""
        return self.tool("dump_log", "--cluster-metadata-decoder", "--print-data-log", "--files", str(segment),
                         timeout=120).stdout
