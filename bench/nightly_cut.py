"""Measurement: how close a night's replay comes to the whole history's, with and without the
state carried from the night before (not a speed benchmark: a count of violations).

Generates cluster histories (faults injected), cuts each at its middle (at a change of event
time, as a night ends), replays the first half, and replays the second half twice: behind the
first half's carried state (state_machine.carried, what the nightly audit does) and from its own
events alone (the first night of an audited cluster). Prints, for each, the violations of the
second half that the whole history's replay does not report and those it misses.

    .venv/bin/python bench/nightly_cut.py --seeds 100
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from state_machine.carried import carried_cluster  # noqa: E402
from state_machine.cluster import replay_cluster  # noqa: E402
from state_machine.eras import resolve_era  # noqa: E402
from state_machine.generator import FAULTS, SimConfig, simulate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--era", default="2.4")
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--levels", default="trace,info")
    args = ap.parse_args()
    era = resolve_era(args.era)
    whole_n = 0
    extra, missed = Counter(), Counter()
    extra_rules: dict[str, Counter] = {"carried": Counter(), "alone": Counter()}
    histories = 0
    for seed in range(args.seeds):
        for level in args.levels.split(","):
            events, _ = simulate(SimConfig(cluster="c", era=args.era, seed=seed, steps=args.steps, brokers=4, topics=2,
                                           partitions=2, faults={f: 1 for f in FAULTS}, fault_rate=0.3, log_level=level))
            cut = len(events) // 2
            while cut < len(events) and events[cut].event_time_ms == events[cut - 1].event_time_ms:
                cut += 1
            if cut >= len(events):
                continue
            histories += 1
            first = events[cut].seq

            def found(results) -> set:
                return {(key, v.rule, v.seq) for key, r in results.items() for v in r.violations if v.seq >= first}

            whole = found(replay_cluster("c", events, era))
            whole_n += len(whole)
            carried = carried_cluster("c", replay_cluster("c", events[:cut], era), events[cut].event_time_ms,
                                      events[:cut])
            for name, second in (("carried", carried + events[cut:]), ("alone", events[cut:])):
                got = found(replay_cluster("c", second, era))
                extra[name] += len(got - whole)
                missed[name] += len(whole - got)
                extra_rules[name].update(rule for _, rule, _ in got - whole)
    print(f"{histories} histories (era {args.era}, seeds 0-{args.seeds - 1}, {args.levels}), cut at the middle: "
          f"the whole history's replay finds {whole_n:,} violations in the second halves")
    for name, how in (("carried", "behind the first half's carried state"), ("alone", "from its own events alone")):
        print(f"  second half {how}: {extra[name]:,} more, {missed[name]:,} missed; the more by rule: "
              f"{dict(extra_rules[name].most_common())}")


if __name__ == "__main__":
    main()
