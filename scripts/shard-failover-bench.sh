#!/usr/bin/env bash
# Failover per log shard: three real broker processes with three log shards, each node leading one shard's
# group; one QUORUM publisher per shard through the two nodes that will survive; the node leading one shard is
# killed with SIGKILL, each kill another shard's leader, each restarted before the next. Prints, per kill, the
# slowest publish of the shards the victim did not lead (from 1 s before the kill to 5 s after) and when the
# victim's own shard answered again. Logic in io.futureq.cluster.ShardFailoverBench. See docs/benchmarks.md.
#
# Usage: scripts/shard-failover-bench.sh KILLS [DIR]
#   KILLS   kills (about 15-30 s each)
#   DIR     work directory: node-N.conf, node-N/ data, node-N[-start].log (default: under /tmp)
# Run it alone on the machine. Build output goes to target-rel/ (or FUTUREQ_BUILD_DIR), never target/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
KILLS="$1"
DIR="${2:-$(mktemp -d /tmp/futureq-shard-failover.XXXXXX)}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
BUILD="${FUTUREQ_BUILD_DIR:-$ROOT/target-rel}"
cd "$ROOT"
mvn -q -B -Dbuild.dir="$BUILD" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$BUILD/test.classpath" -Dmdep.includeScope=test
CP="$BUILD/test-classes:$BUILD/classes:$(cat "$BUILD/test.classpath")"
echo "shard failover bench: $KILLS kills in $DIR" >&2
exec java -Xmx1g -cp "$CP" io.futureq.cluster.ShardFailoverBench "$KILLS" "$DIR"
