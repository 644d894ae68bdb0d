#!/usr/bin/env bash
# setup-podman.sh — installs podman/buildah/runc/mmdebstrap when missing and writes the containers.conf they need here; prints CONTAINERS_CONF=PATH.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "${HERE}/versions.env"

# Debian's podman 4.3 + buildah 1.28 with runc (crun fails on hybrid cgroups), rootless helpers,
# CNI networking, an init for `--init`, and mmdebstrap for the stand-in base image.
PACKAGES=(podman buildah runc uidmap fuse-overlayfs slirp4netns containernetworking-plugins
  catatonit iptables mmdebstrap)

log() { printf '[setup-podman] %s\n' "$*" >&2; }
die() { printf '[setup-podman] ERROR: %s\n' "$*" >&2; exit 1; }

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${db:Status-Status}\n' "${p}" 2>/dev/null | grep -qx installed || echo "${p}"
  done
}

command -v dpkg-query >/dev/null || die "this script needs a Debian-like system (dpkg/apt); install podman, buildah and runc yourself"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || die "not root and no sudo: cannot apt-get install ${PACKAGES[*]}"
  SUDO=(sudo -n)
fi

mkdir -p "${BERTH_E2E_PODMAN_DIR}"
# One apt run at a time (parallel test workers); re-check once we hold the lock.
exec 9>"${BERTH_E2E_PODMAN_DIR}/.setup.lock"
flock 9

mapfile -t missing < <(missing_packages)
if ((${#missing[@]} > 0)); then
  t0=${SECONDS}
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_log="${BERTH_E2E_PODMAN_DIR}/apt.log"
  apt() { "${SUDO[@]}" apt-get -y -q "$@" >>"${apt_log}" 2>&1; }
  : >"${apt_log}"
  if ! apt install --no-install-recommends "${missing[@]}"; then
    log "install failed; running apt-get update and trying again"
    apt update || { tail -n 30 "${apt_log}" >&2; die "apt-get update failed (log: ${apt_log})"; }
    apt install --no-install-recommends "${missing[@]}" ||
      { tail -n 30 "${apt_log}" >&2; die "apt-get install ${missing[*]} failed (log: ${apt_log})"; }
  fi
  mapfile -t still < <(missing_packages)
  ((${#still[@]} == 0)) || die "still missing after apt-get install: ${still[*]}"
  log "installed in $((SECONDS - t0))s"
fi

# The container's open-file limit may not exceed this process's hard limit (no
# CAP_SYS_RESOURCE here), and podman's default (1048576) does; same for processes.
nofile=$(ulimit -Hn)
[[ ${nofile} == unlimited || ${nofile} -gt 1048576 ]] && nofile=1048576
nproc=$(ulimit -Hu)
[[ ${nproc} == unlimited || ${nproc} -gt 32768 ]] && nproc=32768

conf="${BERTH_E2E_PODMAN_DIR}/containers.conf"
tmp=$(mktemp "${conf}.XXXXXX")
cat >"${tmp}" <<CONF
# Written by berth's test/e2e/image/setup-podman.sh; used through CONTAINERS_CONF.
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]

[engine]
# crun cannot run on hosts with hybrid (v1 + v2) cgroups; runc can.
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
chmod 644 "${tmp}"
mv "${tmp}" "${conf}"

CONTAINERS_CONF=${conf} podman --version >&2 || die "podman does not start with ${conf}"
echo "CONTAINERS_CONF=${conf}"
