#!/usr/bin/env bash
# Measures the heap one pending message costs (io.futureq.bench.HeapPerPendingMessage): an
# in-process broker, N messages due in an hour, used heap after a full GC before and after.
# Usage: scripts/heap-per-message.sh [memory|rocksdb] [messages] [payload bytes] [keyed]
#   e.g. scripts/heap-per-message.sh memory 200000 100 keyed
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
mvn -q -B -o -Dbuild.dir="$ROOT/target-heap" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/target-heap/test.classpath" -Dmdep.includeScope=test
CP="$ROOT/target-heap/test-classes:$ROOT/target-heap/classes:$(cat "$ROOT/target-heap/test.classpath")"
exec java -Xmx2g -XX:+UseG1GC -cp "$CP" io.futureq.bench.HeapPerPendingMessage "${1:-memory}" "${2:-200000}" \
  "${3:-100}" "${4:-}"
