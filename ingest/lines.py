"""Lines of one file (or of one contiguous piece of it) -> canonical events, facts and
quarantined records, every input line accounted for.

This is the ingest's per-file pass, the same for the Spark job (one call per split of a
file, in file order) and for local tools. Each output row carries `n_lines`, the input
lines it accounts for, so that per file: lines read = lines recognised + lines quarantined.

Order: within a file, events keep the file's order (`line`); across files the job
orders by `order_ts` (the running maximum of the file's clock, so a backwards timestamp
never reorders a file), then `order_epoch` (the running maximum controller epoch the file
has shown), then the file kind (controller.log inputs before state-change.log decisions
before server.log), then broker, file and line. See docs/log-formats.md, "Order"."""
from __future__ import annotations

import functools
import re
from typing import Iterable, Iterator, NamedTuple

from ingest.catalog import AdaptiveIndex, LineContext, MessagePattern, match_adaptive
from ingest.compressed import codec_suffix
from ingest.envelope import (LAYOUTS, LEADING_REASON, NUL_BYTES, Clock, Record, RecordAssembler, Unparsed, dump_joins,
                             is_continuation, unwrap)
from ingest.prefix import _OLD_BROKER, _OLD_CONTROLLER, NO_PREFIX, PREFIX_ROWS, strip_prefix
from schemas.events import EVENT_TYPE_BY_NAME
from schemas.validate import is_int32, out_of_range

FILE_KINDS = ("controller", "state-change", "server", "kraft-dump", "unknown")
FILE_KIND_RANK = {k: i for i, k in enumerate(FILE_KINDS)}
# The order of log events across files, nulls first: the file's running clock, its running
# controller epoch, the file kind, the recording broker, then file, line and the record's own
# order. Declared once: the local runner and the Spark job both sort by it (docs/log-formats.md, "Order").
CROSS_FILE_ORDER = ("order_ts", "order_epoch", "file_rank", "recording_broker", "file", "line", "sub")

# The catalogue rows a ZooKeeper controller's failover is told by (FileParser._failover_event).
FAILOVER_ROWS = frozenset({"ctl.elected.leader", "ctl.elected", "ctl.elected.epoch", "ctl.failover.epoch.old",
                           "ctl.failover.epoch.1_0", "ctl.failover.epoch.incremented", "ctl.failover.live",
                           "ctl.failover.ready.old", "ctl.failover.ready"})

# The catalogue rows a ZooKeeper migration's KRaft controller tells the topics it creates by
# (FileParser._dual_write).
DUAL_WRITE_ROWS = frozenset({"kraft.controller.created", "kraft.controller.zk_migration_state_35",
                             "kraft.controller.migration.state_replayed", "kraft.controller.create_topics_result",
                             "kraft.controller.created_partition", "kraft.controller.replayed_partition"})

