#!/usr/bin/env bash
# Starts etcd and kube-apiserver on loopback (TLS, RBAC, ServiceAccount tokens, admission webhooks)
# with the harness the end-to-end suite uses, prints the admin kubeconfig, and runs until
# interrupted; then both stop and their files are removed. Usage: start-control-plane.sh [work-dir]
# Extra Maven flags (such as -o) can be given in MAVEN_ARGS.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(cd "$here/.." && pwd)"
root="$(cd "$module/.." && pwd)"
classpath_file="$module/target/e2e-classpath.txt"

echo "start-control-plane: compiling the harness ..." >&2
# shellcheck disable=SC2086
(cd "$root" && mvn -q -B ${MAVEN_ARGS:-} -pl test-e2e -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/e2e-classpath.txt -Dmdep.includeScope=test) >&2

exec java -Xmx256m -Dhami.e2e.moduleDir="$module" \
  -cp "$module/target/test-classes:$(cat "$classpath_file")" io.hami.e2e.ControlPlaneMain "$@"
