"""What an audit carries into a later input (PartitionStateCarried, ReplicaStateCarried), built
from the core's own output the way jobs.audit.carried_state builds it from the Delta tables:
the partition's last timeline row before the later input starts and each replica's last row
before it. Shared by tests/core/test_carried_state.py and tests/spark/test_audit.py (tests/ is
on sys.path: its conftest)."""
from __future__ import annotations

from state_machine.events import Event

AHEAD = -(2 ** 63)   # jobs.audit.CARRIED_SEQ


def carried_events(cluster: str, topic: str, partition: int, rows, replica_rows, start_ms: int | None = None) -> list[Event]:
    """The carried events of one partition whose replay wrote `rows` and `replica_rows`: of
    the rows before `start_ms` (all of them when None)."""
    def before(r) -> bool:
        return start_ms is None or (r.valid_from is not None and r.valid_from < start_ms)

    out = []
    timeline = [r for r in rows if before(r)]
    if timeline:
        last = timeline[-1]
        out.append(Event(cluster=cluster, seq=AHEAD, event_time_ms=last.valid_from, event_type="PartitionStateCarried",
                         topic=topic, partition=partition, source_file=last.source,
                         detail="inferred" if last.inferred else None, to_state=last.partition_state, leader=last.leader,
                         leader_epoch=last.leader_epoch, isr=list(last.isr), replicas=list(last.replicas),
                         controller_epoch=last.controller_epoch))
    states = {r.replica: r for r in replica_rows if before(r)}
    out += [Event(cluster=cluster, seq=AHEAD, event_time_ms=r.valid_from, event_type="ReplicaStateCarried", topic=topic,
                  partition=partition, source_file=r.source, detail="inferred" if r.inferred else None,
                  replica=r.replica, to_state=r.replica_state)
            for _, r in sorted(states.items())]
    return out
