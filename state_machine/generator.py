"""A synthetic cluster-history generator.

It simulates N brokers, T topics of P partitions over time, with broker crashes and
restarts, controlled shutdowns, reassignments, preferred elections, topic deletions,
controller failovers and ISR churn, and writes canonical events: the controller inputs,
and the decisions a controller would log at the chosen level (`trace`: every
transition, as 0.8-2.5 ship; `info`: only transitions to New/Online, as 2.6+ ship;
`inputs`: no decisions). KRaft histories are metadata records instead.

It can inject known faults; every injection is written to the ground truth with the
rule it must trigger and the event that carries it. The ground truth comes from the
injection alone, never from the replay's checks.

Memory: partition state is kept per partition, the output is streamed, so the number of
events is bounded only by time."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple

from state_machine import events as E
from state_machine.eras import ERAS, Era, resolve_era
from state_machine.events import Event
from state_machine.partition import TimelineRow, copy_state
from state_machine.replay import PartitionReplay
from state_machine.selectors import Election, ElectionKind, kraft_election, kraft_preferred_election
from state_machine.states import NO_LEADER, PartitionState, ReplicaState
from state_machine.steps import ControllerOperations

P = PartitionState
R = ReplicaState
# State and election names as plain strings, read once: the renderers below run for
# every row the simulated controller writes, and an enum's `.value` is a slow property.
_NEW, _ONLINE, _NONEXISTENT = P.NewPartition.value, P.OnlinePartition.value, P.NonExistentPartition.value
_UNCLEAN = ElectionKind.unclean.value

FAULTS = {
    # fault name -> rule the replay must report
    "unclean_election": "UNCLEAN_LEADER_ELECTION",
    "illegal_transition": None,  # ILLEGAL_PARTITION_TRANSITION or ILLEGAL_REPLICA_TRANSITION
    "zombie_controller": "STALE_CONTROLLER_EPOCH",
    "leader_epoch_regression": "LEADER_EPOCH_REGRESSION",
    "leader_not_in_isr": "LEADER_NOT_IN_ISR",
}


class Injection(NamedTuple):
    fault: str
    rule: str
    cluster: str
    topic: str
    partition: int
    seq: int


@dataclass
class SimConfig:
    cluster: str = "sim"
    era: str = "2.4"
    brokers: int = 5
    topics: int = 2
    partitions: int = 3
    replication_factor: int = 3
    steps: int = 60
    seed: int = 0
    log_level: str = "trace"          # trace | info | inputs
    faults: dict[str, int] = field(default_factory=dict)
    fault_rate: float = 0.15          # chance per step of trying a pending fault
    start_time_ms: int = 1_700_000_000_000
    topic_prefix: str = "t"
    # Chance per step of a leader's ISR write that does not commit (ZooKeeper mode): a proposal
    # (IsrChangeProposed) and its failure line (IsrUpdateFailed), which leave the partition as it
    # was. 0 draws nothing: the history is the one without them.
    failed_isr_writes: float = 0.0


class _Recorder:
    """Observer of the simulated controller: renders what it did as logged decisions."""

    def __init__(self, sim: "Simulator"):
        self.sim = sim
        self.active = False
        self.unclean_elections = 0

    def partition_row(self, rp: PartitionReplay, previous_state: str | None, row: TimelineRow) -> None:
        if row.election == _UNCLEAN:
            self.unclean_elections += 1
        if self.active:
            self.sim._render_partition(rp, previous_state, row)

    def replica_row(self, rp: PartitionReplay, previous, row) -> None:
        if self.active:
            self.sim._render_replica(rp, previous, row)


class Simulator:
    def __init__(self, cfg: SimConfig):
        self.cfg = cfg
        self.era: Era = resolve_era(cfg.era)
        self.kraft = self.era.mode == "kraft"
        self.rng = random.Random(cfg.seed)
        self.seq = 0
        self.now = cfg.start_time_ms
        self.out: list[Event] = []
        self.truth: list[Injection] = []
        self.live: set[int] = set()
        self.shutting: set[int] = set()
        self.brokers = list(range(1, cfg.brokers + 1))
        self.controller_id = 1
        self.controller_epoch = 0
        self.controllers: dict[int, int] = {}
        self.models: dict[tuple[str, int], PartitionReplay] = {}
        self.topics: dict[str, list[int]] = {}
        self.topic_counter = 0
        self.recorder = _Recorder(self)
        self.fault_budget = {f: n for f, n in cfg.faults.items() if n > 0}
        for f in self.fault_budget:
            if f not in FAULTS:
                raise ValueError(f"unknown fault {f!r}; known: {sorted(FAULTS)}")
        self.pending_rewrite: str | None = None      # illegal_transition / leader_not_in_isr armed
        self.restore_after: list[tuple[PartitionReplay, int]] = []
        # Unclean elections happen without a fault only where the era allows them
        # unconditionally; a fault-free history must not contain one.
        self.guard_unclean = self.era.unclean_gate == "always"

    # ------------------------------------------------------------------ output

    def _event(self, event_type: str, **fields) -> Event:
        self.seq += 1
        self.now += self.rng.randint(1, 50)
        return Event(cluster=self.cfg.cluster, seq=self.seq, event_time_ms=self.now, event_type=event_type,
                     source_file=f"generated/{self.cfg.cluster}.events", source_line=self.seq, **fields)

    def _emit(self, event: Event) -> Event:
        self.out.append(event)
        return event

    def _decision_fields(self) -> dict:
        return {"controller_id": self.controller_id, "controller_epoch": self.controller_epoch,
                "recording_broker": self.controller_id}

    def _render_partition(self, rp: PartitionReplay, previous: str | None, row: TimelineRow) -> None:
        level = self.cfg.log_level
        if level == "inputs":
            return
        state, leader, epoch, isr, replicas, election = (row.partition_state, row.leader, row.leader_epoch, row.isr,
                                                         row.replicas, row.election)
        last = self._last_rows.get(rp.partition_key)
        self._last_rows[rp.partition_key] = (state, leader, epoch, isr, replicas)
        previous = previous or _NONEXISTENT
        fields = dict(topic=rp.topic, partition=rp.partition, **self._decision_fields())
        if previous != state or election is not None:
            if level == "info" and state not in (_NEW, _ONLINE):
                return
            if state == _ONLINE and (election is not None or previous != state):
                fields.update(leader=leader, leader_epoch=epoch, isr=list(isr), zk_version=rp.zk_version)
            if state == _NEW:
                fields.update(replicas=list(replicas))
            from_state = previous
            rewrite = self._arm("illegal_transition", previous != state)
            if rewrite:
                from_state = self._illegal_previous(self.era.partition_valid_previous, P(state), P(previous))
            if self._arm("leader_not_in_isr", "leader" in fields and leader >= 0 and len(isr) >= 2
                         and election not in (None, "initial")):
                fields["isr"] = [r for r in isr if r != leader]
                ev = self._emit(self._event(E.PARTITION_STATE_CHANGE, from_state=from_state, to_state=state, **fields))
                self._record("leader_not_in_isr", "LEADER_NOT_IN_ISR", rp, ev)
                self.restore_after.append((rp, leader))
                return
            ev = self._emit(self._event(E.PARTITION_STATE_CHANGE, from_state=from_state, to_state=state, **fields))
            if rewrite:
                self._record("illegal_transition", "ILLEGAL_PARTITION_TRANSITION", rp, ev)
            return
        if level == "trace" and last is not None and (leader, epoch, isr) != last[1:4] and epoch >= 0:
            # (a row without a leader epoch is no write: a deleted topic's znode gone)
            self._emit(self._event(E.LEADER_AND_ISR, leader=leader, leader_epoch=epoch, isr=list(isr),
                                   zk_version=rp.zk_version, **fields))

    def _render_replica(self, rp: PartitionReplay, previous, row) -> None:
        if self.cfg.log_level != "trace":
            return
        from_state = (previous or R.NonExistentReplica)._value_
        rewrite = self._arm("illegal_transition", True)
        if rewrite:
            from_state = self._illegal_previous(self.era.replica_valid_previous, R(row.replica_state),
                                                previous or R.NonExistentReplica)
        ev = self._emit(self._event(E.REPLICA_STATE_CHANGE, topic=rp.topic, partition=rp.partition, replica=row.replica,
                                    from_state=from_state, to_state=row.replica_state, **self._decision_fields()))
        if rewrite:
            self._record("illegal_transition", "ILLEGAL_REPLICA_TRANSITION", rp, ev)

    def _arm(self, fault: str, possible: bool) -> bool:
        if possible and self.pending_rewrite == fault:
            self.pending_rewrite = None
            return True
        return False

    def _illegal_previous(self, table, target, actual) -> str:
        states = list(table)
        choices = [s for s in states if s not in table.get(target, ()) and s is not actual]
        return self.rng.choice(sorted(choices, key=lambda s: s.value)).value

    def _record(self, fault: str, rule: str, rp_or_key, ev: Event) -> None:
        topic, partition = (rp_or_key.topic, rp_or_key.partition) if isinstance(rp_or_key, PartitionReplay) else rp_or_key
        self.truth.append(Injection(fault, rule, self.cfg.cluster, topic, partition, ev.seq))
        self.fault_budget[fault] -= 1
        if self.fault_budget[fault] == 0:
            del self.fault_budget[fault]

    # ------------------------------------------------------------------ driving the controller

    def _model(self, topic: str, partition: int) -> PartitionReplay:
        rp = PartitionReplay(self.cfg.cluster, topic, partition, self.era)
        rp.live = self.live          # shared: one cluster, one view of liveness
        rp.shutting_down = self.shutting
        rp.liveness_known = rp.liveness_complete = True   # the simulator knows every broker
        rp.observer = self.recorder
        rp.partition_key = (topic, partition)
        rp.controller_epoch = self.controller_epoch or None
        rp.controller_of_epoch = self.controllers
        if self.era.unclean_gate != "always":
            rp.unclean_cluster = False  # the boot ConfigChange disables it cluster-wide
        self.models[(topic, partition)] = rp
        return rp

    def _input(self, event: Event, models) -> None:
        """Log the input, let each partition's controller react, log what it did."""
        self._emit(event)
        for rp in models:
            self.recorder.active = False
            rp.feed(event)
            self.recorder.active = True
            rp._flush(event)
            self.recorder.active = False
            rp.drain()
        self._restore_isr()

    def _restore_isr(self) -> None:
        # After a leader-outside-ISR fault the leader re-adds itself, as Partition.scala keeps it.
        for rp, leader in self.restore_after:
            if rp.leader == leader and rp.leader >= 0:
                ev = self._event(E.ISR_CHANGE, topic=rp.topic, partition=rp.partition, leader=rp.leader,
                                 leader_epoch=rp.leader_epoch, isr=list(rp.isr), recording_broker=rp.leader,
                                 zk_version=self._next_zk_version(rp))
                self._emit(ev)
                rp.feed(ev)
                rp.drain()
        self.restore_after = []

    def _hosting(self, brokers) -> list[PartitionReplay]:
        return [rp for rp in self.models.values() if any(b in rp.replicas for b in brokers)]

    def _broker_event(self, event_type: str, brokers: list[int]) -> None:
        ev = self._event(event_type, brokers=brokers)
        ControllerOperations.update_liveness(_LivenessView(self), ev)
        if self.kraft:
            self._emit(ev)
            self._kraft_broker_change(ev)
        else:
            self._input(ev, self._hosting(brokers))

    # ------------------------------------------------------------------ actions

    def _create_topic(self) -> None:
        self.topic_counter += 1
        topic = f"{self.cfg.topic_prefix}{self.topic_counter}"
        rf = min(self.cfg.replication_factor, len(self.brokers))
        parts = list(range(self.cfg.partitions))
        self.topics[topic] = parts
        offset = self.rng.randrange(len(self.brokers))
        for p in parts:
            start = (offset + p) % len(self.brokers)
            replicas = [self.brokers[(start + i) % len(self.brokers)] for i in range(rf)]
            rp = self._model(topic, p)
            if self.kraft:
                self._kraft_create(rp, replicas)
            else:
                self._input(self._event(E.TOPIC_CREATION, topic=topic, partition=p, replicas=replicas), [rp])

    def _actions(self) -> list[tuple[float, Callable[[], bool]]]:
        acts = [
            (3.0, self._act_crash), (3.0, self._act_restart), (1.0, self._act_controlled_shutdown),
            (1.5, self._act_reassign), (3.0, self._act_catch_up), (1.0, self._act_preferred),
            (4.0, self._act_isr_shrink), (4.0, self._act_isr_expand), (0.7, self._act_failover),
            (0.3, self._act_create_topic),
        ]
        if self.era.topic_deletion:
            acts.append((0.3, self._act_delete_topic))
        return acts

    def _online(self) -> list[PartitionReplay]:
        return [rp for rp in self.models.values() if rp.state is P.OnlinePartition and rp.leader >= 0 and not rp.deleting]

    def _act_crash(self) -> bool:
        live = sorted(self.live)
        if len(live) <= 2:
            return False
        self._broker_event(E.BROKER_FAILURE, [self.rng.choice(live)])
        return True

    def _act_restart(self) -> bool:
        dead = [b for b in self.brokers if b not in self.live]
        if not dead:
            return False
        self._broker_event(E.BROKER_STARTUP, [self.rng.choice(dead)])
        return True

    def _act_controlled_shutdown(self) -> bool:
        live = sorted(self.live - self.shutting)
        if len(live) <= 2:
            return False
        b = self.rng.choice(live)
        self._broker_event(E.CONTROLLED_SHUTDOWN, [b])
        self._broker_event(E.BROKER_FAILURE, [b])
        return True

    def _act_reassign(self) -> bool:
        cands = [rp for rp in self._online() if rp.reassignment_target is None]
        if not cands:
            return False
        rp = self.rng.choice(cands)
        target = self.rng.sample(self.brokers, min(len(rp.replicas), len(self.brokers)))
        if tuple(target) == rp.replicas:
            return False
        if self.kraft:
            return self._kraft_reassign(rp, target)
        self._input(self._event(E.REASSIGNMENT_START, topic=rp.topic, partition=rp.partition, replicas=target), [rp])
        return True

    def _act_catch_up(self) -> bool:
        cands = [rp for rp in self._online() if rp.reassignment_target is not None
                 and any(r in self.live and r not in rp.isr and r in rp.replicas for r in rp.reassignment_target)]
        if not cands:
            return False
        rp = self.rng.choice(cands)
        r = next(r for r in rp.reassignment_target if r in self.live and r not in rp.isr and r in rp.replicas)
        isr = rp.isr + (r,)
        if self.kraft and all(t in isr for t in rp.reassignment_target):
            return self._kraft_complete(rp, rp.reassignment_target, isr)
        return self._isr_change(rp, isr)

    def _act_preferred(self) -> bool:
        cands = [rp for rp in self._online() if rp.replicas and rp.leader != rp.replicas[0]
                 and rp.replicas[0] in rp.isr and rp.replicas[0] in self.live and rp.reassignment_target is None]
        if not cands:
            return False
        rp = self.rng.choice(cands)
        if self.kraft:
            return self._kraft_change(rp, elect="preferred")
        self._input(self._event(E.REPLICA_LEADER_ELECTION, topic=rp.topic, partition=rp.partition,
                                election_type="PREFERRED"), [rp])
        return True

    def _act_isr_shrink(self) -> bool:
        cands = [rp for rp in self._online() if len(rp.isr) >= 2]
        if not cands:
            return False
        rp = self.rng.choice(cands)
        follower = self.rng.choice([r for r in rp.isr if r != rp.leader])
        return self._isr_change(rp, tuple(r for r in rp.isr if r != follower))

    def _act_isr_expand(self) -> bool:
        cands = [rp for rp in self._online()
                 if any(r in self.live and r not in self.shutting and r not in rp.isr for r in rp.replicas)]
        if not cands:
            return False
        rp = self.rng.choice(cands)
        r = self.rng.choice([r for r in rp.replicas if r in self.live and r not in self.shutting and r not in rp.isr])
        return self._isr_change(rp, rp.isr + (r,))

    def _isr_change(self, rp: PartitionReplay, isr: tuple[int, ...]) -> bool:
        if self.kraft:
            return self._kraft_change(rp, isr=isr)
        ev = self._event(E.ISR_CHANGE, topic=rp.topic, partition=rp.partition, leader=rp.leader,
                         leader_epoch=rp.leader_epoch, isr=list(isr), recording_broker=rp.leader,
                         zk_version=self._next_zk_version(rp))
        self._input(ev, [rp])
        return True

    def _failed_isr_write(self) -> None:
        """A live replica's ISR write that does not commit: the leader racing the controller
        (it drops a follower), or a replica whose cache still says it leads (it shrinks the ISR to
        itself, KAFKA-2729). Not fed to the model: nothing changed, and the replay must agree."""
        if self.rng.random() >= self.cfg.failed_isr_writes:
            return
        online = [rp for rp in self._online() if len(rp.isr) >= 2]
        if not online:
            return
        rp = self.rng.choice(online)
        alive = [r for r in rp.replicas if r in self.live]
        if not alive:
            return
        proposer = self.rng.choice(alive)
        if proposer == rp.leader:
            dropped = self.rng.choice([r for r in rp.isr if r != proposer])
            isr = [r for r in rp.isr if r != dropped]
        else:
            isr = [proposer]
        where = dict(topic=rp.topic, partition=rp.partition, leader=proposer, recording_broker=proposer)
        self._emit(self._event(E.ISR_CHANGE_PROPOSED, isr=isr, **where))
        self._emit(self._event(E.ISR_UPDATE_FAILED, detail="the write did not commit", **where))

    def _next_zk_version(self, rp: PartitionReplay) -> int | None:
        # The znode version the leader's conditional write leaves ("zkVersion updated to [N]"):
        # it counts the controller's writes too, logged or not, so only the model knows it.
        return None if self.kraft else rp.zk_version + 1

    def _act_failover(self) -> bool:
        live = sorted(self.live)
        if not live:
            return False
        self.controller_id = self.rng.choice(live)
        self.controller_epoch += 1
        self.controllers[self.controller_epoch] = self.controller_id
        ev = self._event(E.CONTROLLER_FAILOVER, controller_id=self.controller_id,
                         controller_epoch=self.controller_epoch, brokers=live)
        if self.kraft:
            self._emit(ev)
        else:
            self._input(ev, list(self.models.values()))
        return True

    def _act_create_topic(self) -> bool:
        self._retire_deleted_topics()
        if len(self.topics) >= self.cfg.topics * 2:  # the topics that exist now, not all ever created
            return False
        self._create_topic()
        return True

    def _retire_deleted_topics(self) -> None:
        # A topic whose deletion has completed takes no further part (names are never
        # reused): keeping its partitions would make every broker event and every
        # controller failover visit them for the rest of the history.
        for topic, parts in list(self.topics.items()):
            models = [self.models[(topic, p)] for p in parts]
            if all(rp.state is P.NonExistentPartition and not rp.deleting for rp in models):
                del self.topics[topic]
                for p in parts:
                    del self.models[(topic, p)]

    def _act_delete_topic(self) -> bool:
        self._retire_deleted_topics()
        alive = [t for t, parts in self.topics.items()
                 if all(self.models[(t, p)].state is not P.NonExistentPartition and not self.models[(t, p)].deleting
                        for p in parts)]
        if len(alive) <= 1:
            return False
        topic = self.rng.choice(sorted(alive))
        models = [self.models[(topic, p)] for p in self.topics[topic]]
        if self.kraft:
            ev = self._emit(self._event(E.REMOVE_TOPIC_RECORD, topic=topic, **self._decision_fields()))
            for rp in models:
                rp.feed(ev)
                rp.drain()
        else:
            self._input(self._event(E.TOPIC_DELETION, topic=topic), models)
        return True

    # ------------------------------------------------------------------ KRaft controller

    def _kraft_create(self, rp: PartitionReplay, replicas: list[int]) -> None:
        acceptable = self.live - self.shutting
        isr = [r for r in replicas if r in acceptable] or replicas[:1]
        leader = next((r for r in replicas if r in acceptable), NO_LEADER)
        ev = self._emit(self._event(E.PARTITION_RECORD, topic=rp.topic, partition=rp.partition, replicas=replicas,
                                    isr=isr, leader=leader, leader_epoch=0, zk_version=0, adding_replicas=[],
                                    removing_replicas=[], **self._decision_fields()))
        rp.feed(ev)
        rp.drain()

    def _kraft_change(self, rp: PartitionReplay, isr=None, leader=None, replicas=None, elect: str | None = None,
                      force_leader=False, reassigning: dict | None = None) -> bool:
        acceptable = self.live - self.shutting
        target_isr = tuple(isr) if isr is not None else rp.isr
        target_replicas = tuple(replicas) if replicas is not None else rp.replicas
        new_leader = leader
        if elect == "preferred":
            out = kraft_preferred_election(target_replicas, target_isr, rp.leader, acceptable)
            if not isinstance(out, Election):
                return False
            new_leader = out.leader
        elif elect == "any" or (leader is None and (rp.leader not in target_isr or rp.leader not in acceptable)):
            out = kraft_election(target_replicas, target_isr, rp.leader, acceptable, unclean_allowed=False)
            if isinstance(out, Election):
                new_leader = out.leader
                target_isr = out.isr
            elif rp.leader >= 0 and (rp.leader not in target_isr or rp.leader not in acceptable):
                new_leader = NO_LEADER
        if new_leader == rp.leader and not force_leader:
            new_leader = None
        fields = {}
        if isr is not None or target_isr != rp.isr:
            fields["isr"] = list(target_isr)
        if replicas is not None:
            fields["replicas"] = list(target_replicas)
        if new_leader is not None:
            fields["leader"] = new_leader
        fields.update(reassigning or {})
        if not fields:
            return False
        ev = self._event(E.PARTITION_CHANGE_RECORD, topic=rp.topic, partition=rp.partition, **fields,
                         **self._decision_fields())
        # Only a leader from the ISR before: one joining it in this change (a reassignment's
        # completion) would be unclean without it as well.
        if self._arm("leader_not_in_isr", "leader" in fields and new_leader >= 0 and len(target_isr) >= 2
                     and new_leader in rp.isr):
            bad = ev._replace(isr=[r for r in target_isr if r != new_leader])
            self._emit(bad)
            self._record("leader_not_in_isr", "LEADER_NOT_IN_ISR", rp, bad)
            rp.feed(bad)
            fix = self._event(E.PARTITION_CHANGE_RECORD, topic=rp.topic, partition=rp.partition, isr=list(target_isr),
                              **self._decision_fields())
            self._emit(fix)
            rp.feed(fix)
        else:
            self._emit(ev)
            rp.feed(ev)
        rp.drain()
        return True

    def _kraft_broker_change(self, ev: Event) -> None:
        brokers = set(ev.brokers)
        for rp in self._hosting(brokers):
            if rp.state is P.NonExistentPartition:
                continue
            if ev.event_type == E.BROKER_STARTUP:
                if rp.leader < 0:
                    self._kraft_change(rp, elect="any")
                continue
            # Fenced or shutting down: removed from every ISR (last member kept), re-elected.
            isr = tuple(r for r in rp.isr if r not in brokers) or rp.isr
            self._kraft_change(rp, isr=isr if isr != rp.isr else None, elect="any" if rp.leader in brokers else None)

    def _kraft_reassign(self, rp: PartitionReplay, target: list[int]) -> bool:
        # KIP-455 as PartitionChangeBuilder writes it: unless the ISR already holds the target, the
        # replicas become the target and then the ones it removes, and addingReplicas /
        # removingReplicas (each written only when it changes) hold the reassignment in flight.
        adding = [r for r in target if r not in rp.replicas]
        removing = [r for r in rp.replicas if r not in target]
        if (adding or removing) and not all(r in rp.isr for r in target):
            reassigning = {name: ids for name, ids in (("adding_replicas", adding), ("removing_replicas", removing)) if ids}
            return self._kraft_change(rp, replicas=list(target) + removing, reassigning=reassigning)
        return self._kraft_complete(rp, target, rp.isr)

    def _kraft_complete(self, rp: PartitionReplay, target, isr) -> bool:
        # The change that completes it (an AlterPartition's, once the ISR holds the target) drops
        # the removed replicas from the ISR and elects from the target if the leader is leaving.
        isr = tuple(r for r in isr if r in target)
        leader = rp.leader if rp.leader in target else None
        reassigning = {}   # the lists of the reassignment in flight, emptied
        if rp.adding_replicas:
            reassigning["adding_replicas"] = []
        if rp.removing_replicas:
            reassigning["removing_replicas"] = []
        return self._kraft_change(rp, replicas=list(target), isr=isr, elect=None if leader is not None else "any",
                                  force_leader=True, reassigning=reassigning)

    # ------------------------------------------------------------------ faults

    def _try_fault(self) -> None:
        if not self.fault_budget or self.rng.random() > self.cfg.fault_rate:
            return
        fault = self.rng.choice(sorted(self.fault_budget))
        getattr(self, "_fault_" + fault)()

    def _fault_illegal_transition(self) -> None:
        if self.kraft or self.cfg.log_level == "inputs":
            return
        self.pending_rewrite = "illegal_transition"

    def _fault_leader_not_in_isr(self) -> None:
        if self.cfg.log_level == "inputs" and not self.kraft:
            return
        self.pending_rewrite = "leader_not_in_isr"

    def _fault_unclean_election(self) -> None:
        cands = [rp for rp in self._online() if any(r in self.live and r not in self.shutting and r not in rp.isr
                                                    for r in rp.replicas)]
        if not cands:
            return
        rp = self.rng.choice(cands)
        x = next(r for r in rp.replicas if r in self.live and r not in self.shutting and r not in rp.isr)
        if self.kraft:
            ev = self._event(E.PARTITION_CHANGE_RECORD, topic=rp.topic, partition=rp.partition, leader=x, isr=[x],
                             leader_recovery_state="RECOVERING", **self._decision_fields())
        else:
            ev = self._event(E.PARTITION_STATE_CHANGE, topic=rp.topic, partition=rp.partition,
                             from_state=P.OnlinePartition.value, to_state=P.OnlinePartition.value, leader=x,
                             leader_epoch=rp.leader_epoch + 1, isr=[x], zk_version=rp.zk_version + 1,
                             **self._decision_fields())
        self._emit(ev)
        self._record("unclean_election", "UNCLEAN_LEADER_ELECTION", rp, ev)
        rp.feed(ev)   # the world follows the faulty controller
        rp.drain()

    def _fault_zombie_controller(self) -> None:
        if self.controller_epoch < 2:
            return
        cands = self._online()
        if not cands:
            return
        rp = self.rng.choice(cands)
        old_epoch = self.rng.randrange(1, self.controller_epoch)
        zombie = self.controllers.get(old_epoch, 1)
        leader = self.rng.choice(list(rp.replicas))
        event_type = E.PARTITION_CHANGE_RECORD if self.kraft else E.LEADER_AND_ISR
        ev = self._emit(self._event(event_type, topic=rp.topic, partition=rp.partition, leader=leader,
                                    leader_epoch=None if self.kraft else rp.leader_epoch + 1, isr=[leader],
                                    controller_id=zombie, controller_epoch=old_epoch, recording_broker=zombie))
        self._record("zombie_controller", "STALE_CONTROLLER_EPOCH", rp, ev)

    def _fault_leader_epoch_regression(self) -> None:
        cands = [rp for rp in self._online() if rp.leader_epoch >= 1]
        if not cands:
            return
        rp = self.rng.choice(cands)
        if self.kraft:
            ev = self._emit(self._event(E.PARTITION_RECORD, topic=rp.topic, partition=rp.partition,
                                        replicas=list(rp.replicas), isr=list(rp.isr), leader=rp.leader,
                                        leader_epoch=rp.leader_epoch - 1, zk_version=rp.zk_version,
                                        **self._decision_fields()))
        else:
            common = dict(topic=rp.topic, partition=rp.partition, leader=rp.leader, isr=list(rp.isr),
                          **self._decision_fields())
            self._emit(self._event(E.LEADER_AND_ISR, leader_epoch=rp.leader_epoch, zk_version=rp.zk_version, **common))
            ev = self._emit(self._event(E.LEADER_AND_ISR, leader_epoch=rp.leader_epoch - 1, **common))
        self._record("leader_epoch_regression", "LEADER_EPOCH_REGRESSION", rp, ev)

    # ------------------------------------------------------------------ the run

    def _snapshot(self):
        keep = (self.out, self.recorder)
        self.out, self.recorder = [], None
        for rp in self.models.values():
            rp.observer = None
        # Not copied: the configuration, which nothing changes, and the random generator, whose
        # state (625 ints) getstate hands over as one tuple.
        state = copy_state({k: v for k, v in self.__dict__.items() if k not in ("cfg", "rng")}, {})
        state["rng"] = self.rng.getstate()
        self.out, self.recorder = keep
        for rp in self.models.values():
            rp.observer = keep[1]
        return state

    def _restore(self, state, out_len: int) -> None:
        out, recorder = self.out, self.recorder
        self.rng.setstate(state.pop("rng"))
        self.__dict__.update(state)
        self.out, self.recorder = out[:out_len], recorder
        for rp in self.models.values():
            rp.observer = recorder

    def _last_rows_init(self) -> None:
        self._last_rows: dict = {}

    def run(self) -> Iterator[Event]:
        """Yield the history's events in recorded order (the ground truth fills as it goes)."""
        self._last_rows_init()
        cfg = self.cfg
        self.controller_epoch = 1
        self.controllers[1] = self.controller_id
        self.live.update(self.brokers)
        boot = [self._event(E.CONTROLLER_FAILOVER, controller_id=self.controller_id, controller_epoch=1,
                            brokers=list(self.brokers))]
        boot.append(self._event(E.BROKER_STARTUP, brokers=list(self.brokers)))
        if self.era.unclean_gate != "always":
            boot.append(self._event(E.CONFIG_CHANGE, config_name="unclean.leader.election.enable", config_value="false"))
        self.out.extend(boot)
        for _ in range(cfg.topics):
            self._create_topic()
        yield from self._drain_out()
        actions = self._actions()
        weights = [w for w, _ in actions]
        for _ in range(cfg.steps):
            act = self.rng.choices(actions, weights)[0][1]
            if self.guard_unclean:
                state, mark = self._snapshot(), len(self.out)
                unclean_before = self._unclean_count()
                act()
                if self._unclean_count() != unclean_before:
                    self._restore(state, mark)
            else:
                act()
            self._try_fault()
            if cfg.failed_isr_writes and not self.kraft:
                self._failed_isr_write()
            yield from self._drain_out()

    def _unclean_count(self) -> int:
        return self.recorder.unclean_elections

    def _drain_out(self) -> Iterator[Event]:
        out, self.out = self.out, []
        yield from out


class _LivenessView:
    """Lets the simulator reuse ControllerOperations.update_liveness on its shared sets."""

    def __init__(self, sim: Simulator):
        self.live, self.shutting_down, self.liveness_known = sim.live, sim.shutting, True
        self.dead: set[int] = set()   # (read by no one: the simulator's liveness is complete)


def simulate(cfg: SimConfig) -> tuple[list[Event], list[Injection]]:
    sim = Simulator(cfg)
    events = list(sim.run())
    return events, sim.truth
