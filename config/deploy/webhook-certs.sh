#!/usr/bin/env bash
# Issues the webhook's serving certificate from a private CA, stores it in the Secret the
# scheduler mounts (hami-system/hami-webhook-tls) and puts the CA into the
# MutatingWebhookConfiguration. Run it after `kubectl apply -k config/deploy/<variant>`, and again
# to renew: the scheduler picks up the new files without a restart.
#
#   config/deploy/webhook-certs.sh                 # uses the current kubectl context
#   OUT=/tmp/certs config/deploy/webhook-certs.sh  # only write the files, touch no cluster
#
# Environment: NAMESPACE (hami-system), SERVICE (hami-scheduler), SECRET (hami-webhook-tls),
# WEBHOOK (hami-webhook), DAYS (825), KUBECTL (kubectl), OUT (a directory: files only).
set -euo pipefail

namespace=${NAMESPACE:-hami-system}
service=${SERVICE:-hami-scheduler}
secret=${SECRET:-hami-webhook-tls}
webhook=${WEBHOOK:-hami-webhook}
days=${DAYS:-825}
kubectl=${KUBECTL:-kubectl}

command -v openssl >/dev/null || { echo "webhook-certs.sh: openssl is required" >&2; exit 1; }

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  dir=$OUT
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi

host="$service.$namespace.svc"
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
  -subj "/CN=hami-webhook-ca" -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -sha256 \
  -subj "/CN=$host" -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
cat > "$dir/ext.cnf" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service,DNS:$service.$namespace,DNS:$host,DNS:$host.cluster.local
EXT
openssl x509 -req -sha256 -days "$days" -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
  -CAcreateserial -extfile "$dir/ext.cnf" -out "$dir/tls.crt" 2>/dev/null
openssl verify -CAfile "$dir/ca.crt" "$dir/tls.crt" >/dev/null

if [ -n "${OUT:-}" ]; then
  echo "wrote $OUT/tls.crt, $OUT/tls.key and $OUT/ca.crt for $host"
  exit 0
fi

"$kubectl" get namespace "$namespace" >/dev/null 2>&1 || "$kubectl" create namespace "$namespace"
"$kubectl" -n "$namespace" create secret tls "$secret" \
  --cert="$dir/tls.crt" --key="$dir/tls.key" --dry-run=client -o yaml | "$kubectl" apply -f -
ca_bundle=$(base64 < "$dir/ca.crt" | tr -d '\n')
"$kubectl" patch mutatingwebhookconfiguration "$webhook" --type=json \
  -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$ca_bundle\"}]"
echo "webhook certificate for $host stored in secret $namespace/$secret; CA set on $webhook"
