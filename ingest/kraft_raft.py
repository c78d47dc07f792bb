"""KRaft: the Raft client's election states (org.apache.kafka.raft.QuorumState, `[RaftManager id=N] `),
as catalogue rows. Every quorum member (and every broker, as an observer) logs each transition of
its election state with the state's `toString`:

    Completed transition to Leader(localId=1, epoch=5, epochStartOffset=120, ...) from CandidateState(...)

The states that name an epoch's leader are controller changes: `Leader` (the node writing the
line won the epoch), `Follower` (the leader it follows), `Resigned` (the leader giving the epoch
up: the active controller lost its term) and, from 4.0, `Unattached` and `Prospective` when they
name the epoch's leader. Each gives a `raft_epoch` fact, as the controller.log's `In the new
epoch E, the leader is L` does, which the ingest turns into the epoch's ControllerFailover
(ingest.local, jobs.ingest_spark: placed at the epoch's first metadata batch where the dump has
one). An epoch no leader has won yet (`Unattached`, `Candidate`, `Voted`, `Prospective` without a
leader) is no controller change: understood, no event.

Sources read (apache/kafka): raft/src/main/java/org/apache/kafka/raft/QuorumState.java and the
*State.java toString of tags 2.8.0, 3.0.0, 3.3.0, 3.5.0, 3.6.0, 3.7.0, 3.8.0, 3.9.0-rc3, and the
kafka-raft jars' constant pools of 3.8.1, 3.9.2, 4.0.2, 4.1.0, 4.2.0, 4.3.1. The wording:
`Completed transition to {}` 2.8.0..3.5.2, `Completed transition to {} from {}` 3.6.0.., and
`Attempting durable transition to {} from {}` 3.9.0.. (a transition written to the quorum-state
file first)."""
from __future__ import annotations

import re
from typing import NamedTuple

from ingest.catalog import LineContext, MessagePattern, row
from state_machine.eras import parse_version

_QS = "QuorumState.java"
_INT = r"(?P<epoch>\d+)"
# ReplicaKey.toString (3.9..): `ReplicaKey(id=1, directoryId=...)`, the directory an Optional or a Uuid.
_REPLICA_KEY = r"ReplicaKey\(id=(?P<leader>\d+), directoryId=[^)]*\)"
# OptionalInt.toString: the epoch's leader where the state knows it (4.0..).
_LEADER_ID = r"leaderId=(?:OptionalInt\[(?P<leader>\d+)\]|OptionalInt\.empty)"
_ENDPOINTS = r"Endpoints\(endpoints=\{.*?\}\)"


class StateForm(NamedTuple):
    """One printed form of one election state: what its toString starts with, and the releases
    that print it. `leader` says whether the form names the epoch's leader."""
    name: str
    state_class: str
    first: str
    last: str | None
    regex: str


