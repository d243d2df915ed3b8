#!/bin/sh
# Generates the Python stubs of FutureQ's public protos (futureq/v1/*.proto) into DIR (default: this directory),
# as the package futureq.v1 that producer.py and consumer.py import. Needs Debian's python3-grpc-tools
# (or pip's grpcio-tools); PYTHON names the interpreter (default python3). The protos are proto/ in the release
# tarball, src/main/protobuf/ in the repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
protos=$here/../../proto
[ -d "$protos" ] || protos=$here/../../src/main/protobuf
mkdir -p "$out"
"${PYTHON:-python3}" -m grpc_tools.protoc -I "$protos" --python_out="$out" --grpc_python_out="$out" \
  "$protos"/futureq/v1/*.proto
