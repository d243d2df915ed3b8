#!/usr/bin/env bash
# The publish shapes applications have (issue 46), on one standalone broker, with where its CPU goes per request.
# Starts a fresh broker from this checkout (bin/futureq server, JAVA_OPTS=-Xmx2g, data under DIR, API port 18443,
# management 18558), then runs `bin/futureq bench --publish-only --json --broker-pid PID` in this order:
#   fresh100  --batch 100 --publish-window 100: awaited requests (as --awaited; this form runs on older builds
#             too), 200,000 messages after the bench's own warm-up of 20,000
#   fresh1    --batch 1 --publish-window 1: one message per awaited request, 20,000
#   pipe1..3  the pipelined default (64 batches in flight per producer), 1,000,000 each: warms the broker
#   warm100   --batch 100 --publish-window 100 (300,000)
#   warm1     --batch 1 --publish-window 1 (30,000)
# Two producers throughout. For each run it prints the bench's figures and, from /proc/PID/task/*/{stat,status},
# the broker's CPU (user, system) and context switches per request by thread pool, over the whole bench process
# (its warm-up included). JSON and tables under DIR. Run it alone on the machine: anything else running distorts it.
#
# Usage: scripts/publish-shapes-bench.sh DIR
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -ne 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
"$ROOT/bin/futureq" --help >/dev/null # builds once, before the broker starts
FUTUREQ_API_PORT=18443 FUTUREQ_METRICS_PORT=19090 FUTUREQ_MANAGEMENT_PORT=18558 FUTUREQ_CLUSTER_REMOTING_PORT=25590 \
  FUTUREQ_STORAGE_DATA_DIR="$DIR/data" JAVA_OPTS=-Xmx2g "$ROOT/bin/futureq" server >"$DIR/broker.log" 2>&1 &
PID=$! # the launcher execs java: this is the broker
trap 'kill $PID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -fs http://127.0.0.1:18558/ready >/dev/null && break
  sleep 1
done
curl -fs http://127.0.0.1:18558/ready >/dev/null || { echo "broker not ready" >&2; exit 1; }
echo "$(nproc) cores, $(java -version 2>&1 | head -1), broker $PID, commit $(git -C "$ROOT" rev-parse --short HEAD)"

# Per thread: name, user ticks, system ticks, context switches (voluntary + not).
threads() {
  for t in /proc/"$PID"/task/*; do
    printf '%s\t%s\t%s\n' "$(cat "$t/comm")" "$(awk '{sub(/.*\) /, ""); print $12 "\t" $13}' "$t/stat")" \
      "$(awk '/ctxt_switches/ {s += $2} END {print s}' "$t/status")"
  done 2>/dev/null
}
run() {
  local name="$1" requests="$2"
  shift 2
  threads >"$DIR/$name.before"
  echo "== $name, load average $(cut -d' ' -f1 /proc/loadavg)"
  "$ROOT/bin/futureq" bench --server 127.0.0.1:18443 --publish-only --json --broker-pid "$PID" "$@" >"$DIR/$name.json"
  threads >"$DIR/$name.after"
  python3 - "$DIR/$name" "$requests" <<'PY'
import collections, json, re, sys
base, requests = sys.argv[1], int(sys.argv[2])
j = json.load(open(base + ".json"))
lat = j["publish_latency_ms"]
print(f"msg/s {j['publish_msgs_per_s']:,.0f}, broker {j['broker_cpu_us_per_msg']} us/msg "
      f"(JIT {j['broker_jit_cpu_us_per_msg']}), client {j['client_cpu_us_per_msg']} us/msg, "
      f"latency p50 {lat['p50']} / p99 {lat['p99']} ms")
def read(path):
    pools = collections.defaultdict(lambda: [0, 0, 0])
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 4 or not all(f.isdigit() for f in fields[1:]):
            continue  # a thread that ended while it was read
        name, user, system, switches = fields
        pool = pools[re.sub(r"-?\d+$", "", name)]
        pool[0] += int(user); pool[1] += int(system); pool[2] += int(switches)
    return pools
before, after = read(base + ".before"), read(base + ".after")
tick_us = 1e6 / 100  # USER_HZ
rows = []
for pool, (u, s, c) in after.items():
    u0, s0, c0 = before.get(pool, [0, 0, 0])
    rows.append((pool, (u - u0) * tick_us / requests, (s - s0) * tick_us / requests, (c - c0) / requests))
rows.sort(key=lambda r: -(r[1] + r[2]))
print(f"  {'threads':24s} {'user us/req':>11s} {'sys us/req':>10s} {'switches/req':>12s}")
for pool, u, s, c in rows:
    if u + s >= 0.5 or c >= 0.05:
        print(f"  {pool:24s} {u:11.1f} {s:10.1f} {c:12.2f}")
print(f"  {'all':24s} {sum(r[1] for r in rows):11.1f} {sum(r[2] for r in rows):10.1f} {sum(r[3] for r in rows):12.2f}")
PY
}
# Requests of each run, the bench's warm-up of 20,000 messages included (the thread figures cover it).
run fresh100 $(((200000 + 20000) / 100)) --publish-window 100 --producers 2 --batch 100 --messages 200000
run fresh1 $((20000 + 20000)) --publish-window 1 --producers 2 --batch 1 --messages 20000
for i in 1 2 3; do
  run "pipe$i" $((1000000 / 100)) --producers 2 --batch 100 --messages 1000000 --warmup 0
done
run warm100 $(((300000 + 20000) / 100)) --publish-window 100 --producers 2 --batch 100 --messages 300000
run warm1 $((30000 + 20000)) --publish-window 1 --producers 2 --batch 1 --messages 30000
