#!/usr/bin/env bash
# Builds HAMi's scheduler at a pinned release from the Go module proxy, for the cluster
# benchmark's baseline (b), and caches it under ~/.cache/hami/hami-baseline. On success the last
# line of stdout is HAMI_SCHEDULER=<path>. When the proxy refuses the module, the proxy's error is
# printed on stderr and the exit code is 1; no other source is tried.
set -uo pipefail

module="github.com/Project-HAMi/HAMi"
version="${HAMI_BASELINE_VERSION:-v2.8.0}"
cache="${HAMI_CACHE_DIR:-$HOME/.cache/hami}/hami-baseline/$version"

log() { echo "build-hami-baseline: $*" >&2; }

if [ -x "$cache/bin/scheduler" ]; then
  log "cached: $cache/bin/scheduler"
  echo "HAMI_SCHEDULER=$cache/bin/scheduler"
  exit 0
fi
command -v go >/dev/null 2>&1 || { log "error: go not found on PATH"; exit 1; }

# The proxy only: a refused module must not fall back to its origin repository.
proxy="$(go env GOPROXY)"
proxy="${proxy%,direct}"
proxy="${proxy%|direct}"
mkdir -p "$cache"
log "downloading $module@$version through the Go module proxy ($proxy)"
json="$(cd "$cache" && GOPROXY="$proxy" GOFLAGS=-mod=mod go mod download -json "$module@$version" 2>&1)"
rc=$?
err="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' | sed 's/\\[nt]/ /g; s/\\"/"/g')"
if [ $rc -ne 0 ] || [ -n "$err" ]; then
  log "error: go mod download -json $module@$version failed (exit $rc): ${err:-$json}"
  exit 1
fi
dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[ -n "$dir" ] || { log "error: no module directory in: $json"; exit 1; }
log "building $dir/cmd/scheduler"
if ! (cd "$dir" && CGO_ENABLED=0 go build -o "$cache/bin/scheduler" ./cmd/scheduler) >&2; then
  log "error: go build ./cmd/scheduler failed in $dir"
  exit 1
fi
echo "HAMI_SCHEDULER=$cache/bin/scheduler"
