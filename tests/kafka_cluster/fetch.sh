#!/usr/bin/env bash
# Fetch the Kafka jars the real-cluster test bed runs, with Maven, one flat directory per
# version: $KAFKA_CACHE/<version>/*.jar (default .cache/kafka/<version>/), used as
# `java -cp '<dir>/*'`. Idempotent: a version whose directory carries a .stamp matching
# pom.xml is skipped (no network). An interrupted fetch never leaves a half-filled
# directory behind (fetched into a temp dir, then renamed), and two fetches of one version (two
# pytest-xdist workers) take turns: the second finds the first one's stamp.
#
#   tests/kafka_cluster/fetch.sh                 # the ten defaults
#   tests/kafka_cluster/fetch.sh 3.9.2           # one version
#   KAFKA_ZK_VERSION=3.9.1 tests/kafka_cluster/fetch.sh   # a default replaced (KAFKA_ZK08_VERSION, _ZK09_, _ZK010_, _ZK011_,
#                                                         # _ZK10_, _ZK24_, _ZK2_, _ZK_, KAFKA_KRAFT_VERSION, _KRAFT3_)
#
# Defaults: 0.8.2.2 (no listeners, no kafka-tools), 0.9.0.1 (the 0.8.2-0.10.1 forms; Scala 2.11),
# 0.10.2.2 (the controller before 0.11's event queue), 0.11.0.3 (the 0.x log formats), 1.0.2 (the
# controller before 1.1's rewrite), 2.4.1 (the 1.1-2.5 log formats), the last 2.x release (2.8.2),
# the latest 3.9 patch (last ZooKeeper-mode line), the last KRaft release before 3.9 (3.8.1: its
# controller reads no unclean.leader.election.enable) and the latest 4.x release whose artifacts are
# all on Maven Central. (On 2026-11-21 kafka_2.13 4.4.0 is on Central but kafka-tools 4.4.0 and
# kafka-tools-api 4.4.0, a dependency of kafka_2.13 itself, are not: 4.4.0 cannot be resolved
# yet, so 4.3.1.)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${KAFKA_CACHE:-$ROOT/.cache/kafka}"
ZK08_VERSION="${KAFKA_ZK08_VERSION:-0.8.2.2}"
ZK09_VERSION="${KAFKA_ZK09_VERSION:-0.9.0.1}"
ZK010_VERSION="${KAFKA_ZK010_VERSION:-0.10.2.2}"
ZK011_VERSION="${KAFKA_ZK011_VERSION:-0.11.0.3}"
ZK10_VERSION="${KAFKA_ZK10_VERSION:-1.0.2}"
ZK24_VERSION="${KAFKA_ZK24_VERSION:-2.4.1}"
ZK2_VERSION="${KAFKA_ZK2_VERSION:-2.8.2}"
ZK_VERSION="${KAFKA_ZK_VERSION:-3.9.2}"
KRAFT_VERSION="${KAFKA_KRAFT_VERSION:-4.3.1}"
KRAFT3_VERSION="${KAFKA_KRAFT3_VERSION:-3.8.1}"
KRAFT40_VERSION="${KAFKA_KRAFT40_VERSION:-4.0.2}"

log() { echo "[kafka-fetch] $*"; }

# 0.x-3.x log through log4j 1 (reload4j), 4.x through log4j2; 0.x also needs JAXB (gone from Java 11).
# kafka-tools (the tools profile) starts at 0.9.0.
profile_for() { case "$1" in 0.8.*) echo reload4j,jaxb ;; 0.*) echo reload4j,jaxb,tools ;; 1.*|2.*|3.*) echo reload4j,tools ;; *) echo log4j2,tools ;; esac; }
# The Scala build of core: 2.13 from 2.4.0, 2.12 from 0.10.2 (the newest each release was built for).
scala_for() { case "$1" in 0.8.*|0.9.*|0.10.0.*|0.10.1.*) echo 2.11 ;; 0.*|1.*|2.[0-3].*) echo 2.12 ;; *) echo 2.13 ;; esac; }

fetch() {
  local version="$1" dir="$CACHE/$1" profile scala want tmp t0
  profile="$(profile_for "$version")"
  scala="$(scala_for "$version")"
  want="$(sha256sum "$HERE/pom.xml" | cut -d' ' -f1) $profile $scala"
  # One fetch of a version at a time (pytest-xdist workers share the cache): a second fetch waits,
  # then finds the stamp the first wrote, instead of replacing the directory while the first
  # one's test reads its jars.
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.$version.lock"
  flock 9
  if [[ "$(cat "$dir/.stamp" 2>/dev/null)" == "$want" ]] && compgen -G "$dir/kafka_$scala-$version.jar" >/dev/null; then
    log "$version up to date in ${dir#"$ROOT"/}"
    exec 9>&-
    return
  fi
  command -v mvn >/dev/null || { echo "[kafka-fetch] error: mvn not on PATH" >&2; exit 1; }
  log "fetching Kafka $version (Scala $scala, profile $profile) into ${dir#"$ROOT"/}"
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  trap 'rm -rf "$tmp" "$tmp.log"' EXIT
  t0=$SECONDS
  # Maven's log only matters when it fails.
  if ! mvn -B -f "$HERE/pom.xml" dependency:copy-dependencies -Dkafka.version="$version" -Dscala.binary="$scala" -P"$profile" \
        -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
    tail -n 40 "$tmp.log" >&2; exit 1
  fi
  rm -f "$tmp.log"
  echo "$want" > "$tmp/.stamp"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  log "$version: $(ls "$dir"/*.jar | wc -l) jars, $(du -sh "$dir" | cut -f1), $((SECONDS - t0))s"
  exec 9>&-
}

if [[ $# -gt 0 ]]; then
  for v in "$@"; do fetch "$v"; done
else
  fetch "$ZK08_VERSION"
  fetch "$ZK09_VERSION"
  fetch "$ZK010_VERSION"
  fetch "$ZK011_VERSION"
  fetch "$ZK10_VERSION"
  fetch "$ZK24_VERSION"
  fetch "$ZK2_VERSION"
  fetch "$ZK_VERSION"
  fetch "$KRAFT_VERSION"
  fetch "$KRAFT3_VERSION"
  fetch "$KRAFT40_VERSION"
fi
