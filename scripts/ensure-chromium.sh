#!/usr/bin/env bash
# The browser tests drive Debian's Chromium with playwright-core (browser downloads by npm
# packages do not work on the project machines). Installs it when missing; prints its path.
set -euo pipefail
for candidate in chromium chromium-browser; do
  if path=$(command -v "$candidate" 2>/dev/null); then
    echo "$path"
    exit 0
  fi
done
echo "lattice: installing chromium (Debian package) for the browser tests…" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get install -y -q chromium >&2 || { $sudo apt-get update -q >&2 && $sudo apt-get install -y -q chromium >&2; }
command -v chromium
