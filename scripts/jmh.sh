#!/usr/bin/env bash
# Runs the JMH micro-benchmarks (src/test/java/**/*Benchmark.java).
# Usage: scripts/jmh.sh [JMH options], e.g. scripts/jmh.sh -f 1 -wi 3 -i 5 StateMachine
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
mvn -q -B -Dbuild.dir="$ROOT/target-jmh" test-compile dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/target-jmh/test.classpath" -Dmdep.includeScope=test
CP="$ROOT/target-jmh/test-classes:$ROOT/target-jmh/classes:$(cat "$ROOT/target-jmh/test.classpath")"
exec java -cp "$CP" org.openjdk.jmh.Main "$@"
