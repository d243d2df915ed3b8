#!/usr/bin/env bash
# The gRPC stack's floor (issue 29): what Pekko gRPC's bidi streams cost per frame with nothing of FutureQ behind
# them. For each variant, starts a server JVM (io.futureq.bench.GrpcFloorServer: the generated Consumer service bound
# as the broker binds its API, JAVA_OPTS=-Xmx2g) and a client JVM (io.futureq.bench.GrpcFloorClient: grpc-java, two
# streams on one channel, 10 one-ack frames in flight on each, one sent per delivery back: the shape of
# `consumer-bench.sh DIR 1 ack-each10`), runs a warm-up of WARMUP round trips and RUNS runs of COUNT, and prints per
# run the server's CPU and context switches per round trip and the round trips per second. Logs under DIR.
#
# Usage: [COUNT=200000] [WARMUP=200000] [RUNS=3] [IN_FLIGHT=10] scripts/grpc-floor-bench.sh DIR [VARIANT...]
#   VARIANT  MODE[-2t][-io][/BATCH]: MODE echo (the stack alone), actor (one actor hop per frame, as
#            ConsumerService's session), group (session and a shared group actor: three hops); -2t: the server's
#            default dispatcher at 2 threads (Pekko's default is 8 on this 2-core box); -io: Pekko's TCP connection
#            actors on the default dispatcher (pekko.io.tcp.worker-dispatcher; Pekko runs them on its internal
#            dispatcher, a pool of its own); /BATCH: one reply frame of BATCH deliveries per BATCH frames in (the
#            broker refills credit 10 at half: about 5 deliveries per frame). Default: echo echo-2t actor actor-2t
#            group group-2t echo/5 echo-2t/5 group/5 group-2t/5 echo-2t-io group-2t-io/5
# Run it alone on the machine (under the machine lock). Ports 28443 and up.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
shift
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] ||
  VARIANTS=(echo echo-2t actor actor-2t group group-2t echo/5 echo-2t/5 group/5 group-2t/5 echo-2t-io group-2t-io/5)
COUNT="${COUNT:-200000}" WARMUP="${WARMUP:-200000}" RUNS="${RUNS:-3}" IN_FLIGHT="${IN_FLIGHT:-10}"
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$ROOT"
mvn -q -B -o -Dbuild.dir="$ROOT/target-floor" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/target-floor/test.classpath" -Dmdep.includeScope=test
CP="$ROOT/target-floor/test-classes:$ROOT/target-floor/classes:$(cat "$ROOT/target-floor/test.classpath")"
TWO_THREADS="-Dpekko.actor.default-dispatcher.fork-join-executor.parallelism-min=2
  -Dpekko.actor.default-dispatcher.fork-join-executor.parallelism-max=2"
echo "$(nproc) cores, $(java -version 2>&1 | head -1), $(uptime)"
port=28443
for variant in "${VARIANTS[@]}"; do
  name="${variant%%/*}" batch=1
  [ "$name" = "$variant" ] || batch="${variant#*/}"
  mode="${name%%-*}" opts=""
  case "$name" in *-2t*) opts="$opts $TWO_THREADS" ;; esac
  case "$name" in *-io*) opts="$opts -Dpekko.io.tcp.worker-dispatcher=pekko.actor.default-dispatcher" ;; esac
  log="$DIR/server-${variant//\//-}.log"
  # shellcheck disable=SC2086
  java -Xmx2g $opts -cp "$CP" io.futureq.bench.GrpcFloorServer "$port" "$mode" "$batch" >"$log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do
    grep -q '^ready' "$log" && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.2
  done
  grep -q '^ready' "$log" || { echo "server $variant did not start, see $log" >&2; kill "$server" || true; exit 1; }
  echo "$variant: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp "$CP" io.futureq.bench.GrpcFloorClient "127.0.0.1:$port" "$server" 2 "$IN_FLIGHT" "$COUNT" \
    "$WARMUP" "$RUNS" "$variant" 2>>"$DIR/client.err" | tee -a "$DIR/runs.txt"
  kill "$server"
  wait "$server" 2>/dev/null || true
  port=$((port + 1))
done
