#!/usr/bin/env bash
# How long adding a node takes where each log shard lives on fewer nodes than the cluster has (issue 31): starts four
# nodes on this machine (4 log shards, futureq.cluster.replication-factor = 3, so each node holds three; JAVA_OPTS=
# -Xmx512m each, configs and data under DIR), publishes MESSAGES messages to one topic per shard (one `bin/futureq
# bench --publish-only` per topic, side by side), starts a fifth node with futureq.raft.join on, and times `bin/futureq
# cluster join` of it (repeated while the node has not joined the cluster yet): replicas move to it until no node
# holds two more than another. Then prints the shards each node holds (its store directories), each topic's pending
# count through the new node, and the nodes' CPU during the join; stops the nodes.
# With LOAD=RATE, producers publish RATE messages a second in all (one `bench --publish-only --rate` per shard, to
# a topic of its own, through node-(shard+1)) for LOAD_SECONDS (default 40), once before the join (the baseline) and
# once from the join's start: each prints its rate, failures and send-to-ack latency (p50, p99, max).
# With KILL_AFTER=S, node-1 (the oldest member, which runs the change) is SIGKILLed S seconds into the join and
# restarted, and the join is asked again through node-2 (its figure is that second call's); the run then waits for
# node-1 to be ready and checks every topic as before.
#
# Usage: [LOAD=RATE [LOAD_SECONDS=S]] [KILL_AFTER=S] scripts/replica-move-bench.sh DIR [MESSAGES]
#   DIR        work directory (wiped first)
#   MESSAGES   messages per topic (default 50000), due in 1 hour: the shards' stores hold them while they move
# Run it alone on the machine: five nodes on two cores are slow, and anything beside them distorts the figures.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
MESSAGES="${2:-50000}"
FOUNDERS=4
SHARDS=4
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
"$ROOT/bin/futureq" --help >/dev/null # builds once, before the nodes start
contacts=""
peers=""
for i in $(seq 1 $FOUNDERS); do
  contacts="$contacts${contacts:+, }\"127.0.0.1:$((8557 + i))\""
  peers="$peers      node-$i = \"127.0.0.1:$((50004 + i))\"
"
done
for i in $(seq 1 $((FOUNDERS + 1))); do
  join=false
  self=""
  if [ "$i" -gt $FOUNDERS ]; then
    join=true
    self="      node-$i = \"127.0.0.1:$((50004 + i))\"
"
  fi
  cat >"$DIR/node-$i.conf" <<CONF
futureq {
  node-id = "node-$i"
  api.port = $((8442 + i))
  metrics.port = $((9090 + i))
  management.port = $((8557 + i))
  console.enabled = false
  storage.data-dir = "$DIR/data/node-$i/store"
  cluster {
    enabled = true
    log-shards = $SHARDS
    replication-factor = 3
    remoting.port = $((25520 + i))
    discovery {
      method = "config"
      contact-points = [$contacts]
      required-contact-points = $FOUNDERS
    }
  }
  raft {
    address = "127.0.0.1:$((50004 + i))"
    storage-dir = "$DIR/data/node-$i/raft"
    join = $join
    peers {
$peers$self    }
  }
}
CONF
done
PIDS=()
stop() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT
start_node() {
  (cd "$DIR" && export JAVA_OPTS=-Xmx512m && exec "$ROOT/bin/futureq" server --config "$DIR/node-$1.conf" \
    >"$DIR/node-$1.log" 2>&1) &
  PIDS+=($!)
}
await_ready() {
  local port=$((8557 + $1))
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/$2" >/dev/null && return 0
    sleep 1
  done
  echo "node-$1 (management port $port) not $2" >&2
  exit 1
}
for i in $(seq 1 $FOUNDERS); do start_node "$i"; done
for i in $(seq 1 $FOUNDERS); do await_ready "$i" ready; done
topic_in() { python3 "$ROOT/scripts/topic-in-shard.py" "$1" "$2" "$3"; }
echo "publishing $MESSAGES messages to each of $SHARDS topics, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
BENCHES=()
for s in $(seq 0 $((SHARDS - 1))); do
  "$ROOT/bin/futureq" bench --server "127.0.0.1:$((8443 + s % FOUNDERS))" --publish-only --json --warmup 0 \
    --messages "$MESSAGES" --delay-min 1h --delay-max 1h --topic "$(topic_in "$s" $SHARDS moved-)" \
    >"$DIR/bench-$s.json" &
  BENCHES+=($!)
