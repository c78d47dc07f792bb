"""The records an unclean election put at risk, from the offsets the brokers print.

An unclean leader starts from its own log end (`starts at leader epoch E from offset O`): the
records the old leader held beyond O are not on it, and the old leader drops them when it
rejoins as a follower and truncates (`Truncating to offset N`). With acks=1 the producer had
their acknowledgements. From the old leader's log end (exact after the election: its follower
start or its log's load; a floor before it: the highest log end or high watermark it printed),
the new leader's start offset and the old leader's truncation come bounds on the records lost
(`records_lost`, a pure function), or `unknown` with the reason where the logs do not carry them.

`ReplicaLogs` holds what each broker's lines showed of its replica of one partition; `AtRisk` is
one unclean election whose offsets the replay is still collecting (the truncation comes when the
old leader is back, which may be long after)."""
from __future__ import annotations

from typing import NamedTuple

from state_machine.eras import Era, Version
from state_machine.events import Event, provenance

# The log of a broker that prints a new leader's start offset, by the release it starts at
# (Partition.makeLeader: kafka.cluster.Partition in server.log from 0.11, state.change.logger from 2.6;
# KRaft brokers write it in state-change.log). Before 0.11 no line names a leader's start offset.
START_OFFSET_LOG: tuple[tuple[Version, str | None], ...] = (
    ((0, 8, 0), None),
    ((0, 11, 0), "server.log"),
    ((2, 6, 0), "state-change.log"),
)


def start_offset_log(era: Era) -> str | None:
    """The log in which the era's brokers print a new leader's start offset; None: they print none."""
    if era.mode == "kraft":
        return "state-change.log"
    log = None
    for since, name in START_OFFSET_LOG:
        if since <= era.version:
            log = name
    return log


class Known(NamedTuple):
    """An offset a line printed, and how it was obtained (in words, with the line's provenance)."""
    value: int
    how: str


# An offset the bounds read: Known, or the reason it is unknown.
Value = Known | str

UNKNOWN = "unknown"


class Bounds(NamedTuple):
    lower: int | None
    lower_from: str
    upper: int | None
    upper_from: str

    def facts(self) -> dict[str, str]:
        return {"records_lost_lower": UNKNOWN if self.lower is None else str(self.lower),
                "records_lost_lower_from": self.lower_from,
                "records_lost_upper": UNKNOWN if self.upper is None else str(self.upper),
                "records_lost_upper_from": self.upper_from}


def records_lost(new_leader_start: Value, old_leader_end: Value, old_leader_floor: Value,
                 old_leader_truncation: Value) -> Bounds:
    """Bounds on the records the old leader held that the new leader did not.

    - lower: the old leader's log end (exact, else the floor it is known to have reached) less the
      new leader's start offset;
    - upper: the old leader's exact log end less the new leader's start offset; without the start
      offset, less the old leader's truncation offset (its truncation removed those records; some
      below the new leader's start may have been on it)."""
    start = new_leader_start if isinstance(new_leader_start, Known) else None
    end = old_leader_end if isinstance(old_leader_end, Known) else None
    floor = old_leader_floor if isinstance(old_leader_floor, Known) else None
    cut = old_leader_truncation if isinstance(old_leader_truncation, Known) else None
    reach = end or floor
    if start is None:
        lower, lower_from = None, new_leader_start
    elif reach is None:
        lower, lower_from = None, f"{old_leader_end}; {old_leader_floor}"
    else:
        at_least = "" if reach is end else "at least "
        lower, lower_from = max(0, reach.value - start.value), f"{at_least}{reach.how} less {start.how}"
    if end is None:
        upper, upper_from = None, old_leader_end
    elif start is not None:
        upper, upper_from = max(0, end.value - start.value), f"{end.how} less {start.how}"
    elif cut is not None:
        upper, upper_from = max(0, end.value - cut.value), f"{end.how} less {cut.how} ({new_leader_start})"
    else:
        upper, upper_from = None, f"{new_leader_start}; {old_leader_truncation}"
    return Bounds(lower, lower_from, upper, upper_from)