_KIND_BY_NAME = (
    (re.compile(r"state-change\.log"), "state-change"),
    (re.compile(r"controller\.log"), "controller"),
    (re.compile(r"server\.log"), "server"),
    (re.compile(r"cluster.metadata|\.log\.txt$|dump", re.I), "kraft-dump"),
)
_NODE_ID = r"(?:broker|kafka|node|server|controller)[-_]?"   # the words a path names a node by, before its id
_BROKER_IN_PATH = re.compile(_NODE_ID + r"(\d+)(?![\d.])", re.I)
# A folder named after one node (`broker-1`, `kafka_2`, `node3`, a pod's `my-cluster-kafka-0`): one
# broker's logs, not a cluster.
_NODE_FOLDER = re.compile(r"(?:^|[-_.])" + _NODE_ID + r"\d+$", re.I)
URI_SCHEME_AND_AUTHORITY = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(//[^/]*)?")   # file:, hdfs://nn:8020, s3a://bucket

# Loggers whose every line the audit should understand; a line of any other logger is
# counted as recognised-and-ignored instead of quarantined (server.log is mostly others).
AUDITED_LOGGERS = ("state.change.logger", "kafka.controller", "org.apache.kafka.controller", "kafka.cluster.Partition",
                   "kafka.server.ZookeeperLeaderElector", "kafka.zk.KafkaZkClient", "org.apache.kafka.metadata")
# Inside those: loggers that carry nothing the audit reads. The metadata publishers hand the
# broker's and controller's components a new metadata image (FeaturesPublisher: "Loaded new
# metadata FinalizedFeatures[...]"); the records behind it are read from the dump.
NOT_AUDITED_LOGGERS = ("org.apache.kafka.metadata.publisher.",)
AUDITED_SHORT_LOGGERS = ("PartitionStateMachine", "ReplicaStateMachine", "KafkaController", "ControllerChannelManager",
                         "ReplicaManager", "Partition", "OfflinePartitionLeaderSelector", "ControlledShutdownLeaderSelector",
                         "ReassignedPartitionLeaderSelector", "PreferredReplicaPartitionLeaderSelector", "TopicDeletionManager",
                         "ZookeeperLeaderElector", "QuorumController", "ReplicationControlManager")


def file_kind(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    suffix = codec_suffix(name)   # a compressed rotation is the kind of log it holds
    if suffix:
        name = name[:-len(suffix)]
    for rx, kind in _KIND_BY_NAME:
        if rx.search(name):
            return kind
    return "unknown"


# Files an input folder may hold beside the records: metadata about them, not records.
SIDE_FILES = ("manifest.json", "README.md")


def is_input(relative: str) -> bool:
    """Whether the file at `relative` (its path below the input folder) is read: no hidden file
    (`.` or `_`: `_SUCCESS`) in no hidden folder (`.`: a NetApp share's `.snapshot/` holds a copy of
    every file, and each would be replayed again; `.git/`), nor a side file or a generator's truth.
    A folder that starts with `_` is read: `__cluster_metadata-0/` holds the metadata log's dumps."""
    *folders, name = relative.split("/")
    return (not name.startswith((".", "_")) and not any(f.startswith(".") for f in folders)
            and name not in SIDE_FILES and not name.endswith(".truth.jsonl"))


# A line after a kafka-dump-log line that joins it into nothing a row reads (envelope.dump_joins).
UNWRAPPED_REASON = "no log4j envelope: not a record head, a continuation or a kafka-dump-log line"

# Why every line of a copy of another input file is quarantined (copied_files).
COPY_REASON = "a copy of {file} (the same lines): its records are read once, from that file"


def copy_fingerprint(path: str, cluster: str, content_digest: object, nonblank: int) -> tuple | None:
    """What two input files share when one is a copy of the other (a `state-change.log.bak`, a
    broker's folder collected twice): the cluster and a digest of their lines. None for a file
    that is never taken for a copy: one with no record, or a KRaft metadata-log dump, which every
    quorum member's log holds alike (its records are read once by their offset)."""
    if nonblank == 0 or file_kind(path) == "kraft-dump":
        return None
    return cluster, content_digest


def copied_files(fingerprints: dict[str, tuple | None]) -> dict[str, str]:
    """Input file -> the file it is a copy of (copy_fingerprint): of files with the same lines,
    the first in path order is read, and each other one's lines are quarantined, not replayed
    again, which would repeat every timeline row and could place a record after its own
    successor where two of one millisecond are copied."""
    first: dict[tuple, str] = {}
    copies = {}
    for path in sorted(fingerprints):
        fingerprint = fingerprints[path]
        if fingerprint is not None:
            copies[path] = first.setdefault(fingerprint, path)
    return {path: kept for path, kept in copies.items() if kept != path}


def cluster_folder(folder: str, inner: Iterable[str] = ()) -> str:
    """The folder an input `folder` (an input directory, or a single file's) stands for as a
    cluster: itself, or its parent where it names the node that wrote its files and none of the
    `inner` folders (between it and a file) does. `--input logs/prod/broker-*` (the shell lists
    each broker's folder) is cluster prod's logs, as `--input logs/prod` is, not a cluster per
    broker, each holding one broker's view of it."""
    folder = folder.rstrip("/")
    base = URI_SCHEME_AND_AUTHORITY.match(folder)
    cut = folder.rfind("/")
    if (cut > (base.end() if base else 0) and _NODE_FOLDER.search(folder[cut + 1:])
            and not any(_NODE_FOLDER.search(part) for part in inner)):
        return folder[:cut]
    return folder


def broker_from_text(text: str | None) -> int | None:
    """`broker-2/state-change.log`, `kafka_1`, `node3`: the last id-like path part."""
    if not text:
        return None
    found = _BROKER_IN_PATH.findall(text)
    return int(found[-1]) if found else None


def audited(logger: str | None) -> bool:
    if logger is None:
        return True
    if logger.startswith(AUDITED_LOGGERS):
        return not logger.startswith(NOT_AUDITED_LOGGERS)
    return logger in AUDITED_SHORT_LOGGERS or logger.endswith(".StateChangeLogger")


def _unnamed(regex: str, keep: str | None = None) -> str:
    """A regex's named groups as groups Java's regex syntax reads too: `keep` capturing, the
    others not."""
    return re.sub(r"\(\?P<(\w+)>", lambda m: "(" if m[1] == keep else "(?:", regex)


def other_logger_regexes() -> tuple[str, str]:
    """(head, body): two regexes, in the syntax Java's and Python's share, that pick the lines
    the Spark ingest leaves out of the parse (counted as the parse counts them: one record of a
    logger the audit does not read, recognised and ignored; jobs.ingest_spark.other_logger_heads).

    `head` matches a stock-layout head (LAYOUTS' first, the one `parse_head` tries first) that
    is ASCII with no NUL or ESC (so no wrapper, colour code or crash padding, and Java and Python
    read its classes alike); group 1 is its logger, which must not be `audited`. `body` matches
    where the message could begin with a catalogue keyword (`keyword_of`) after any logIdent
    `strip_prefix` could remove (any two of them, a superset): a keyword in any case, or a
    first word `keyword_of` rewrites (a number, `t-0`, `[...]:`, `...=`). A head that `head`
    matches and `body` does not is read by no catalogue row; the caller also leaves out any
    naming a controller epoch (`Controller `), which would move the file's order."""
    from ingest.catalog import catalogue

    stock = LAYOUTS[0].regex.pattern.replace("(?P<msg>.*)", "[\\x01-\\x1a\\x1c-\\x7f]*")
    # Java's `$` also matches before a last \r, \u0085 or \u2028, which `feed` would keep: the very end.
    head = "^" + _unnamed(stock, keep="logger").removesuffix("$") + r"(?![\s\S])"
    envelope = "^" + _unnamed(stock[:stock.index("[\\x01")])
    prefixes = "|".join(_unnamed(rx) for rx in (*(rx for _, rx in PREFIX_ROWS), _OLD_CONTROLLER.pattern, _OLD_BROKER.pattern))
    keywords = alternation(catalogue())
    rewritten = (r"[^ ]*[0-9]", r"[^ ]*\][:,]", r"\[delete-topics-thread-[^ ]*", r"[^ ]*\[[^ ]*=[^ ]*", r"[^ ]*=[^ ]*\[[^ ]*",
                 r"[A-Za-z_][A-Za-z0-9_]*Record\([^ ]*=[^ ]*", r"[^ ]*@[0-9a-f]+:")
    body = f"{envelope}(?:|{prefixes})(?:|{prefixes})(?:(?i:{keywords})|{'|'.join(rewritten)}) "
    return head, body


def alternation(words: Iterable[str]) -> str:
    """A regex matching exactly one of `words`, with their common beginnings factored out (`Ca(?:ched|n)`):
    a backtracking engine (Java's, in the JVM's pass over every line) then tries each beginning
    once, not once per word. Alternatives that share no text stay in sorted order."""
    trie: dict = {}
    for word in words:
        node = trie
        for c in word:
            node = node.setdefault(c, {})
        node[""] = {}   # a word ends here

    def regex(node: dict) -> str:
        options = [re.escape(c) + regex(node[c]) if c else "" for c in sorted(node)]
        return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"
    return regex(trie)


@functools.cache
def _other_logger_patterns() -> tuple[re.Pattern, re.Pattern]:
    return tuple(re.compile(rx, re.ASCII) for rx in other_logger_regexes())


def other_logger_head(line: str) -> bool:
    """jobs.ingest_spark.other_logger_heads of one line, read by Python's regexes (ASCII
    classes, as Java's): for tests and tools without Spark."""
    head, body = _other_logger_patterns()
    m = head.match(line)
    return m is not None and not audited(m[1]) and "Controller " not in line and body.match(line) is None


class Out(NamedTuple):
    """One output row. kind: "event" | "fact" | "understood" | "ignored" | "quarantine"."""
    kind: str
    line: int                  # first input line of the record
    n_lines: int               # input lines this row accounts for (0 on a record's 2nd+ row)
    tag: str | None            # the stream (compose service / pod) the record came from
    order_ts: int | None
    order_epoch: int | None
    pattern: str | None        # catalogue row that understood it
    first: str | None          # Kafka releases that write it (era evidence)
    last: str | None
    data: dict | None          # the event or fact
    reason: str | None         # quarantine reason
    raw: str | None            # quarantined text, verbatim


class FileParser:
    """Feed the lines of one file piece in order; iterate the output."""

    def __init__(self, path: str, zone: str = "UTC", clock: Clock | None = None, table=None, cluster: str = "?"):
        self.path = path
        self.cluster = cluster
        self.kind = file_kind(path)
        self.path_broker = broker_from_text(path)
        self.clock = clock or Clock(zone)
        self.table = AdaptiveIndex(table)
        self.assembler = RecordAssembler()
        self.order_ts: int | None = None
        self.order_epoch: int | None = None
        self.live_brokers: list[int] | None = None   # from the failover's "Currently active brokers" line
        # A new controller's epoch, as (controller, epoch), from a line before its live brokers'
        # ("... Epoch incremented to E", 1.1+; "incremented epoch to E", 0.8-1.0), until its
        # failover is announced (_failover_event).
        self.elected: tuple[int, int] | None = None
        self.announced_epoch: int | None = None
        # A KRaft controller in a ZooKeeper migration, and the topics its CreateTopics requests
        # created (until their records are read): see _dual_write.
        self.zk_migration = False
        self.topics_created: set[str] = set()

    def feed(self, line_no: int, raw: str) -> Iterator[Out]:
        for item in self.assembler.feed(line_no, raw):
            yield from self._record(item)

    def begin_fast_run(self) -> list[Out] | None:
        """Before complete one-line records that were read elsewhere (ingest.fast) take
        their place in this file: what their first (untagged) head would end here, the
        open untagged record. None if another stream still has a record open (the run is
        then fed line by line instead, so that every record keeps its place)."""
        if self.assembler.others_open(None):
            return None
        return [o for item in self.assembler.finish(None) for o in self._record(item)]

    def advance_order(self, ts_ms: int | None, controller_epoch: int | None) -> None:
        """The file's running clock and controller epoch take a record's values (or, after a
        fast run, its last running values) when larger. An epoch no int can hold is garbage,
        not an order."""
        if ts_ms is not None and (self.order_ts is None or ts_ms > self.order_ts):
            self.order_ts = ts_ms
        if controller_epoch is not None and (self.order_epoch is None or controller_epoch > self.order_epoch) \
                and is_int32(controller_epoch):
            self.order_epoch = controller_epoch

    def close(self) -> Iterator[Out]:
        for item in self.assembler.close():
            yield from self._record(item)
        for n, tag, raw in self.assembler.leading:
            # A piece that starts inside a stack trace: the record it continues is in
            # the previous piece of the file; the job re-attaches it (audit.glue_leading).
            yield Out("leading", n, 1, tag, None, None, None, None, None, None, None, raw)

    def _record(self, item: Record | Unparsed) -> Iterator[Out]:
        if isinstance(item, Record) and item.head is None and item.continuation:
            yield from self._wrapped_dump_line(item)
            return
        yield from self._one_record(item)

    def _wrapped_dump_line(self, item: Record) -> Iterator[Out]:
        """A kafka-dump-log line and the lines after it that begin no record: the line wrapped
        (envelope.dump_joins), read as the first join a row understands. If none does, the first
        line is read alone and each other is quarantined, as each would be unwrapped."""
        parts = [item.message, *item.continuation.split("\n")]
        ctx = LineContext(None, None, NO_PREFIX, "", "kraft-dump")
        for text in dump_joins(parts):
            if match_adaptive(text, ctx, self.table) is not None:
                yield from self._one_record(item._replace(message=text, continuation=""))
                return
        raws = item.raw.split("\n")
        yield from self._one_record(Record(item.line, 1, item.tag, None, item.message, "", raws[0]))
        for k, raw in enumerate(raws[1:], 1):
            reason = (NUL_BYTES if "\x00" in raw else LEADING_REASON if is_continuation(unwrap(raw)[1])
                      else UNWRAPPED_REASON)   # what the line alone is quarantined for
            yield Out("quarantine", item.line + k, 1, item.tag, self.order_ts, self.order_epoch, None, None, None, None,
                      reason, raw)

    def _one_record(self, item: Record | Unparsed) -> Iterator[Out]:
        if isinstance(item, Unparsed):
            yield Out("quarantine", item.line, item.lines, item.tag, self.order_ts, self.order_epoch,
                      None, None, None, None, item.reason, item.raw)
            return
        head = item.head
        ts_ms = self.clock.ms(head.ts) if head is not None else None
        prefix, body = strip_prefix(item.message)
        self.advance_order(ts_ms, prefix.controller_epoch)
        # A record without an envelope is a kafka-dump-log line, whatever the file is called.
        ctx = LineContext(head.level if head else None, head.logger if head else None, prefix, item.continuation,
                          self.kind if head is not None else "kraft-dump")
        try:
            found = match_adaptive(body, ctx, self.table)
        except Exception as exc:  # a builder meeting a value it cannot read: the record is quarantined
            yield self._quarantine(item, f"{type(exc).__name__} while reading the message: {exc}")
            return
        if found is None:
            if head is not None and not audited(head.logger):
                yield Out("ignored", item.line, item.lines, item.tag, self.order_ts, self.order_epoch,
                          None, None, None, None, None, None)
            else:
                what = f"{head.logger} message" if head is not None else "kafka-dump-log line"
                yield self._quarantine(item, f"unrecognised {what}: no catalogue row matches")
            return
        pattern, outputs = found
        if head is None:
            # A dump line has no envelope: its record's or batch's timestamp is the file's clock,
            # and a batch's Raft epoch (the quorum leader's, the KRaft controller's) its epoch.
            for data in outputs:
                self.advance_order(data.get("event_time_ms"),
                                   data.get("epoch") if data.get("fact") == "raft_epoch" else None)
        if pattern.name in FAILOVER_ROWS:
            outputs = self._failover_event(outputs)
        elif pattern.name in DUAL_WRITE_ROWS:
            outputs = self._dual_write(outputs)
        if not outputs:
            yield self._row("understood", item, item.lines, pattern, None)
            return
        for data in outputs:
            reason = self._invalid(data) if "event_type" in data else None
            if reason is not None:  # a builder's event the core could not replay: keep the record instead
                yield self._quarantine(item, f"{pattern.name}: {reason}")
                return
        n = item.lines
        broker = self.path_broker if item.tag is None else (broker_from_text(item.tag) or self.path_broker)
        for data in outputs:
            if data.get("fact") == "live_brokers":
                self.live_brokers = data["brokers"]
            elif data.get("event_type") == "ControllerFailover" and data.get("brokers") is None and self.live_brokers is not None:
                data["brokers"], self.live_brokers = self.live_brokers, None
            if "event_type" in data:
                data.setdefault("source_line", item.line)
                if data.get("event_time_ms") is None and ts_ms is not None:
                    data["event_time_ms"] = ts_ms
                if data.get("recording_broker") is None and broker is not None:
                    data["recording_broker"] = broker
                yield self._row("event", item, n, pattern, data)
            else:
                yield self._row("fact", item, n, pattern, data)
            n = 0

    def _failover_event(self, outputs: list) -> list:
        """A new controller's decisions begin once it has read the live brokers
        (initializeControllerContext), long before its "Ready to serve as the new controller"
        line: other brokers log what they receive from it in between. So where a line before
        names the new epoch (0.8-1.0 "incremented epoch to E", 1.1-2.0 "Epoch incremented to E",
        2.1+ the election line), the ControllerFailover is the live brokers' line's and the Ready
        line repeats it."""
        for data in outputs:
            fact = data.get("fact")
            if fact == "controller_elected":
                epoch = data.get("controller_epoch")
                self.elected = None if epoch is None else (data["controller_id"], epoch)
            elif fact == "live_brokers" and self.elected is not None:
                controller, epoch = self.elected
                self.elected, self.announced_epoch = None, epoch
                return [{"event_type": "ControllerFailover", "controller_id": controller, "controller_epoch": epoch,
                         "recording_broker": controller, "brokers": data["brokers"]}]
            elif data.get("event_type") == "ControllerFailover" and data.get("controller_epoch") == self.announced_epoch:
                self.announced_epoch = None
                return []
        return outputs

    def _dual_write(self, outputs: list) -> list:
        """In a ZooKeeper migration (KIP-866) the KRaft controller creates a topic in its metadata
        log and writes it to ZooKeeper; the ZooKeeper brokers' replay has no metadata log, and at
        INFO no broker line names the replicas. The controller's own record of the new partition
        ("Replayed PartitionRecord for new partition t-0 ... PartitionRegistration(replicas=[...],
        ...)", 3.6+; "Created partition ...", 3.4-3.5) does: it is the decision the brokers then
        receive (a LeaderAndIsrReceived, which a KRaft replay, whose dump holds the record, takes
        as a copy). Only for a topic a CreateTopics request just created: a controller that loads
        its log replays every partition again, as new. Outside a migration these lines carry no
        event: the dump's records are the events."""
        out = []
        for data in outputs:
            fact = data.get("fact")
            if fact == "zk_migration":
                state = data["state"]
                if state == "enabled":   # a controller starting: what it replays next is its log
                    self.zk_migration, self.topics_created = True, set()
                elif state in ("NONE", "POST_MIGRATION"):
                    self.zk_migration = False
                elif state == "MIGRATION":
                    self.zk_migration = True
            elif fact == "topics_created":
                if self.zk_migration:
                    self.topics_created.update(data["topics"])
            elif fact == "partition_registration":
                if self.zk_migration and data["new"] and data["topic"] in self.topics_created:
                    controller = data["controller_id"]
                    out.append({"event_type": "LeaderAndIsrReceived", "topic": data["topic"],
                                "partition": data["partition"], "leader": data["leader"],
                                "leader_epoch": data["leader_epoch"], "isr": data["isr"], "replicas": data["replicas"],
                                **({} if controller is None else {"recording_broker": controller})})
            else:
                out.append(data)
        return out

    def _invalid(self, data: dict) -> str | None:
        """What the replay needs of an event of this type (schemas.events), checked cheaply
        per event; the types of the values are the catalogue's tests' business."""
        doc = EVENT_TYPE_BY_NAME.get(data.get("event_type"))
        if doc is None:
            return f"unknown event type {data.get('event_type')!r}"
        missing = [f for f in doc.fields if data.get(f) is None]
        if missing:
            return f"{doc.name} needs field(s) {missing}"
        if doc.scope == "partition" and ((data.get("topic") is None and data.get("topic_id") is None)
                                         or data.get("partition") is None):
            return f"{doc.name} needs topic and partition"
        return out_of_range(data)

    def _row(self, kind: str, item: Record, n: int, pattern: MessagePattern, data: dict | None) -> Out:
        return Out(kind, item.line, n, item.tag, self.order_ts, self.order_epoch, pattern.name, pattern.first,
                   pattern.last, data, None, None)

    def _quarantine(self, item: Record, reason: str) -> Out:
        return Out("quarantine", item.line, item.lines, item.tag, self.order_ts, self.order_epoch,
                   None, None, None, None, reason, item.raw)


def parse_file_lines(path: str, lines: Iterable[tuple[int, str]], zone: str = "UTC", cluster: str = "?") -> Iterator[Out]:
    """Every output row of one whole file (ingest.local)."""
    parser = FileParser(path, zone, cluster=cluster)
    for n, raw in lines:
        yield from parser.feed(n, raw)
    yield from parser.close()
