#!/usr/bin/env bash
# Builds the broker's container image from Containerfile with podman (or buildah, or docker), after the release
# tarball: mvn -B -DskipTests verify, then this. Debian: apt-get install podman.
#
# Usage: scripts/image.sh [TAG]    (default futureq:VERSION)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
TAG="${1:-futureq:$VERSION}"
[ -f "$ROOT/target/futureq-$VERSION.tar.gz" ] || { echo "no target/futureq-$VERSION.tar.gz: run mvn -B -DskipTests verify first" >&2; exit 2; }
for tool in podman buildah docker; do
  if command -v "$tool" >/dev/null 2>&1; then
    case "$tool" in
      buildah) exec buildah bud --build-arg "VERSION=$VERSION" -f "$ROOT/Containerfile" -t "$TAG" "$ROOT" ;;
      *) exec "$tool" build --build-arg "VERSION=$VERSION" -f "$ROOT/Containerfile" -t "$TAG" "$ROOT" ;;
    esac
  fi
done
echo "no podman, buildah or docker here (Debian: apt-get install podman)" >&2
exit 2