def _line(event: Event) -> str:
    return provenance(event)


class ReplicaLog:
    """What one broker's lines showed of its replica's log: the highest offset its log is known to
    have reached since its last truncation (a log end or a high watermark), its latest high
    watermark, and the start of its latest leadership (leader epoch, start offset, high watermark)."""

    __slots__ = ("floor", "high_watermark", "start_epoch", "start", "start_high_watermark")

    def __init__(self):
        self.floor: Known | None = None
        self.high_watermark: Known | None = None
        self.start_epoch: int | None = None
        self.start: Known | None = None
        self.start_high_watermark: Known | None = None

    def reached(self, offset: Known) -> None:
        if self.floor is None or offset.value > self.floor.value:
            self.floor = offset


class AtRisk:
    """An unclean election whose offsets are still being collected: `index` is its violation's."""

    __slots__ = ("index", "new_leader", "old_leader", "leader_epoch", "floor", "old_high_watermark", "start",
                 "start_high_watermark", "old_end", "truncation", "old_leader_unknown")

    def __init__(self, index: int, new_leader: int, old_leader: int | None, leader_epoch: int, old_leader_unknown: str):
        self.index, self.new_leader, self.old_leader, self.leader_epoch = index, new_leader, old_leader, leader_epoch
        self.old_leader_unknown = old_leader_unknown
        self.floor: Known | None = None
        self.old_high_watermark: Known | None = None
        self.start: Known | None = None
        self.start_high_watermark: Known | None = None
        self.old_end: Known | None = None
        self.truncation: Known | None = None

    @property
    def complete(self) -> bool:
        """Nothing later can change its bounds: the old leader has truncated, and the new leader's
        start offset is known (the old leader's log end before the truncation is settled by then)."""
        return self.truncation is not None and self.start is not None


