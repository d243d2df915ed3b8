#!/usr/bin/env bash
# Failover as clients see it: three real broker processes on this machine, a producer per node
# publishing due-now messages every 20 ms (QUORUM) and a consumer of every topic; the Raft leader and
# a follower are killed with SIGKILL in turn, each restarted before the next kill. Prints every kill's
# stages (Raft leader elected, publishes acknowledged again through each survivor, the dead node's
# producer moved on, the member marked down, the dead node's topics delivering again) and then p50 /
# p99 / max per stage. Same logic as ClusterProcessE2ETest, in io.futureq.cluster.FailoverBench.
#
# Usage: scripts/failover-bench.sh KILLS [DIR] [HOCON-LINE...]
#   KILLS        kills (about 10-30 s each)
#   DIR          work directory: node-N.conf, node-N/ data, node-N[-start].log (default: under /tmp)
#   HOCON-LINE   settings added to every node, e.g. 'pekko.cluster.split-brain-resolver.stable-after = 5s'
# Exit status: 0 if nothing acknowledged was lost, 1 otherwise, 2 on bad arguments.
# Build output goes to target-rel/ (or FUTUREQ_BUILD_DIR), never target/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
KILLS="$1"
shift
DIR="${1:-$(mktemp -d /tmp/futureq-failover.XXXXXX)}"
[ $# -gt 0 ] && shift
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
BUILD="${FUTUREQ_BUILD_DIR:-$ROOT/target-rel}"
cd "$ROOT"
mvn -q -B -Dbuild.dir="$BUILD" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$BUILD/test.classpath" -Dmdep.includeScope=test
CP="$BUILD/test-classes:$BUILD/classes:$(cat "$BUILD/test.classpath")"
echo "failover bench: $KILLS kills in $DIR" >&2
exec java -Xmx1g -cp "$CP" io.futureq.cluster.FailoverBench "$KILLS" "$DIR" "$@"