done
wait "${BENCHES[@]}"
LOAD="${LOAD:-}"
LOAD_SECONDS="${LOAD_SECONDS:-40}"
LOADS=()
# Starts the publishing load in the background (LOADS: its benches' pids); labels its reports with $1.
start_load() {
  LOADS=()
  [ -n "$LOAD" ] || return 0
  local per=$((LOAD / SHARDS))
  for s in $(seq 0 $((SHARDS - 1))); do
    "$ROOT/bin/futureq" bench --server "127.0.0.1:$((8443 + s % FOUNDERS))" --publish-only --json --warmup 0 \
      --rate "$per" --messages $((per * LOAD_SECONDS)) --delay-min 1h --delay-max 1h \
      --topic "$(topic_in "$s" $SHARDS "load-$1-")" >"$DIR/load-$1-$s.json" 2>"$DIR/load-$1-$s.err" &
    LOADS+=($!)
  done
}
# Waits for the load's benches and prints what each saw.
report_load() {
  [ -n "$LOAD" ] || return 0
  wait "${LOADS[@]}" || true
  for s in $(seq 0 $((SHARDS - 1))); do
    python3 - "$DIR/load-$1-$s.json" "$1" "$s" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"load {sys.argv[2]}, shard {sys.argv[3]}: no report ({e})")
    sys.exit(0)
l = r["publish_latency_ms"] or {}
print(f"load {sys.argv[2]}, shard {sys.argv[3]}: {r['published']} acked, {r['publish_errors']} failed, "
      f"{r['publish_msgs_per_s']} msg/s; send to ack ms p50 {l.get('p50')} p99 {l.get('p99')} max {l.get('max')}")
PY
  done
}
if [ -n "$LOAD" ]; then
  echo "baseline: $LOAD msg/s for $LOAD_SECONDS s, no join, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  start_load quiet
  report_load quiet
fi
start_node $((FOUNDERS + 1))
await_ready $((FOUNDERS + 1)) alive
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ="$(getconf CLK_TCK)"
nodes_cpu() {
  local ticks=0 pid
  for pid in "${PIDS[@]}"; do ticks=$((ticks + $(cpu "$pid"))); done
  echo "$ticks"
}
echo "joining node-5, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start_load join
VIA=8443
if [ -n "${KILL_AFTER:-}" ]; then
  "$ROOT/bin/futureq" cluster join --server 127.0.0.1:8443 --node-id node-5 --raft-address 127.0.0.1:50009 \
    >"$DIR/join-killed.out" 2>&1 &
  asked=$!
  sleep "$KILL_AFTER"
  kill -9 "${PIDS[0]}"
  wait "$asked" || true
  echo "SIGKILL of node-1 $KILL_AFTER s into the join; the join answered: $(head -1 "$DIR/join-killed.out")" >&2
  mv "$DIR/node-1.log" "$DIR/node-1-killed.log"
  start_node 1
  PIDS[0]="${PIDS[-1]}"
  unset 'PIDS[-1]'
  await_ready 1 alive
  echo "node-1 restarted; /ready: $(curl -s http://127.0.0.1:8558/ready | tr '\n' ' ' | cut -c1-160)" >&2
  VIA=8444
fi
for _ in $(seq 1 60); do
  started="$(date +%s%N)"
  before="$(nodes_cpu)"
  if "$ROOT/bin/futureq" cluster join --server "127.0.0.1:$VIA" --node-id node-5 --raft-address 127.0.0.1:50009 \
      >"$DIR/join.out" 2>&1; then
    awk -v ns="$(( $(date +%s%N) - started ))" -v t="$(( $(nodes_cpu) - before ))" -v hz="$HZ" 'BEGIN {
      printf "cluster join of node-5 took %.1f s; the five nodes spent %.1f s of CPU meanwhile\n", ns / 1e9,
        t / hz }'
    cat "$DIR/join.out"
    break
  fi
  # Repeated while node-5 has not joined the cluster yet, and, after a kill, while the cluster settles.
  grep -q "call again once it has${KILL_AFTER:+\|UNAVAILABLE\|under way}" "$DIR/join.out" \
    || { cat "$DIR/join.out" >&2; exit 1; }
  sleep 1
done
report_load join
if [ -n "${KILL_AFTER:-}" ]; then
  await_ready 1 ready
  echo "node-1 ready"
fi
for i in $(seq 1 $((FOUNDERS + 1))); do
  held=""
  for s in $(seq 0 $((SHARDS - 1))); do
    if [ "$s" = 0 ]; then f="$DIR/data/node-$i/store/CURRENT"; else f="$DIR/data/node-$i/store/shard-$s/CURRENT"; fi
    [ -e "$f" ] && held="$held${held:+,}$s"
  done
  echo "node-$i holds shards $held ($(du -sh "$DIR/data/node-$i" | cut -f1) on disk)"
done
for s in $(seq 0 $((SHARDS - 1))); do
  topic="$(topic_in "$s" $SHARDS moved-)"
  echo "shard $s: $("$ROOT/bin/futureq" stats --server 127.0.0.1:8447 --topic "$topic" 2>&1 | grep -i pending | head -1)"
done
