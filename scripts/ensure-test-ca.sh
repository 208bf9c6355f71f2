#!/usr/bin/env bash
# The test suite's own certificate authority, for the HTTPS webhook receivers the tests run:
# generated once into .lattice/test-ca/ (the data directory, gitignored) and kept. Prints the
# CA certificate's path; the suite gives it to Node as NODE_EXTRA_CA_CERTS, so a receiver's
# certificate is checked as a real one would be (never rejectUnauthorized: false).
#   ca.pem, ca-key.pem                the CA (10 years)
#   server.pem, server-key.pem        signed by the CA for localhost, 127.0.0.1, ::1 and
#                                     ::ffff:127.0.0.1 (10 years)
#   untrusted.pem, untrusted-key.pem  self-signed, same names: what a certificate failure looks like
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$PWD/.lattice/test-ca"
files=(ca.pem ca-key.pem server.pem server-key.pem untrusted.pem untrusted-key.pem)

complete() {
  for f in "${files[@]}"; do [ -s "$1/$f" ] || return 1; done
}

if ! complete "$dir"; then
  openssl=${OPENSSL:-openssl}
  if ! command -v "$openssl" >/dev/null 2>&1; then
    echo "lattice: installing openssl (Debian package) for the test CA…" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get install -y -q openssl >&2 || { $sudo apt-get update -q >&2 && $sudo apt-get install -y -q openssl >&2; }
  fi
  mkdir -p "$PWD/.lattice"
  # Built beside the final place and renamed into it, so a suite started at the same time never
  # sees half a directory.
  work=$(mktemp -d "$PWD/.lattice/test-ca.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  san="subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,IP:::ffff:127.0.0.1"
  days=3650
  (
    cd "$work"
    "$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
      -keyout ca-key.pem -out ca.pem -subj "/CN=Lattice test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    "$openssl" req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
      -keyout server-key.pem -out server.csr -subj "/CN=localhost" 2>/dev/null
    printf '%s\n' "$san" "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
      "extendedKeyUsage=serverAuth" >server.ext
    "$openssl" x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days "$days" \
      -extfile server.ext -out server.pem 2>/dev/null
    "$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
      -keyout untrusted-key.pem -out untrusted.pem -subj "/CN=localhost" -addext "$san" \
      -addext "basicConstraints=critical,CA:FALSE" -addext "extendedKeyUsage=serverAuth" 2>/dev/null
    rm -f server.csr server.ext ca.srl
    chmod 600 ./*-key.pem
  )
  if ! complete "$work"; then
    echo "lattice: could not generate the test CA in $work" >&2
    exit 1
  fi
  # Another run may have finished first: keep its CA if complete (its certificates may be in use).
  if complete "$dir"; then
    :
  else
    rm -rf "$dir"
    mv -T "$work" "$dir" 2>/dev/null || complete "$dir"
  fi
fi
echo "$dir/ca.pem"
