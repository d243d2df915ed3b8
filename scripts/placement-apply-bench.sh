#!/usr/bin/env bash
# How the writes spread when each log shard lives on fewer nodes than the cluster has: starts five nodes on this
# machine (5 log shards, futureq.cluster.replication-factor = 3; JAVA_OPTS=-Xmx512m each, configs and data under
# DIR), waits until each answers /ready, publishes MESSAGES messages to each shard's topic (one `bin/futureq bench
# --publish-only` per topic, through nodes 1-5 in turn, side by side), then reads each node's
# futureq_log_applied_messages_total (by shard) from its metrics endpoint and prints, per node, the shards it
# applied and its share of all messages published (3/5 expected), then stops the nodes. Also prints each shard's
# leader (`bin/futureq cluster`) and the CPU time each node spent publishing.
#
# Usage: scripts/placement-apply-bench.sh DIR [MESSAGES]
#   DIR        work directory (wiped first)
#   MESSAGES   messages per topic (default 20000)
# With ROUNDS="leaders node-1 ..." it publishes once per word, on the same cluster: "leaders" sends each topic
# through the node preferred to lead its shard (the default, one round), "node-N" sends every topic through node N
# (which holds three shards, leads one, and relays the other two's requests to their holders); after each round it
# prints the rate and the CPU all five nodes spent per message in it. The applied counters are read after the last.
# Run it alone on the machine: five nodes on two cores are slow, and anything beside them distorts the CPU figures.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
MESSAGES="${2:-20000}"
NODES=5
SHARDS=5
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
"$ROOT/bin/futureq" --help >/dev/null # builds once, before the nodes start
contacts=""
peers=""
for i in $(seq 1 $NODES); do
  contacts="$contacts${contacts:+, }\"127.0.0.1:$((8557 + i))\""
  peers="$peers      node-$i = \"127.0.0.1:$((50004 + i))\"
"
done
for i in $(seq 1 $NODES); do
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
      required-contact-points = $NODES
    }
  }
  raft {
    storage-dir = "$DIR/data/node-$i/raft"
    peers {
$peers    }
  }
}
CONF
done
PIDS=()
stop() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT
for i in $(seq 1 $NODES); do
  (cd "$DIR" && export JAVA_OPTS=-Xmx512m && exec "$ROOT/bin/futureq" server --config "$DIR/node-$i.conf" \
    >"$DIR/node-$i.log" 2>&1) &
  PIDS+=($!)
done
for i in $(seq 1 $NODES); do
  port=$((8557 + i))
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/ready" >/dev/null && break
    sleep 1
  done
  curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { echo "node-$i (management port $port) not ready" >&2; exit 1; }
done
"$ROOT/bin/futureq" cluster --server 127.0.0.1:8443 2>/dev/null | sed -n '/log shards/,$p' || true
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ="$(getconf CLK_TCK)"
declare -A before
for i in $(seq 1 $NODES); do before[$i]="$(cpu "${PIDS[$((i - 1))]}")"; done
# Topic i in log shard i (scripts/topic-in-shard.py).
topic_in() { python3 "$ROOT/scripts/topic-in-shard.py" "$1" "$2" "$3"; }
nodes_cpu() {
  local ticks=0 pid
  for pid in "${PIDS[@]}"; do ticks=$((ticks + $(cpu "$pid"))); done
  echo "$ticks"
}
total=0
round=0
for entry in ${ROUNDS:-leaders}; do
  round=$((round + 1))
  echo "round $round ($entry), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  start="$(nodes_cpu)"
  BENCHES=()
  for s in $(seq 0 $((SHARDS - 1))); do
    if [ "$entry" = leaders ]; then via=$((s % NODES + 1)); else via="${entry#node-}"; fi
    "$ROOT/bin/futureq" bench --server "127.0.0.1:$((8442 + via))" --publish-only --json --warmup 0 \
      --messages "$MESSAGES" --topic "$(topic_in "$s" $SHARDS "placed-r$round-")" >"$DIR/bench-$round-$s.json" &
    BENCHES+=($!)
  done
  wait "${BENCHES[@]}"
  cat "$DIR"/bench-"$round"-*.json
  published="$(cat "$DIR"/bench-"$round"-*.json | grep -o '"published":[0-9]*' | cut -d: -f2 | paste -sd+ | bc)"
  rate="$(cat "$DIR"/bench-"$round"-*.json | grep -o '"publish_msgs_per_s":[0-9.]*' | cut -d: -f2 | paste -sd+ | bc)"
  awk -v t="$(( $(nodes_cpu) - start ))" -v hz="$HZ" -v n="$published" -v r="$rate" -v e="$entry" 'BEGIN {
    printf "round through %s: %d published, %.0f msg/s together; nodes %.1f s cpu, %.1f us per message\n",
      e, n, r, t / hz, (n > 0 ? t / hz * 1e6 / n : 0) }' >&2
  total=$((total + published))
done
echo "published $total messages in $round rounds, each to $SHARDS topics (one per shard)"
sleep 6 # the metrics endpoint shows the counters as of the last kamon.metric.tick-interval (5 s)
for i in $(seq 1 $NODES); do
  scrape="$(curl -fs "http://127.0.0.1:$((9090 + i))/metrics" | grep '^futureq_log_applied_messages_total' || true)"
  applied="$(echo "$scrape" | awk '{s += $NF} END {printf "%d", s}')"
  shards="$(echo "$scrape" | awk '$NF > 0' | { grep -o 'shard="[0-9]*"' || true; } | cut -d'"' -f2 | sort -n \
    | paste -sd, -)"
  awk -v i="$i" -v a="$applied" -v t="$total" -v s="$shards" -v c="$(( $(cpu "${PIDS[$((i - 1))]}") - before[$i] ))" \
    -v hz="$HZ" 'BEGIN { printf "node-%d applied %d messages (%.3f of those published), shards %s; cpu %.1f s\n",
      i, a, (t > 0 ? a / t : 0), s, c / hz }'
done
