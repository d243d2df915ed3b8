#!/usr/bin/env bash
# The certificates a FutureQ deployment needs, made with openssl (docs/security.md, "Certificates with openssl",
# explains each step): a CA, the broker's API certificate, a client certificate (for mTLS, futureq.security.tls.
# client-ca-file), and the member certificate the cluster's nodes share (Raft and Pekko remoting, which reads RSA
# keys only and wants the members' certificates to share a subject name).
#
# Usage: scripts/make-certs.sh DIR [NAME...]
#   DIR    where to write ca.crt/ca.key, server.crt/server.key, client.crt/client.key, member.crt/member.key
#   NAME   host names and IP addresses the brokers are dialled by (default: localhost 127.0.0.1); they go into the
#          subject alternative names of the server and member certificates
# Keys are RSA 2048, unencrypted PKCS#8 (BEGIN PRIVATE KEY): keep DIR private. Certificates are valid 365 days.
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
DIR="$1"
shift
NAMES=("$@")
[ ${#NAMES[@]} -eq 0 ] && NAMES=(localhost 127.0.0.1)
SAN=""
for name in "${NAMES[@]}"; do
  if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then SAN="$SAN,IP:$name"; else SAN="$SAN,DNS:$name"; fi
done
SAN="${SAN#,}"
mkdir -p "$DIR"
cd "$DIR"

# The CA that signs the others: what every broker, member and client trusts (ca.crt).
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 365 -subj "/CN=futureq-ca" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

# issue NAME SUBJECT EXTENSION...: an RSA key (NAME.key) and a certificate signed by the CA (NAME.crt).
issue() {
  local name="$1" subject="$2"
  shift 2
  openssl req -newkey rsa:2048 -nodes -keyout "$name.key" -subj "$subject" -out "$name.csr" 2>/dev/null
  printf '%s\n' "$@" > "$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -extfile "$name.ext" \
    -out "$name.crt" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}

# The broker's API certificate (futureq.security.tls.cert-file and key-file): the names clients dial.
issue server "/CN=futureq-broker" "subjectAltName=$SAN" "extendedKeyUsage=serverAuth"
# A client's certificate, for a broker that requires one (the CLI's --cert/--cert-key, the client's keyManager).
issue client "/CN=futureq-client" "extendedKeyUsage=clientAuth"
# The members' certificate (futureq.cluster.tls.*): one for all members, naming every address they dial each other
# by, used both ways (each member is a server and a client of the others).
issue member "/CN=futureq-cluster" "subjectAltName=$SAN" "extendedKeyUsage=serverAuth,clientAuth"
rm -f ca.srl
chmod 600 ./*.key
echo "wrote ca, server, client and member certificates and keys to $(pwd)"
