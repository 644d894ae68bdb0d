#!/usr/bin/env bash
# down.sh DIR — stop every process recorded in DIR/pids (TERM, then KILL after a grace period); idempotent.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "${HERE}/lib.sh"

[[ $# -eq 1 && -n "$1" ]] || { echo "usage: down.sh DIR" >&2; exit 2; }
DIR=$1
GRACE=${BERTH_E2E_STOP_GRACE:-10}

if [[ ! -f "${DIR}/pids" ]]; then
  log "nothing to stop in ${DIR} (no pids file)"
  exit 0
fi

# Stop in reverse start order (kwok, kube-apiserver, etcd): send TERM to all, then wait.
mapfile -t entries < <(tac "${DIR}/pids")
declare -a live=()
for entry in "${entries[@]}"; do
  read -r name pid <<<"${entry}"
  [[ -n "${name:-}" ]] || continue
  if pid_is "${pid}" "${name}"; then
    log "stopping ${name} (pid ${pid})"
    kill -TERM "${pid}" 2>/dev/null || true
    live+=("${name} ${pid}")
  fi
done
deadline=$((SECONDS + GRACE))
for entry in "${live[@]}"; do
  read -r name pid <<<"${entry}"
  while pid_alive "${pid}"; do
    if ((SECONDS >= deadline)); then
      log "${name} (pid ${pid}) still running after ${GRACE}s; sending SIGKILL"
      kill -KILL "${pid}" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
done
for entry in "${live[@]}"; do
  read -r name pid <<<"${entry}"
  for ((i = 0; i < 50; i++)); do pid_alive "${pid}" || break; sleep 0.1; done
  pid_alive "${pid}" && die "${name} (pid ${pid}) survived SIGKILL"
done
rm -f "${DIR}/pids"
log "stopped ${#live[@]} process(es) in ${DIR}"
