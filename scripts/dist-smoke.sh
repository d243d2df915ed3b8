#!/usr/bin/env bash
# Checks a release distribution as a newcomer would use it: unpacks TARBALL into a fresh directory, starts
# `bin/futureq server` from it with a Java runtime and no Maven (an `mvn` on PATH that fails if called), publishes
# a message and consumes it with the distribution's own CLI, then stops the broker. Also checks that every jar in
# lib/ is listed in licenses/THIRD-PARTY.md, that the public protos (proto/futureq/v1/) and examples/ are there,
# that man/man1/ has a page for every command of the CLI and, where a Python imports grpc and grpc_tools (PYTHON,
# else python3, else /usr/bin/python3), generates the Python stubs from the tarball's protos and publishes with its
# examples/python/producer.py. Run by `mvn verify` after the tarball is built; exits non-zero, saying what failed,
# otherwise.
#
# Usage: scripts/dist-smoke.sh TARBALL [API-PORT]
#   API-PORT   the broker's gRPC port (default 18443); the management, metrics and console ports follow it (+1..+3)
set -euo pipefail
TARBALL="$1"
PORT="${2:-18443}"
WORK="$(mktemp -d /tmp/futureq-dist.XXXXXX)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "dist-smoke: $*" >&2; [ -f "$WORK/server.log" ] && tail -20 "$WORK/server.log" >&2; exit 1; }

tar -xzf "$TARBALL" -C "$WORK"
DIST="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'futureq-*')"
[ -n "$DIST" ] || fail "no futureq-VERSION directory in $TARBALL"
for path in bin/futureq conf/futureq.conf lib/futureq.jar README.md licenses/THIRD-PARTY.md \
    examples/python/generate-stubs.sh examples/python/producer.py examples/python/consumer.py; do
  [ -e "$DIST/$path" ] || fail "$path missing from the distribution"
done
for script in bin/futureq examples/python/generate-stubs.sh examples/python/producer.py examples/python/consumer.py; do
  [ -x "$DIST/$script" ] || fail "$script is not executable"
done
# Every public proto of the source tree, and only those (not the storage encoding, futureq/internal).
SOURCE_PROTOS="$(cd "$(dirname "$0")/../src/main/protobuf" && ls futureq/v1/*.proto)"
SHIPPED_PROTOS="$(cd "$DIST/proto" 2>/dev/null && find . -name '*.proto' | sed 's|^\./||' | sort || true)"
[ -n "$SOURCE_PROTOS" ] || fail "no protos found in src/main/protobuf/futureq/v1"
[ "$SOURCE_PROTOS" = "$SHIPPED_PROTOS" ] \
  || fail "proto/ holds [$(echo $SHIPPED_PROTOS)], not the public protos [$(echo $SOURCE_PROTOS)]"
