#!/usr/bin/env bash
# Consumer shapes on one standalone broker (issue 29): starts `bin/futureq server` (JAVA_OPTS=-Xmx2g, ports
# 18443/19090/18558/25590/18088, data under DIR), runs one warm-up burst (figures discarded), then each shape once,
# in order, ROUNDS times, and prints one line per run: the load average at its start, the burst's drain, the broker's
# CPU per delivery during the drain (no publishing in it) and over the whole run (publish included), the client's,
# and the lateness at the client. The full JSON of each run goes to DIR/runs.jsonl. Stops the broker at the end.
#
# Usage: [BROKER_OPTS=JVM-FLAGS] scripts/consumer-bench.sh DIR [ROUNDS] [SHAPE...]
#   DIR     work directory (wiped first)
#   ROUNDS  times the list of shapes runs (default 1)
#   SHAPE   tuned, tuned-auto, defaults, defaults-auto, credit10, ack-each10, rate-defaults, rate-tuned
#           (default: all of them). Bursts are 200,000 messages of 100 B due 8 s after publishing starts, two
#           consumers in one group; rate-* are the bench's default shape (delays 1-5 s), for lateness.
# Run it alone on the machine (under the machine lock): a build or a test beside it distorts the figures.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
ROUNDS="${2:-1}"
shift $(( $# >= 2 ? 2 : 1 ))
SHAPES=("$@")
[ ${#SHAPES[@]} -gt 0 ] || SHAPES=(tuned tuned-auto defaults defaults-auto credit10 ack-each10 rate-defaults rate-tuned)
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
"$ROOT/bin/futureq" --help >/dev/null # builds once, before the broker starts
# A copy of that build for the whole sitting: an edit under src/ or conf/ meanwhile would make the launcher rebuild
# between runs and replace the jar under the running broker.
cp "$ROOT/target/futureq.jar" "$DIR/futureq.jar"
export FUTUREQ_CLASSPATH="$DIR/futureq.jar:$ROOT/target/lib/*"
export FUTUREQ_API_PORT=18443 FUTUREQ_METRICS_PORT=19090 FUTUREQ_MANAGEMENT_PORT=18558 \
  FUTUREQ_CLUSTER_REMOTING_PORT=25590 FUTUREQ_CONSOLE_PORT=18088 FUTUREQ_STORAGE_DATA_DIR="$DIR/data"
JAVA_OPTS="-Xmx2g ${BROKER_OPTS:-}" "$ROOT/bin/futureq" server >"$DIR/broker.log" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -fs http://127.0.0.1:18558/ready >/dev/null && break
  sleep 1
done
curl -fs http://127.0.0.1:18558/ready >/dev/null || { echo "broker not ready, see $DIR/broker.log" >&2; exit 1; }
flags() {
  case "$1" in
    tuned) echo "--burst --delay-min 8s --max-in-flight 2000 --manual-ack" ;;
    tuned-auto) echo "--burst --delay-min 8s --max-in-flight 2000" ;;
    defaults) echo "--burst --delay-min 8s --max-in-flight 0 --manual-ack" ;;
    defaults-auto) echo "--burst --delay-min 8s --max-in-flight 0" ;;
    credit10) echo "--burst --delay-min 8s --max-in-flight 10 --manual-ack" ;;
    ack-each10) echo "--burst --delay-min 8s --max-in-flight 10 --ack-each" ;;
    rate-defaults) echo "--max-in-flight 0" ;;
    rate-tuned) echo "--max-in-flight 2000" ;;
    *) echo "unknown shape $1" >&2; exit 2 ;;
  esac
}
run() {
  local shape="$1" load line
  load="$(cut -d' ' -f1 /proc/loadavg)"
  # shellcheck disable=SC2046
  line="$("$ROOT/bin/futureq" bench --server 127.0.0.1:18443 --broker-pid "$PID" --json $(flags "$shape") \
    2>>"$DIR/bench.err" || true)"
  echo "$line" >>"$DIR/runs.jsonl"
  python3 -c 'import json, sys
shape, load = sys.argv[1], sys.argv[2]
try:
    r = json.loads(sys.argv[3])
except ValueError:
    print("%-14s load %5s  failed: %r" % (shape, load, sys.argv[3]))
    sys.exit()
f = lambda k: "-" if r[k] is None else str(r[k])
print("%-14s load %5s  drain %6s ms  broker drain %5s us/msg  broker run %5s us/msg  client %5s us/msg"
      "  lateness p50/p99 %s/%s ms  missing %s  dup %s" % (shape, load, f("burst_drain_ms"),
      f("broker_drain_cpu_us_per_msg"), f("broker_cpu_us_per_msg"), f("client_cpu_us_per_msg"),
      r["lateness_ms"]["p50"], r["lateness_ms"]["p99"], r["missing"], r["duplicates"]))' "$shape" "$load" "$line"
}
echo "broker pid $PID, $(nproc) cores, $(uptime)"
run tuned >/dev/null # warm-up of the broker's JIT, discarded
for _ in $(seq 1 "$ROUNDS"); do
  for shape in "${SHAPES[@]}"; do
    run "$shape"
  done
done
