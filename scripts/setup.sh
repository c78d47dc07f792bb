#!/usr/bin/env bash
# Idempotent project setup: .venv with the pinned deps, Delta jars in .cache/jars.
# Each step is keyed on a hash of its input file, so a re-run with nothing
# changed does no network I/O and takes about a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
# Always the repo cache (never $CONTROLLER_REPLAY_JARS): this script rm -rf's it.
JARS="$ROOT/.cache/jars"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

log() { echo "[setup] $*"; }
hash_of() { sha256sum "$1" | cut -d' ' -f1; }

# --- Python venv -------------------------------------------------------------
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  for c in python3.11 python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      PY="$c"; break
    fi
  done
fi
[[ -n "$PY" ]] || { echo "[setup] error: Python 3.11 not found (set PYTHON=...)" >&2; exit 1; }

# A venv whose interpreter vanished (e.g. pyenv version removed) is rebuilt.
if ! "$VENV/bin/python" -c '' 2>/dev/null; then
  log "creating .venv with $("$PY" --version)"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
fi

PIP_STAMP="$VENV/.controller-replay-installed"
# Also keyed on the one compiled part (setup.py builds ingest/_line_scan.c in place): a change to
# it is built again.
want="$(cat pyproject.toml setup.py ingest/_line_scan.c | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$PIP_STAMP" 2>/dev/null)" != "$want" ]]; then
  command -v cc >/dev/null || { echo "[setup] error: no C compiler (cc) on PATH; ingest/_line_scan.c needs one" >&2; exit 1; }
  log "installing Python deps (pip install -e '.[test]'; first time builds pyspark, ~1-2 min)"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e '.[test]'
  echo "$want" > "$PIP_STAMP"
else
  log "Python deps up to date"
fi

# --- Delta jars --------------------------------------------------------------
command -v java >/dev/null || { echo "[setup] error: java (17+) not on PATH; Spark needs it" >&2; exit 1; }

JAR_STAMP="$JARS/.stamp"
want="$(hash_of jars/pom.xml)"
if [[ "$(cat "$JAR_STAMP" 2>/dev/null)" != "$want" ]] || ! compgen -G "$JARS/delta-spark_*.jar" >/dev/null; then
  command -v mvn >/dev/null || { echo "[setup] error: mvn not on PATH; needed once to fetch Delta jars" >&2; exit 1; }
  log "fetching Delta jars into ${JARS#"$ROOT"/}"
  # Fetch into a temp dir and swap, so an interrupted run never leaves a
  # half-filled cache that later looks complete.
  mkdir -p "$(dirname "$JARS")"
  tmp="$JARS.tmp.$$"
  rm -rf "$tmp"
  trap 'rm -rf "$tmp" "$tmp.log"' EXIT
  # Maven's log only matters when it fails.
  if ! mvn -B -f jars/pom.xml dependency:copy-dependencies -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
    tail -n 40 "$tmp.log" >&2; rm -f "$tmp.log"; exit 1
  fi
  rm -f "$tmp.log"
  echo "$want" > "$tmp/.stamp"
  rm -rf "$JARS"
  mv "$tmp" "$JARS"
  trap - EXIT
  log "jars: $(cd "$JARS" && ls -- *.jar | tr '\n' ' ')"
else
  log "Delta jars up to date"
fi
# --- Chromium, for the report's browser test (BROWSER_TESTS=1; .ci/run sets it) ----------
if [[ "${BROWSER_TESTS:-}" == 1 ]] && ! [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
  command -v apt-get >/dev/null || { echo "[setup] error: BROWSER_TESTS=1 needs Debian's chromium and chromium-driver (apt-get)" >&2; exit 1; }
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  log "installing chromium and chromium-driver (apt-get)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
log "done"
