#!/usr/bin/env bash
# Long crash-loop runs: a real broker process is SIGKILLed at a random moment of every round and
# restarted on the same data directory and ports, under steady publishing (ack level QUORUM) and
# consuming by two groups and a universal subscriber, with delayed nacks, TTLs, cancels (pending and
# in flight) and keys reused after ack and after expiry; at the end it checks that no acked message
# was lost, delivered early, resurrected after its ack was durable or its key was stored again,
# delivered after its cancel or expiry, or given a reused id. Same logic as CrashLoopTest (5 rounds in CI),
# in io.futureq.reliability.CrashLoop. See docs/reliability.md.
#
# Usage: scripts/crash-loop.sh ROUNDS [DIR] [--rate N] [--seed S] [--launcher CMD]
#   ROUNDS          kill-and-restart rounds (about 5-15 s each)
#   DIR             work directory: broker.conf, data/, broker-N.log, crash-loop.journal,
#                   crash-loop.report, publishes.csv, deliveries.csv, disruptions.csv
#                   (default: a new directory under /tmp)
#   --rate N        messages published per second (default 100)
#   --seed S        seed for delays and kill moments (printed by every run)
#   --launcher CMD  command that runs the CLI, e.g. "$PWD/bin/futureq" (it builds target/ when
#                   stale); default: java on this build's class path, which is what bin/futureq execs
# Exit status: 0 if every guarantee held, 1 on a violation or failure, 2 on bad arguments.
# Build output goes to target-rel/ (or FUTUREQ_BUILD_DIR), never target/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
ROUNDS="$1"
shift
if [ $# -gt 0 ] && [[ "$1" != --* ]]; then
  DIR="$1"
  shift
else
  DIR="$(mktemp -d /tmp/futureq-crash-loop.XXXXXX)"
fi
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
BUILD="${FUTUREQ_BUILD_DIR:-$ROOT/target-rel}"
cd "$ROOT"
mvn -q -B -Dbuild.dir="$BUILD" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$BUILD/test.classpath" -Dmdep.includeScope=test
CP="$BUILD/test-classes:$BUILD/classes:$(cat "$BUILD/test.classpath")"
echo "crash loop: $ROUNDS rounds in $DIR" >&2
exec java -Xmx1g -cp "$CP" io.futureq.reliability.CrashLoop "$ROUNDS" "$DIR" "$@"