class ReplicaLogs:
    """Each broker's ReplicaLog of one partition, and the unclean elections still open."""

    __slots__ = ("logs", "open", "brokers_seen")

    def __init__(self):
        self.logs: dict[int, ReplicaLog] = {}
        self.open: list[AtRisk] = []
        self.brokers_seen: set[int] = set()

    def log(self, broker: int) -> ReplicaLog:
        log = self.logs.get(broker)
        if log is None:
            log = self.logs[broker] = ReplicaLog()
        return log

    def seen(self, event: Event) -> None:
        if event.recording_broker is not None:
            self.brokers_seen.add(event.recording_broker)

    def observe(self, event: Event) -> list[AtRisk]:
        """Learn the offsets an event of the recording broker carries; returns the open elections it completed."""
        b = event.recording_broker
        if b is None:
            return []
        self.brokers_seen.add(b)
        log = self.log(b)
        where = _line(event)
        end = event.log_end_offset
        hw = event.high_watermark
        cut = event.truncation_offset
        is_start = (end is not None and event.leader == b and event.leader_epoch is not None
                    and event.event_type == "LeaderAndIsrReceived")
        if hw is not None:
            log.high_watermark = Known(hw, f"broker {b}'s high watermark {hw} ({where})")
            log.reached(log.high_watermark)
        if is_start:
            log.start_epoch = event.leader_epoch
            log.start = Known(end, f"new leader {b}'s start offset {end} at leader epoch {event.leader_epoch} ({where})")
            log.start_high_watermark = log.high_watermark if hw is not None else None
        if end is not None:
            log.reached(Known(end, f"broker {b}'s log end offset {end} ({where})"))
        for risk in self.open:
            if risk.new_leader == b and is_start and event.leader_epoch == risk.leader_epoch and risk.start is None:
                risk.start, risk.start_high_watermark = log.start, log.start_high_watermark
            if risk.old_leader == b:
                if end is not None and not is_start and risk.truncation is None:
                    risk.old_end = Known(end, f"old leader {b}'s log end offset {end} ({where})")
                if hw is not None and risk.truncation is None:
                    risk.old_high_watermark = log.high_watermark
                # A truncation with no effect prints the log end (above); the lowest real one is where
                # the old leader's log was cut (0.8.1-0.10 also print one to a high watermark above the
                # log end, before an out-of-range fetch cuts it back to the leader's).
                if cut is not None and end is None and (risk.truncation is None or cut < risk.truncation.value):
                    risk.truncation = Known(cut, f"old leader {b}'s truncation offset {cut} ({where})")
        if cut is not None:
            # A log cut back: what it reached before is no floor of what it holds now.
            log.floor = Known(min(cut, end) if end is not None else cut,
                              f"broker {b}'s log end offset {min(cut, end) if end is not None else cut} "
                              f"after its truncation ({where})")
        done = [r for r in self.open if r.complete]
        if done:
            self.open = [r for r in self.open if not r.complete]
        return done

    def open_election(self, index: int, new_leader: int, old_leader: int | None, leader_epoch: int,
                      old_leader_unknown: str = "") -> AtRisk:
        """An unclean election (its violation at `index`): what the brokers already showed of it
        (a new leader whose start line came first, the old leader's floor) is taken now."""
        risk = AtRisk(index, new_leader, old_leader, leader_epoch, old_leader_unknown)
        new = self.logs.get(new_leader)
        if new is not None and new.start_epoch == leader_epoch:
            risk.start, risk.start_high_watermark = new.start, new.start_high_watermark
        old = self.logs.get(old_leader) if old_leader is not None else None
        if old is not None:
            risk.floor = old.floor
            risk.old_high_watermark = old.high_watermark
        self.open.append(risk)
        return risk

    def facts(self, risk: AtRisk, era: Era) -> dict[str, str]:
        """The election's facts on the records it put at risk (records_lost with the reasons for what is unknown)."""
        facts: dict[str, str] = {}
        if risk.old_leader is not None:
            facts["old_leader"] = str(risk.old_leader)
        for key, known in (("new_leader_start_offset", risk.start), ("new_leader_high_watermark", risk.start_high_watermark),
                           ("old_leader_log_end_offset", risk.old_end),
                           ("old_leader_high_watermark", risk.old_high_watermark),
                           ("old_leader_truncation_offset", risk.truncation)):
            if known is not None:
                facts[key] = str(known.value)
        if risk.old_leader is None:
            why = risk.old_leader_unknown
            return {**facts, **Bounds(None, why, None, why).facts()}
        if risk.old_leader == risk.new_leader:
            # KRaft's last known leader elected again (KIP-966): its own log is the partition's.
            why = f"the old leader {risk.old_leader} was elected again: its log stays the partition's"
            return {**facts, **Bounds(0, why, 0, why).facts()}
        start = risk.start or self._no_start(risk, era)
        end = risk.old_end or self._no_old_end(risk)
        floor = risk.floor or f"no offset of the old leader {risk.old_leader} before the election"
        cut = risk.truncation or (f"no truncation line of the old leader {risk.old_leader} after the election "
                                  "(server.log, kafka.log.Log)")
        return {**facts, **records_lost(start, end, floor, cut).facts()}

    def _no_start(self, risk: AtRisk, era: Era) -> str:
        log = start_offset_log(era)
        if log is None:
            return "0.8-0.10 print no start offset of a new leader (Partition.makeLeader logs it from 0.11)"
        if risk.new_leader not in self.brokers_seen:
            return f"no start-offset line of the new leader: {log} of broker {risk.new_leader} not in the input"
        return (f"no start-offset line of the new leader {risk.new_leader} at leader epoch {risk.leader_epoch} "
                f"(its {log}: `starts at leader epoch ... from offset`)")

    def _no_old_end(self, risk: AtRisk) -> str:
        if risk.old_leader not in self.brokers_seen:
            return f"no log end offset of the old leader: server.log of broker {risk.old_leader} not in the input"
        return (f"no log end offset of the old leader {risk.old_leader} after the election (a `Follower ... starts "
                f"at ... from offset` or `Completed load of log` line of broker {risk.old_leader})")
