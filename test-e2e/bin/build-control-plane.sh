#!/usr/bin/env bash
# Builds the pinned kube-apiserver and etcd once and caches them under ~/.cache/hami/control-plane,
# keyed by version. KUBE_APISERVER and ETCD, when set, name existing binaries and skip the build.
# On success the last two lines of stdout are KUBE_APISERVER=<path> and ETCD=<path>; progress and
# timings go to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$here/../controlplane"
cache="${HAMI_CACHE_DIR:-$HOME/.cache/hami}/control-plane"

log() { echo "build-control-plane: $*" >&2; }
die() { log "error: $*"; exit 1; }

version_of() { # module path -> version required in go.mod
  awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$module/go.mod"
}

kube_version="$(version_of k8s.io/kubernetes)"
etcd_version="$(version_of go.etcd.io/etcd/server/v3)"
[ -n "$kube_version" ] || die "no k8s.io/kubernetes requirement in $module/go.mod"
[ -n "$etcd_version" ] || die "no go.etcd.io/etcd/server/v3 requirement in $module/go.mod"

check_given() { # name path
  [ -f "$2" ] && [ -x "$2" ] || die "$1=$2 is not an executable file"
  log "$1 given: $2"
}

build() { # package output [ldflags]
  local pkg="$1" out="$2" ldflags="-s -w ${3:-}"
  if [ -x "$out" ]; then
    log "cached: $out"
    return
  fi
  command -v go >/dev/null || die "go is not installed (needed to build $pkg)"
  mkdir -p "$(dirname "$out")"
  local tmp="$out.tmp.$$" start end
  start=$(date +%s)
  log "building $pkg with $(go env GOVERSION) (GOPROXY=$(go env GOPROXY))"
  (
    cd "$module"
    CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false -mod=readonly" \
      go build -ldflags="$ldflags" -o "$tmp" "$pkg"
  ) || { rm -f "$tmp"; die "go build $pkg failed"; }
  mv -f "$tmp" "$out"
  end=$(date +%s)
  log "built $out in $((end - start)) s"
}

total_start=$(date +%s)
mkdir -p "$cache"
# One build at a time per cache, so concurrent callers wait and then find the binaries cached.
exec 9>"$cache/.lock"
flock 9

if [ -n "${ETCD:-}" ]; then
  check_given ETCD "$ETCD"; etcd="$ETCD"
else
  etcd="$cache/etcd-$etcd_version"
  build go.etcd.io/etcd/server/v3 "$etcd"
fi
if [ -n "${KUBE_APISERVER:-}" ]; then
  check_given KUBE_APISERVER "$KUBE_APISERVER"; apiserver="$KUBE_APISERVER"
else
  apiserver="$cache/kube-apiserver-$kube_version"
  # What Kubernetes' own build stamps in, so /version and version-skew checks see the release.
  minor="${kube_version#v1.}"; minor="${minor%%.*}"
  stamp=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    stamp+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    stamp+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  build k8s.io/kubernetes/cmd/kube-apiserver "$apiserver" "$stamp"
fi

log "control plane ready in $(( $(date +%s) - total_start )) s (kube-apiserver $kube_version, etcd $etcd_version)"
echo "KUBE_APISERVER=$apiserver"
echo "ETCD=$etcd"