# Each form's regex reads the state's toString up to where the next form differs; the rest of
# the line (the state's other fields, " from <the state before>") is read as any text.
STATE_FORMS: tuple[StateForm, ...] = (
    StateForm("leader", "LeaderState", "2.8.0", "3.8.1",
              rf"Leader\(localId=(?P<leader>\d+), epoch={_INT}, epochStartOffset=-?\d+"),
    StateForm("leader_replica_key", "LeaderState", "3.9.0", "4.0.2",
              rf"Leader\(localReplicaKey={_REPLICA_KEY}, epoch={_INT}, epochStartOffset=-?\d+"),
    # VoterNode.toString: `VoterNode(voterKey=ReplicaKey(...), listeners=Endpoints(...), supportedKRaftVersion=...)`.
    StateForm("leader_voter_node", "LeaderState", "4.1.0", None,
              rf"Leader\(localVoterNode=VoterNode\(voterKey={_REPLICA_KEY}, listeners=.*?\), epoch={_INT}, "
              r"epochStartOffset=-?\d+"),
    StateForm("follower", "FollowerState", "2.8.0", "3.7.2",
              rf"FollowerState\(fetchTimeoutMs=\d+, epoch={_INT}, leaderId=(?P<leader>\d+), voters="),
    # 3.8 prints the leader's Node (`host:port (id: 2 rack: null)`), and no comma before `voters`.
    StateForm("follower_node", "FollowerState", "3.8.0", "3.8.1",
              rf"FollowerState\(fetchTimeoutMs=\d+, epoch={_INT}, leader=.*?\(id: (?P<leader>\d+) rack: [^)]*\) voters="),
    StateForm("follower_endpoints", "FollowerState", "3.9.0", "3.9.2",
              rf"FollowerState\(fetchTimeoutMs=\d+, epoch={_INT}, leader=(?P<leader>\d+), leaderEndpoints={_ENDPOINTS}, voters="),
    StateForm("follower_voted_key", "FollowerState", "4.0.0", None,
              rf"FollowerState\(fetchTimeoutMs=\d+, epoch={_INT}, leader=(?P<leader>\d+), leaderEndpoints={_ENDPOINTS}, "
              r"votedKey="),
    StateForm("resigned", "ResignedState", "2.8.0", None,
              rf"ResignedState\(localId=(?P<leader>\d+), epoch={_INT}, voters="),
    StateForm("unattached", "UnattachedState", "2.8.0", "3.8.1", rf"Unattached\(epoch={_INT}, voters="),
    StateForm("unattached_voted_key", "UnattachedState", "3.9.0", "3.9.2", rf"Unattached\(epoch={_INT}, votedKey="),
    StateForm("unattached_leader_id", "UnattachedState", "4.0.0", None,
              rf"UnattachedState\(epoch={_INT}, {_LEADER_ID}, votedKey="),
    StateForm("voted", "VotedState", "2.8.0", "3.7.2", rf"Voted\(epoch={_INT}, votedId=\d+, voters="),
    StateForm("voted_key", "VotedState", "3.8.0", "3.8.1", rf"Voted\(epoch={_INT}, votedKey="),
    StateForm("candidate_28", "CandidateState", "2.8.0", "2.8.2",
              rf"Candidate\(localId=\d+, epoch={_INT}, retries=\d+, electionTimeoutMs="),
    StateForm("candidate", "CandidateState", "3.0.0", "3.4.1",
              rf"CandidateState\(localId=\d+, epoch={_INT}, retries=\d+, electionTimeoutMs="),
    StateForm("candidate_vote_states", "CandidateState", "3.5.0", "3.7.2",
              rf"CandidateState\(localId=\d+, epoch={_INT}, retries=\d+, voteStates="),
    # 3.8-3.9 print no space after the directory id's comma.
    StateForm("candidate_directory", "CandidateState", "3.8.0", "3.9.2",
              rf"CandidateState\(localId=\d+, localDirectoryId=[^,]*,epoch={_INT}, retries=\d+, voteStates="),
    StateForm("candidate_epoch_election", "CandidateState", "4.0.0", "4.0.2",
              rf"CandidateState\(localId=\d+, localDirectoryId=[^,]*, epoch={_INT}, retries=\d+, epochElection="),
    StateForm("candidate_no_retries", "CandidateState", "4.1.0", None,
              rf"CandidateState\(localId=\d+, localDirectoryId=[^,]*, epoch={_INT}, epochElection="),
    # KIP-996's pre-vote (4.0..): a follower that lost its leader asks first, in the same epoch.
    StateForm("prospective", "ProspectiveState", "4.0.0", "4.0.2",
              rf"ProspectiveState\(epoch={_INT}, {_LEADER_ID}, retries=\d+, votedKey="),
    StateForm("prospective_no_retries", "ProspectiveState", "4.1.0", None,
              rf"ProspectiveState\(epoch={_INT}, {_LEADER_ID}, votedKey="),
)

# (keyword, how the line begins, first release, last release) of QuorumState's two lines.
_WORDINGS = (
    ("Completed", "Completed transition to ", "2.8.0", None),       # ' from {}' appended 3.6.0..
    ("Attempting", "Attempting durable transition to ", "3.9.0", None),
)


def _transition(m: re.Match, ctx: LineContext) -> list:
    """A state naming the epoch's leader is that epoch's controller; any other, no change."""
    leader = m.groupdict().get("leader")
    if leader is None:
        return []
    return [{"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": int(leader)}]


def _overlap(first_a: str, last_a: str | None, first_b: str, last_b: str | None) -> tuple[str, str | None] | None:
    """The releases two ranges share, as (first, last); None when they share none."""
    first = max(first_a, first_b, key=parse_version)
    lasts = [v for v in (last_a, last_b) if v is not None]
    last = min(lasts, key=parse_version) if lasts else None
    if last is not None and parse_version(last) < parse_version(first):
        return None
    return first, last


def _rows() -> tuple[MessagePattern, ...]:
    rows = []
    for keyword, opening, w_first, w_last in _WORDINGS:
        for form in STATE_FORMS:
            span = _overlap(w_first, w_last, form.first, form.last)
            if span is None:
                continue
            rows.append(row(f"kraft.raft.{keyword.lower()}.{form.name}",
                            f"{_QS} / {form.state_class}.toString @{span[0]}..{'@' + span[1] if span[1] else ''}",
                            span[0], span[1], keyword, opening + form.regex + r".*$", _transition))
    return tuple(rows)


PATTERNS: tuple[MessagePattern, ...] = _rows()