[ ! -e "$DIST/examples/python/futureq" ] || fail "examples/python/futureq (generated stubs) is in the distribution"
# The man pages: exactly one per command of the tarball's own CLI (futureq.1, futureq-publish.1,
# futureq-group-delete.1, ...), found by walking its --help; each is troff that names itself, and each parent's page
# names its subcommands. Where man(1) is installed, every page must render.
subcommands() {  # the names under "Commands:" in `futureq ARGS... --help`
  "$DIST/bin/futureq" "$@" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^[^ ]/ { on = 0 }'
}
expected_pages=""
queue=("")
while [ ${#queue[@]} -gt 0 ]; do
  path="${queue[0]}"
  queue=("${queue[@]:1}")
  name="futureq${path:+-${path// /-}}"
  expected_pages+="$name.1"$'\n'
  page="$DIST/man/man1/$name.1"
  [ -f "$page" ] || fail "man/man1/$name.1 missing: no man page for \`futureq${path:+ $path}\`"
  upper="${name^^}"
  grep -qF ".TH \"${upper//-/\\-}\" \"1\"" "$page" || fail "man/man1/$name.1 is not the troff page of $name"
  # shellcheck disable=SC2086 # the path's words are the command's arguments
  subs="$(subcommands $path)" || fail "\`futureq${path:+ $path} --help\` failed"
  for sub in $subs; do
    grep -qF "\\fB${sub//-/\\-}\\fP" "$page" || fail "man/man1/$name.1 does not list its subcommand $sub"
    queue+=("${path:+$path }$sub")
  done
  if command -v man >/dev/null 2>&1; then
    rendered="$(LC_ALL=C MANWIDTH=100 man -l "$page" 2>/dev/null)" || fail "man -l man/man1/$name.1 failed"
    grep -q "^ *$name - " <<<"$rendered" || fail "man -l man/man1/$name.1 renders no NAME line for $name"
  fi
done
extra_pages="$(comm -13 <(printf '%s' "$expected_pages" | sort) <(ls "$DIST/man/man1" | sort))"
[ -z "$extra_pages" ] || fail "man/man1 has pages of no command: $(echo $extra_pages)"
echo "dist-smoke: man/man1 has a page for each of the CLI's $(printf '%s' "$expected_pages" | wc -l) commands"
for jar in "$DIST"/lib/*.jar; do
  name="$(basename "$jar")"
  [ "$name" = futureq.jar ] || grep -qF "\`$name\`" "$DIST/licenses/THIRD-PARTY.md" \
    || fail "lib/$name is not in licenses/THIRD-PARTY.md (run scripts/third-party-licenses.py)"
done

# No Maven: the launcher of a distribution must not build anything.
mkdir -p "$WORK/no-maven"
printf '#!/bin/sh\necho "dist-smoke: the launcher called mvn" >&2\nexit 97\n' > "$WORK/no-maven/mvn"
chmod +x "$WORK/no-maven/mvn"
export PATH="$WORK/no-maven:$PATH"

cat > "$WORK/smoke.conf" <<CONF
futureq.api.port = $PORT
futureq.management.port = $((PORT + 1))
futureq.metrics.port = $((PORT + 2))
futureq.console.port = $((PORT + 3))
futureq.storage.data-dir = "$WORK/data"
CONF
"$DIST/bin/futureq" server --config "$WORK/smoke.conf" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
SERVER="127.0.0.1:$PORT"
published=""
for _ in $(seq 1 120); do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the broker exited"
  if published="$("$DIST/bin/futureq" publish --server "$SERVER" --topic smoke "hello from the tarball" 2>/dev/null)"; then
    break
  fi
  published=""
  sleep 1
done
[ -n "$published" ] || fail "no publish was accepted within 120 s"
consumed="$(timeout 60 "$DIST/bin/futureq" consume --server "$SERVER" --topic smoke --group smoke --count 1)" \
  || fail "consume failed or timed out"
echo "$consumed" | grep -qF "hello from the tarball" || fail "consumed something else: $consumed"
echo "dist-smoke: $(basename "$TARBALL") ran a broker without Maven; published $published and consumed it"

# Another language from the tarball alone: Python stubs from its protos, a publish with its example.
PYTHON_GRPC=""
for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c 'import grpc, grpc_tools.protoc' >/dev/null 2>&1; then PYTHON_GRPC="$candidate"; break; fi
done
if [ -n "$PYTHON_GRPC" ]; then
  PYTHON="$PYTHON_GRPC" "$DIST/examples/python/generate-stubs.sh" "$WORK/stubs" \
    || fail "examples/python/generate-stubs.sh failed on the tarball's protos"
  py_id="$(PYTHONPATH="$WORK/stubs" "$PYTHON_GRPC" "$DIST/examples/python/producer.py" --server "$SERVER" publish \
    --topic smoke-py "hello from python")" || fail "examples/python/producer.py could not publish"
  consumed="$(timeout 60 "$DIST/bin/futureq" consume --server "$SERVER" --topic smoke-py --group smoke --count 1)" \
    || fail "consume of the Python example's message failed or timed out"
  echo "$consumed" | grep -qF "hello from python" || fail "consumed something else: $consumed"
  echo "dist-smoke: Python stubs generated from the tarball's protos; its producer published $py_id"
else
  echo "dist-smoke: no python3 here imports grpc and grpc_tools (Debian's python3-grpcio, python3-grpc-tools):" \
    "skipped the Python stubs from the tarball's protos"
fi
