"""Era detection from what the lines say (ingest.detect)."""
from ingest.detect import apache_release, choose_era
from state_machine.eras import resolve_era

SHAPES_2_X = [("0.11.0.0", "2.5.1", 3), ("2.4.0", None, 5)]


def test_an_apache_banner_names_the_release():
    choice = choose_era(SHAPES_2_X, ["2.4.1"])
    assert (choice.era, choice.conflicting) == ("2.4.1", False)


def test_a_confluent_platform_banner_names_the_kafka_line_it_ships():
    # CP 5.3 ships Kafka 2.3 and CP 7.3 ships Kafka 3.3: ZooKeeper-mode brokers, not KRaft (4.x).
    assert apache_release("5.3.2-ce") == "2.3"
    assert apache_release("7.3.5-ccs") == "3.3"
    choice = choose_era(SHAPES_2_X, ["5.3.2-ce"])
    assert choice.era == "2.3" and resolve_era(choice.era).mode == "zk"
    assert "Confluent Platform: Apache Kafka 2.3" in choice.fits and not choice.conflicting


def test_a_rolling_upgrade_between_confluent_lines_is_conflicting_and_takes_the_latest():
    choice = choose_era(SHAPES_2_X, ["5.3.2-ce", "5.4.1-ccs", "5.3.2-ce"])
    assert (choice.era, choice.conflicting) == ("2.4", True)


def test_a_confluent_line_not_in_the_table_leaves_the_decision_to_the_line_shapes():
    assert apache_release("9.9.0-ccs") is None
    choice = choose_era(SHAPES_2_X, ["9.9.0-ccs"])
    assert choice.fits.startswith("line shapes of 2.4.0..2.5.1")


# ------------------------------------------------------------------ KRaft

def test_metadata_version_levels_name_the_release_that_introduced_them():
    """server-common MetadataVersion.java (3.9.1, 4.3.1 sources jars): 3.0-IV1 is level 1, 3.9-IV0 21."""
    from ingest.detect import metadata_version_release
    assert [metadata_version_release(n) for n in (0, 1, 7, 8, 19, 20, 21, 25, 30, 99)] == \
        [None, "3.0", "3.3", "3.4", "3.7", "3.8", "3.9", "4.0", "4.3", "4.4"]


def test_a_dump_alone_is_the_newest_kraft_said_to_be_ambiguous():
    choice = choose_era([("3.3.0", None, 9)], kraft=True)   # the dump tool's shapes: not the cluster's release
    assert (choice.era, choice.ambiguous, choice.conflicting) == ("kraft", True, False)
    assert "pin with --kafka-version" in choice.explain()


def test_kraft_controller_lines_of_3_x_pick_the_release_that_ignores_the_unclean_config():
    choice = choose_era([], kraft=True, kraft_ranges=[("3.0.0", None, 4), ("3.0.0", "3.5.2", 2), ("3.3.0", None, 1)])
    assert (choice.era, choice.low, choice.high, choice.ambiguous) == ("kraft-3.5.2", "3.3.0", "3.5.2", False)
    assert resolve_era(choice.era).unclean_gate == "admin_only"


def test_a_metadata_version_of_3_9_or_later_means_the_unclean_config_is_read():
    choice = choose_era([], kraft=True, metadata_levels=[7, 21])
    assert (choice.era, choice.ambiguous, choice.low) == ("kraft", False, "3.9.0")
    assert "metadata.version level 21 (3.9+)" in choice.fits
    assert resolve_era(choice.era).unclean_gate == "topic_config"
    # an older level leaves both behaviours possible
    assert choose_era([], kraft=True, metadata_levels=[9]).ambiguous


def test_kraft_lines_older_than_the_metadata_version_conflict():
    choice = choose_era([], kraft=True, kraft_ranges=[("3.0.0", "3.5.2", 1)], metadata_levels=[21])
    assert choice.conflicting and choice.era == "kraft-3.9.0"


def test_a_kraft_banner_names_the_kraft_release():
    assert choose_era([], ["3.6.1"], kraft=True).era == "kraft-3.6.1"
    assert resolve_era(choose_era([], ["3.6.1"], kraft=True).era).mode == "kraft"
    assert choose_era([], ["8.0.0-ccs"], kraft=True).era == "kraft-4.0"   # CP 8.0 ships Kafka 4.0
    assert choose_era([], ["2.1.1"], kraft=True).era == "kraft"           # older than KRaft: not this cluster's
