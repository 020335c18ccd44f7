#!/usr/bin/env bash
# Builds the pinned etcd, kube-apiserver, kube-scheduler and kube-controller-manager once and caches
# them under ~/.cache/hami/control-plane, keyed by version. KUBE_APISERVER, KUBE_SCHEDULER,
# KUBE_CONTROLLER_MANAGER and ETCD, when set, name existing binaries and skip their build. The
# missing Kubernetes binaries are built by one `go build`, which shares the packages they have in
# common. On success the last four lines of stdout are KUBE_APISERVER=<path>, KUBE_SCHEDULER=<path>,
# KUBE_CONTROLLER_MANAGER=<path> and ETCD=<path>; progress and timings go to stderr. Builds run
# under `nice` so that a shared machine stays responsive.
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

go_build() { # ldflags output package...: one `go build`; an output ending in / is a directory
  local ldflags="-s -w $1" out="$2"
  shift 2
  command -v go >/dev/null || die "go is not installed (needed to build $*)"
  log "building $* with $(go env GOVERSION) (GOPROXY=$(go env GOPROXY))"
  (
    cd "$module"
    CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false -mod=readonly" \
      nice -n 10 go build -ldflags="$ldflags" -o "$out" "$@"
  )
}

build() { # package output [ldflags]
  local pkg="$1" out="$2"
  if [ -x "$out" ]; then
    log "cached: $out"
    return
  fi
  mkdir -p "$(dirname "$out")"
  local tmp="$out.tmp.$$" start
  start=$(date +%s)
  go_build "${3:-}" "$tmp" "$pkg" || { rm -f "$tmp"; die "go build $pkg failed"; }
  mv -f "$tmp" "$out"
  log "built $out in $(( $(date +%s) - start )) s"
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
# What Kubernetes' own build stamps in, so /version and version-skew checks see the release.
minor="${kube_version#v1.}"; minor="${minor%%.*}"
stamp=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  stamp+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done
declare -A kube_bin
missing=()
for name in kube-apiserver kube-scheduler kube-controller-manager; do
  var="$(tr 'a-z-' 'A-Z_' <<<"$name")"
  if [ -n "${!var:-}" ]; then
    check_given "$var" "${!var}"; kube_bin[$name]="${!var}"
  else
    kube_bin[$name]="$cache/$name-$kube_version"
    if [ -x "${kube_bin[$name]}" ]; then log "cached: ${kube_bin[$name]}"; else missing+=("$name"); fi
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  tmp="$cache/kube.tmp.$$"
  start=$(date +%s)
  mkdir -p "$tmp"
  go_build "$stamp" "$tmp/" "${missing[@]/#/k8s.io/kubernetes/cmd/}" \
    || { rm -rf "$tmp"; die "go build of ${missing[*]} failed"; }
  for name in "${missing[@]}"; do mv -f "$tmp/$name" "${kube_bin[$name]}"; done
  rm -rf "$tmp"
  log "built ${missing[*]} in $(( $(date +%s) - start )) s"
fi

log "control plane ready in $(( $(date +%s) - total_start )) s (kube-apiserver $kube_version, etcd $etcd_version)"
echo "KUBE_APISERVER=${kube_bin[kube-apiserver]}"
echo "KUBE_SCHEDULER=${kube_bin[kube-scheduler]}"
echo "KUBE_CONTROLLER_MANAGER=${kube_bin[kube-controller-manager]}"
echo "ETCD=$etcd"
