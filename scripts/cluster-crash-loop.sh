#!/usr/bin/env bash
# Long cluster crash-loop runs: three real broker processes in cluster mode; every round a random
# node (leader or follower) is SIGKILLed and restarted on its data directories, or SIGSTOPped and
# continued 1.5-4 s later, at a random moment under QUORUM publishes and acking consumers (two
# groups and a universal subscriber; nacks, TTLs, cancels, key reuse). At the end it checks that
# nothing acked was lost, early or resurrected, and that the three replicas' stores are identical
# (frozen together once caught up, digested read-only, then stopped with SIGTERM: each must exit 0).
# Same logic as ClusterCrashLoopTest (3 rounds in CI), in io.futureq.reliability.ClusterCrashLoop.
# See docs/reliability.md.
#
# Usage: scripts/cluster-crash-loop.sh ROUNDS [DIR] [--rate N] [--seed S] [--nodes N]
#   ROUNDS    disruption rounds (5-10 s each with SIGSTOP, up to a minute with SIGKILL on a busy machine)
#   DIR       work directory: node-N.conf, node-N/{store,raft}, node-N-I.log, cluster-crash-loop.journal,
#             cluster-crash-loop.report, publishes.csv, deliveries.csv, disruptions.csv
#             (default: a new directory under /tmp)
#   --rate N  messages published per second (default 50)
#   --nodes N nodes (default 3, each holding every log shard); with more, each shard lives on three of them
#             (futureq.cluster.replication-factor), requests about the others' shards are relayed, and the replicas
#             of each shard are compared among the nodes holding it
#   --seed S  seed for the workload, the victims, the actions and their moments (printed by every run)
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
  DIR="$(mktemp -d /tmp/futureq-cluster-crash-loop.XXXXXX)"
fi
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
BUILD="${FUTUREQ_BUILD_DIR:-$ROOT/target-rel}"
cd "$ROOT"
mvn -q -B -Dbuild.dir="$BUILD" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$BUILD/test.classpath" -Dmdep.includeScope=test
CP="$BUILD/test-classes:$BUILD/classes:$(cat "$BUILD/test.classpath")"
echo "cluster crash loop: $ROUNDS rounds in $DIR" >&2
exec java -Xmx1g -cp "$CP" io.futureq.reliability.ClusterCrashLoop "$ROUNDS" "$DIR" "$@"
