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
