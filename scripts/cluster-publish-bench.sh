#!/usr/bin/env bash
# Publish rate through the three-node cluster of conf/cluster-node{1,2,3}.conf on this machine: starts the
# three nodes (JAVA_OPTS=-Xmx768m each, data under DIR/data), waits until each answers /ready, runs
# `bin/futureq bench --publish-only --json` RUNS times through node 1 (a Raft follower or the leader, as the
# election fell: the Raft leader is printed), prints each run's JSON line, then stops the nodes. After each run
# it prints (to standard error) the CPU time the three nodes spent during it, per published message (the bench's
# warm-up of 20,000 messages included, so it overstates a little).
#
# Usage: scripts/cluster-publish-bench.sh RUNS DIR [BENCH-FLAG...]
#   RUNS         bench runs, one after the other on the same cluster
#   DIR          work directory for the nodes' data and logs (node-N.log); wiped first
#   BENCH-FLAG   extra flags for `bin/futureq bench` (default shape: 200,000 messages, QUORUM)
# With JFR=1 each node records a flight recording (profile settings) to DIR/node-N.jfr.
# With SHARDS=N the nodes run with futureq.cluster.log-shards = N (default: the configs' own, 3). With TOPICS=N each
# run is N bench processes side by side, one topic each, through nodes 1, 2, 3 in turn (default 1); with SHARDS > 1
# the topics are chosen so that topic i lies in log shard i modulo SHARDS. The run's line is then one JSON object
# per process, and the CPU line counts what they published together.
# Run it alone on the machine: a build or a test run beside it distorts the figures.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
RUNS="$1"
DIR="$2"
shift 2
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
"$ROOT/bin/futureq" --help >/dev/null # builds once, before the nodes start
PIDS=()
stop() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT
for i in 1 2 3; do
  OPTS=-Xmx768m
  [ "${JFR:-0}" = 1 ] && OPTS="$OPTS -XX:StartFlightRecording=filename=$DIR/node-$i.jfr,settings=profile,dumponexit=true"
  (cd "$DIR" && export JAVA_OPTS="$OPTS" && { [ -z "${SHARDS:-}" ] || export FUTUREQ_CLUSTER_LOG_SHARDS="$SHARDS"; } \
    && exec "$ROOT/bin/futureq" server --config "$ROOT/conf/cluster-node$i.conf" \
    >"$DIR/node-$i.log" 2>&1) &
  PIDS+=($!)
done
for port in 8558 8559 8560; do
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/ready" >/dev/null && break
    sleep 1
  done
  curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { echo "node on management port $port not ready" >&2; exit 1; }
done
"$ROOT/bin/futureq" cluster --server 127.0.0.1:8443 2>/dev/null | grep -i leader || true
# CPU seconds (user + system) of the three node processes, from /proc (the launcher execs java: same pids).
nodes_cpu() {
  local ticks=0 pid
  for pid in "${PIDS[@]}"; do
    ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$ticks"
}
HZ="$(getconf CLK_TCK)"
TOPICS="${TOPICS:-1}"
# Topic i in log shard i mod SHARDS (scripts/topic-in-shard.py).
topic_in() { python3 "$ROOT/scripts/topic-in-shard.py" "$1" "$2" "$3"; }
for run in $(seq 1 "$RUNS"); do
  echo "run $run, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  before="$(nodes_cpu)"
  if [ "$TOPICS" = 1 ]; then
    line="$("$ROOT/bin/futureq" bench --server 127.0.0.1:8443 --publish-only --json "$@")"
  else
    BENCHES=()
    for t in $(seq 0 $((TOPICS - 1))); do
      topic="$(topic_in $((t % ${SHARDS:-3})) "${SHARDS:-3}" "bench-r$run-t$t-")"
      "$ROOT/bin/futureq" bench --server "127.0.0.1:$((8443 + t % 3))" --publish-only --json --topic "$topic" "$@" \
        >"$DIR/bench-$run-$t.json" &
      BENCHES+=($!)
    done
    wait "${BENCHES[@]}"
    line="$(cat "$DIR"/bench-"$run"-*.json)"
  fi
  echo "$line"
  published="$(echo "$line" | grep -o '"published":[0-9]*' | cut -d: -f2 | paste -sd+ | bc)"
  awk -v t="$(( $(nodes_cpu) - before ))" -v hz="$HZ" -v n="${published:-0}" 'BEGIN {
    printf "run cpu: nodes %.1f s, %.1f us per published message\n", t / hz, (n > 0 ? t / hz * 1e6 / n : 0) }' >&2
done
