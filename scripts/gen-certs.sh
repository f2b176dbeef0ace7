#!/usr/bin/env bash
# Generates the TLS test certificates into DIR (default
# $GREGOR_RUN/certs), idempotently, with Debian's openssl command (a test
# tool only: libgregor does not link OpenSSL):
#   ca.pem, ca.key            the test CA
#   broker.pem, broker.key    the broker's certificate, signed by the CA,
#                             valid for IP 127.0.0.1 only (so "localhost"
#                             is a wrong host name)
#   other-ca.pem              a CA that signed nothing here (unknown CA)
#   expired.pem, expired.key  signed by the CA, expired in 2021
#   client.pem, client.key    a client certificate signed by the CA
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
dir=${1:-$GREGOR_RUN/certs}
mkdir -p "$dir"
cd "$dir"
[ -f expired.pem ] && [ -f client.pem ] && [ -f broker.pem ] && exit 0
command -v openssl >/dev/null || { apt-get update -qq; apt-get install -y -qq openssl >/dev/null; } || true
command -v openssl >/dev/null || die "certs: openssl is not installed (apt-get install openssl)"
log "certs: generating the test CA and certificates in $dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 3650 -subj "/CN=gregor test CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req -x509 "${ec[@]}" -keyout other-ca.key -out other-ca.pem -days 3650 -subj "/CN=gregor other CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
cat >leaf.ext <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:127.0.0.1
EXT
openssl req "${ec[@]}" -keyout broker.key -out broker.csr -subj "/CN=127.0.0.1" 2>/dev/null
openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -set_serial 2 -days 3650 \
    -extfile leaf.ext -out broker.pem 2>/dev/null
openssl req "${ec[@]}" -keyout client.key -out client.csr -subj "/CN=gregor client" 2>/dev/null
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -set_serial 3 -days 3650 \
    -extfile leaf.ext -out client.pem 2>/dev/null
# An expired certificate: `openssl ca` is the 3.0 way to set past dates.
mkdir -p ca-db
: >ca-db/index.txt
cat >ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
new_certs_dir = ca-db
serial = ca-db/serial
default_md = sha256
policy = any
copy_extensions = none
[any]
commonName = supplied
CNF
echo 04 >ca-db/serial
openssl req "${ec[@]}" -keyout expired.key -out expired.csr -subj "/CN=127.0.0.1" 2>/dev/null
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
    -startdate 20200101000000Z -enddate 20210101000000Z -extfile leaf.ext -notext 2>/dev/null
rm -f ./*.csr
log "certs: done"
