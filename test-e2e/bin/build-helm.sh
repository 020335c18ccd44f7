#!/usr/bin/env bash
# Finds or builds the helm binary that renders config/helm/hami for the end-to-end suite. HELM,
# when set, names an existing binary; otherwise the pinned version cached under
# ~/.cache/hami/helm, else a helm 3 on PATH, else the pinned version built once through the Go
# module proxy. On success the last line of stdout is HELM=<path>; progress goes to stderr.
set -euo pipefail

version="v3.22.0"
cache="${HAMI_CACHE_DIR:-$HOME/.cache/hami}/helm"
out="$cache/helm-$version"

log() { echo "build-helm: $*" >&2; }
die() { log "error: $*"; exit 1; }

if [ -n "${HELM:-}" ]; then
  [ -f "$HELM" ] && [ -x "$HELM" ] || die "HELM=$HELM is not an executable file"
  log "HELM given: $HELM"
  echo "HELM=$HELM"
  exit 0
fi

if [ -x "$out" ]; then
  log "cached: $out"
  echo "HELM=$out"
  exit 0
fi

if on_path="$(command -v helm)"; then
  if [[ "$("$on_path" version --template '{{.Version}}' 2>/dev/null)" == v3.* ]]; then
    log "using helm on PATH: $on_path"
    echo "HELM=$on_path"
    exit 0
  fi
fi

command -v go >/dev/null || die "go is not installed (needed to build helm $version)"
mkdir -p "$cache"
# One build at a time per cache, so concurrent callers wait and then find the binary cached.
exec 9>"$cache/.lock"
flock 9
if [ ! -x "$out" ]; then
  tmp="$(mktemp -d "$cache/build.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  start=$(date +%s)
  log "building helm $version with $(go env GOVERSION) (GOPROXY=$(go env GOPROXY))"
  GOBIN="$tmp" CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false" \
    go install -ldflags="-s -w" "helm.sh/helm/v3/cmd/helm@$version" || die "go install helm $version failed"
  mv -f "$tmp/helm" "$out"
  log "built $out in $(( $(date +%s) - start )) s"
fi
echo "HELM=$out"
