"""The catalogue as a whole: no two rows of a dispatch bucket match the same fixture
message (a parser moves the row that matched last to the front of its bucket, which is
only safe if rows do not overlap), and every row names its source and releases."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.catalog import all_patterns, catalogue, keyword_of
from ingest.envelope import Record, assemble
from ingest.lines import alternation
from ingest.prefix import strip_prefix
from state_machine.eras import parse_version

HERE = Path(__file__).parent
_MESSAGE_LITERAL = re.compile(r'\[[A-Z].{5,}|[A-Za-z].{20,}', re.S)


def fixture_messages() -> set[str]:
    msgs = set()
    for p in (HERE / "fixtures").rglob("*"):
        if p.is_file() and p.suffix != ".md":
            msgs |= {r.message for r in assemble(enumerate(p.read_text().splitlines(), 1)) if isinstance(r, Record)}
    for p in HERE.glob("test_*.py"):   # the message literals of the per-module fixture tables
        msgs |= {v for v in _string_literals(p.read_text()) if _MESSAGE_LITERAL.fullmatch(v)}
    return msgs


def _string_literals(source: str):
    """Each string literal whole, as Python joins adjacent ones (a message split over lines); an
    f-string with its fields as written (`{TID}`), which the rows' `\\S+` and `.*` match."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.get_source_segment(source, v.value) + "}"
                          for v in node.values)


def test_rows_of_a_bucket_never_match_the_same_message():
    cat = catalogue()
    messages = fixture_messages()
    assert len(messages) > 500
    for msg in messages:
        _, body = strip_prefix(msg)
        hits = [p.name for p in cat.get(keyword_of(body), ()) if p.regex.match(body)]
        assert len(hits) <= 1, (msg, hits)


def test_every_row_names_its_source_and_releases():
    names = set()
    for p in all_patterns():
        assert p.name not in names, p.name
        names.add(p.name)
        assert p.source  # (an empty keyword: kafka-dump-log lines that begin with a space)
        first = parse_version(p.first)
        assert p.last is None or parse_version(p.last) >= first, p.name


def test_an_id_in_brackets_ending_the_first_word_is_keyed_as_a_number():
    # KRaft "enterControlledShutdown[3]: changing 5 partition(s)": one row for every broker id
    assert keyword_of("enterControlledShutdown[3]: changing 5 partition(s)") == "entercontrolledshutdown[%d]:"
    assert keyword_of("[RequestSendThread controllerId=1] Starting") == "[requestsendthread"
    assert keyword_of("[t,0] x") == "[t,0]"
    assert keyword_of("my.t-1-0 starts at Leader Epoch 0 from offset 0.") == "%tp"


def test_a_first_word_naming_an_argument_in_brackets_is_keyed_up_to_its_equals_sign():
    # KRaft raft events: "handleCommit[baseOffset=1234]: event unable to start processing ..."
    assert keyword_of("handleCommit[baseOffset=1234]: event failed") == "handlecommit[baseoffset="
    assert keyword_of("handleLoadSnapshot[snapshotId=OffsetAndEpoch(offset=2, epoch=1)]: x") == "handleloadsnapshot[snapshotid="
    assert keyword_of("ConfigResource(type=TOPIC, name='t') x") == "configresource(type=topic,"


def test_metadata_publishers_are_not_audited():
    from ingest.lines import audited

    assert not audited("org.apache.kafka.metadata.publisher.FeaturesPublisher")
    assert audited("org.apache.kafka.metadata.PartitionRegistration")
    assert audited("org.apache.kafka.controller.QuorumController")
    assert audited("kafka.controller.RequestSendThread")


def test_a_ratio_first_word_is_keyed_as_one():
    # 0.8-2.3 "2/3 replicas have caught up with the leader for partition ... being reassigned"
    assert keyword_of("2/3 replicas have caught up with the leader") == "%d/%d"
    assert keyword_of("12/120 replicas") == "%d/%d"
    assert keyword_of("2/x replicas") == "2/x"


def test_the_old_topic_deletion_thread_is_keyed_as_one():
    # 0.8-0.10 "[delete-topics-thread-N], ..." (ShutdownableThread's logIdent: the thread's name)
    assert keyword_of("[delete-topics-thread-1], Handling deletion for topics t") == "[delete-topics-thread]"
    assert keyword_of("[delete-topics-thread-120], Starting ") == "[delete-topics-thread]"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text("aAbB.-é", max_size=5), max_size=12), st.text("aAbB.-é", max_size=6))
def test_the_keywords_alternation_matches_exactly_the_keywords(words, text):
    """The other loggers' body regex (ingest.lines.other_logger_regexes) holds the catalogue's
    keywords as one alternation, their common beginnings factored out: it matches a text exactly
    when one of the words is that text, in any case where it is case-insensitive."""
    if not words:
        return
    for flags in (0, re.IGNORECASE):
        factored = re.compile(f"(?:{alternation(words)})", flags)
        for candidate in (text, *words, *(w[:-1] for w in words), *(w + "a" for w in words)):
            assert bool(factored.fullmatch(candidate)) == any(
                re.fullmatch(re.escape(w), candidate, flags) for w in words), (words, candidate)
