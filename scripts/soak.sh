#!/usr/bin/env bash
# Soak: the crash loops and the partition test for longer than CI runs them. CI (mvn -B verify) runs
# CrashLoopTest (3 rounds), ClusterCrashLoopTest (2 rounds) and PartitionTest (one cut) with a fresh seed each
# time; this runs each for as long as asked, first replaying the seeds with which they once found a fault
# (docs/reliability.md, "What the loops caught"), then fresh seeds. A seed fixes the workload, the victims and
# the moments, not the machine's timing, so a replay makes the same kind of run likely, not the same run.
#
# Usage: scripts/soak.sh [ROUNDS] [DIR]
#   ROUNDS  rounds of each crash loop per run (default 20); the partition test runs ROUNDS / 5 times (at least 1)
#           with fresh seeds, besides its replays
#   DIR     work directory, one sub-directory per run (default: a new directory under /tmp)
# Runs alone: on 2 cores a build or another broker beside it makes rounds slow, not faults.
# Exit status: 0 if every run held every guarantee, 1 otherwise (the failed runs are listed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${1:-20}"
DIR="${2:-$(mktemp -d /tmp/futureq-soak.XXXXXX)}"
if ! [[ "$ROUNDS" =~ ^[0-9]+$ ]] || [ "$ROUNDS" -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
mkdir -p "$DIR"
# Seeds that found faults (or checker gaps) before; see docs/reliability.md.
STANDALONE_SEEDS=()
CLUSTER_SEEDS=(22982290006488 26776483127402 44986000950012 44688653752218)
PARTITION_SEEDS=(23441635331453 30016008570377 13006387691232 63957255404693)
failed=()

run() {
  local name="$1"
  shift
  echo "soak: $name" >&2
  if ! "$@" >"$DIR/$name.out" 2>&1; then
    failed+=("$name")
    echo "soak: $name FAILED (see $DIR/$name.out)" >&2
  fi
}

for seed in "${STANDALONE_SEEDS[@]}"; do
  run "crash-loop-seed-$seed" "$ROOT/scripts/crash-loop.sh" "$ROUNDS" "$DIR/crash-loop-seed-$seed" --seed "$seed"
done
run crash-loop "$ROOT/scripts/crash-loop.sh" "$ROUNDS" "$DIR/crash-loop"
for seed in "${CLUSTER_SEEDS[@]}"; do
  run "cluster-crash-loop-seed-$seed" "$ROOT/scripts/cluster-crash-loop.sh" "$ROUNDS" \
    "$DIR/cluster-crash-loop-seed-$seed" --seed "$seed"
done
run cluster-crash-loop "$ROOT/scripts/cluster-crash-loop.sh" "$ROUNDS" "$DIR/cluster-crash-loop"
partition() {
  # PartitionTest needs root and iproute2's ip; it skips, saying why, without them.
  run "$1" mvn -q -B -f "$ROOT/pom.xml" test -Dcheckstyle.skip -Dtest=PartitionTest \
    -Dsurefire.failIfNoSpecifiedTests=false -Dtest.forks=1 -Dbuild.dir="${FUTUREQ_BUILD_DIR:-$ROOT/target-rel}" \
    "${@:2}"
}
for seed in "${PARTITION_SEEDS[@]}"; do
  partition "partition-seed-$seed" -Dpartition.seed="$seed"
done
for i in $(seq 1 $(( ROUNDS / 5 > 0 ? ROUNDS / 5 : 1 ))); do
  partition "partition-$i"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "soak: FAILED: ${failed[*]} (work in $DIR)" >&2
  exit 1
fi
echo "soak: every run held (work in $DIR)" >&2
