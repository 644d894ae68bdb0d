#!/usr/bin/env bash
# up.sh [--restart-apiserver] DIR — start a throwaway control plane (etcd, kube-apiserver, kwok, optionally
# kube-controller-manager) with its state in DIR.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "${HERE}/lib.sh"

usage() {
  cat >&2 <<'EOF'
usage: up.sh DIR                      start etcd + kube-apiserver + kwok, state/logs in DIR
       up.sh --restart-apiserver DIR  (re)start only kube-apiserver of the cluster in DIR,
                                      on the same port and etcd
environment: BERTH_E2E_AUDIT_POLICY=FILE  audit what FILE selects to DIR/audit.log
             BERTH_E2E_KUBE=MINOR         run that pinned release's kube-apiserver (e.g. 1.35;
                                          default K8S_VERSION's); etcd and kwok stay the main set's
             BERTH_E2E_CONTROLLERS=LIST   also run kube-controller-manager with --controllers=LIST
                                          (e.g. resourceclaim-controller); K8S_VERSION only
             BERTH_E2E_APISERVER_FLAGS=.. more kube-apiserver flags (--name=value words)
             BERTH_E2E_KCM_QPS=N          its client limit: qps N, burst 2N (default kube's 20/30)
             BERTH_E2E_KCM_FLAGS=..       more kube-controller-manager flags (--name=value words)
EOF
  exit 2
}

MODE=up
case "${1:-}" in
  --restart-apiserver) MODE=restart; shift ;;
  -h | --help) usage ;;
esac
[[ $# -eq 1 && -n "$1" ]] || usage
mkdir -p "$1"
DIR=$(cd "$1" && pwd)

# Binaries: a no-op (well under a second) when the pinned versions are cached.
"${HERE}/build.sh" >/dev/null

for tool in curl openssl setsid; do
  command -v "${tool}" >/dev/null || die "'${tool}' is required (apt-get install curl openssl util-linux)"
done

if [[ "${MODE}" == restart ]]; then
  [[ -f "${DIR}/env" ]] || die "${DIR}/env not found: start the cluster with up.sh ${DIR} first"
  # shellcheck source=/dev/null
  source "${DIR}/env"
  pid_is "$(recorded_pid "${DIR}" etcd)" etcd || die "etcd of ${DIR} is not running; run down.sh ${DIR} and up.sh ${DIR}"
  old=$(recorded_pid "${DIR}" kube-apiserver)
  if [[ -n "${old}" ]] && pid_is "${old}" kube-apiserver; then
    # With clients still watching, kube-apiserver's graceful shutdown can take a minute: give it a
    # short grace, then SIGKILL (it keeps no state of its own; etcd holds everything).
    log "stopping kube-apiserver (pid ${old})"
    stop_pid kube-apiserver "${old}" "${BERTH_E2E_APISERVER_STOP_GRACE:-3}"
  fi
  # The kernel may take a moment to release the listening port.
  for ((i = 0; i < 50; i++)); do port_in_use "${APISERVER_PORT}" || break; sleep 0.1; done
  start_apiserver "${DIR}"
  exit 0
fi

# --- fresh start ---------------------------------------------------------------------------------
# BERTH_E2E_KUBE=MINOR: kube-apiserver of another pinned release (build.sh --kube builds it once).
BERTH_E2E_KUBE_BIN=${BERTH_E2E_BIN}
if [[ -n "${BERTH_E2E_KUBE:-}" ]]; then
  kube_paths=$("${HERE}/build.sh" --kube "${BERTH_E2E_KUBE}") || die "no kube-apiserver for BERTH_E2E_KUBE=${BERTH_E2E_KUBE}"
  K8S_VERSION=$(sed -n 's/^K8S_VERSION=//p' <<<"${kube_paths}")
  BERTH_E2E_KUBE_BIN=$(sed -n 's/^BERTH_E2E_KUBE_BIN=//p' <<<"${kube_paths}")
fi
# BERTH_E2E_CONTROLLERS=LIST: kube-controller-manager runs these controllers (kube's names, comma-separated).
CONTROLLERS=${BERTH_E2E_CONTROLLERS:-}
if [[ -n "${CONTROLLERS}" ]]; then
  [[ "${CONTROLLERS}" =~ ^[a-z0-9*,-]+$ ]] ||
    die "BERTH_E2E_CONTROLLERS=${CONTROLLERS}: expected kube-controller-manager controller names, comma-separated"
  # kube-controller-manager is built only for K8S_VERSION, and must not be newer than kube-apiserver.
  [[ "${BERTH_E2E_KUBE_BIN}" == "${BERTH_E2E_BIN}" ]] ||
    die "BERTH_E2E_CONTROLLERS needs K8S_VERSION's kube-apiserver, not BERTH_E2E_KUBE=${BERTH_E2E_KUBE}"
fi
if [[ -f "${DIR}/pids" ]]; then
  while read -r name pid; do
    if [[ -n "${name}" ]] && pid_is "${pid}" "${name}"; then
      die "a cluster is already running in ${DIR} (${name} pid ${pid}); run down.sh ${DIR} first"
    fi
  done <"${DIR}/pids"
fi
# Remove state left by an earlier run in DIR (only what this script creates).
rm -rf "${DIR}/etcd" "${DIR}/pki" "${DIR}/kwok" "${DIR}/pids" "${DIR}/env" "${DIR}/kubeconfig" \
  "${DIR}/etcd.log" "${DIR}/kube-apiserver.log" "${DIR}/kwok.log" "${DIR}/openssl.log" \
  "${DIR}/audit-policy.yaml" "${DIR}/audit.log" "${DIR}/apiserver-flags" \
  "${DIR}/kube-controller-manager.kubeconfig" "${DIR}/kube-controller-manager.log"
mkdir -p "${DIR}/pki" "${DIR}/kwok"
chmod 700 "${DIR}/pki"
# BERTH_E2E_AUDIT_POLICY=FILE: kube-apiserver audits what FILE selects to DIR/audit.log (JSON lines).
if [[ -n "${BERTH_E2E_AUDIT_POLICY:-}" ]]; then
  [[ -f "${BERTH_E2E_AUDIT_POLICY}" ]] || die "BERTH_E2E_AUDIT_POLICY=${BERTH_E2E_AUDIT_POLICY}: no such file"
  cp "${BERTH_E2E_AUDIT_POLICY}" "${DIR}/audit-policy.yaml"
fi

# BERTH_E2E_APISERVER_FLAGS="--a=b --c=d": more kube-apiserver flags (e.g. the Workload API's
# --runtime-config and --feature-gates), recorded so that a restart passes them again.
if [[ -n "${BERTH_E2E_APISERVER_FLAGS:-}" ]]; then
  for flag in ${BERTH_E2E_APISERVER_FLAGS}; do
    [[ "${flag}" == --?*=* ]] || die "BERTH_E2E_APISERVER_FLAGS: ${flag}: expected --name=value"
  done
  printf '%s\n' "${BERTH_E2E_APISERVER_FLAGS}" >"${DIR}/apiserver-flags"
fi

# If anything below fails, stop whatever was already started.
started_ok=0
on_exit() {
  if ((started_ok == 0)) && [[ -f "${DIR}/pids" ]]; then
    log "start-up failed; stopping what was started"
    "${HERE}/down.sh" "${DIR}" || true
  fi
}
trap on_exit EXIT

ETCD_CLIENT_PORT=$(pick_port)
ETCD_PEER_PORT=$(pick_port "${ETCD_CLIENT_PORT}")
APISERVER_PORT=$(pick_port "${ETCD_CLIENT_PORT} ${ETCD_PEER_PORT}")
KUBE_CONTROLLER_MANAGER_PORT=
if [[ -n "${CONTROLLERS}" ]]; then
  KUBE_CONTROLLER_MANAGER_PORT=$(pick_port "${ETCD_CLIENT_PORT} ${ETCD_PEER_PORT} ${APISERVER_PORT}")
fi

# --- certificates, service-account key, admin token -------------------------------------------
pki="${DIR}/pki"
{
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=berth-e2e-ca" \
    -keyout "${pki}/ca.key" -out "${pki}/ca.crt" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
  openssl req -new -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "${pki}/apiserver.key" -out "${pki}/apiserver.csr"
  printf '%s\n' \
    "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" >"${pki}/apiserver.ext"
  openssl x509 -req -in "${pki}/apiserver.csr" -CA "${pki}/ca.crt" -CAkey "${pki}/ca.key" \
    -CAcreateserial -days 3650 -extfile "${pki}/apiserver.ext" -out "${pki}/apiserver.crt"
  openssl genrsa -out "${pki}/sa.key" 2048
  openssl rsa -in "${pki}/sa.key" -pubout -out "${pki}/sa.pub"
} >"${DIR}/openssl.log" 2>&1 || { log_tail "${DIR}/openssl.log"; die "openssl failed generating certificates"; }
ADMIN_TOKEN=$(openssl rand -hex 32)
printf '%s\n' "${ADMIN_TOKEN}" >"${pki}/admin.token"
printf '%s,admin,admin,"system:masters"\n' "${ADMIN_TOKEN}" >"${pki}/tokens.csv"
if [[ -n "${CONTROLLERS}" ]]; then
  # kube-controller-manager's own user (no groups): kube's bootstrap RBAC binds the
  # system:kube-controller-manager role to it, which lets it mint each controller's token.
  KCM_TOKEN=$(openssl rand -hex 32)
  printf '%s,system:kube-controller-manager,system:kube-controller-manager\n' "${KCM_TOKEN}" >>"${pki}/tokens.csv"
fi
chmod 600 "${pki}"/*.key "${pki}/admin.token" "${pki}/tokens.csv"

# --- kubeconfig and env -------------------------------------------------------------------------
KUBECONFIG_PATH="${DIR}/kubeconfig"
# write_kubeconfig FILE USER TOKEN: a kubeconfig for this cluster as USER with a bearer token (mode 600).
write_kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: berth-e2e
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 <"${pki}/ca.crt")
users:
- name: $2
  user:
    token: $3
contexts:
- name: berth-e2e
  context:
    cluster: berth-e2e
    user: $2
current-context: berth-e2e
EOF
  chmod 600 "$1"
}
write_kubeconfig "${KUBECONFIG_PATH}" admin "${ADMIN_TOKEN}"
if [[ -n "${CONTROLLERS}" ]]; then
  write_kubeconfig "${DIR}/kube-controller-manager.kubeconfig" kube-controller-manager "${KCM_TOKEN}"
fi

{
  printf '# Generated by test/e2e/cluster/up.sh; source it to talk to this cluster.\n'
  printf 'export %s=%q\n' \
    CLUSTER_DIR "${DIR}" \
    KUBECONFIG "${KUBECONFIG_PATH}" \
    APISERVER_PORT "${APISERVER_PORT}" \
    APISERVER_URL "https://127.0.0.1:${APISERVER_PORT}" \
    ETCD_CLIENT_PORT "${ETCD_CLIENT_PORT}" \
    ETCD_PEER_PORT "${ETCD_PEER_PORT}" \
    BERTH_E2E_BIN "${BERTH_E2E_BIN}" \
    BERTH_E2E_KUBE_BIN "${BERTH_E2E_KUBE_BIN}" \
    K8S_VERSION "${K8S_VERSION}"
  if [[ -n "${CONTROLLERS}" ]]; then
    printf 'export %s=%q\n' \
      BERTH_E2E_CONTROLLERS "${CONTROLLERS}" \
      KUBE_CONTROLLER_MANAGER_PORT "${KUBE_CONTROLLER_MANAGER_PORT}"
  fi
} >"${DIR}/env"

# --- etcd ---------------------------------------------------------------------------------------
start_daemon "${DIR}/etcd.log" "${BERTH_E2E_BIN}/etcd" \
  --name=berth-e2e \
  --data-dir="${DIR}/etcd" \
  --listen-client-urls="http://127.0.0.1:${ETCD_CLIENT_PORT}" \
  --advertise-client-urls="http://127.0.0.1:${ETCD_CLIENT_PORT}" \
  --listen-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
  --initial-advertise-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
  --initial-cluster="berth-e2e=http://127.0.0.1:${ETCD_PEER_PORT}" \
  --unsafe-no-fsync \
  --log-level=warn
record_pid "${DIR}" etcd "${STARTED_PID}"
wait_until etcd "${STARTED_PID}" "${DIR}/etcd.log" etcd_healthy
log "etcd ready on 127.0.0.1:${ETCD_CLIENT_PORT} (pid ${STARTED_PID})"

# --- kube-apiserver -----------------------------------------------------------------------------
start_apiserver "${DIR}"

# --- kwok: marks every node Ready, renews leases, moves bound pods to Running ------------------
# KWOK_WORKDIR keeps kwok from reading a user's ~/.kwok/kwok.yaml.
start_daemon "${DIR}/kwok.log" env KWOK_WORKDIR="${DIR}/kwok" "${BERTH_E2E_BIN}/kwok" \
  --kubeconfig="${KUBECONFIG_PATH}" \
  --manage-all-nodes=true \
  --cidr="${BERTH_E2E_POD_CIDR}" \
  --node-lease-duration-seconds=40
record_pid "${DIR}" kwok "${STARTED_PID}"
kwok_started() { grep -q 'watching stages\|Watch all nodes' "${DIR}/kwok.log"; }
wait_until kwok "${STARTED_PID}" "${DIR}/kwok.log" kwok_started
log "kwok running (pid ${STARTED_PID})"

# --- kube-controller-manager (BERTH_E2E_CONTROLLERS only) ----------------------------------------
if [[ -n "${CONTROLLERS}" ]]; then
  start_controller_manager "${DIR}" "${CONTROLLERS}"
fi

started_ok=1
log "cluster up in ${DIR}: KUBECONFIG=${KUBECONFIG_PATH}  (source ${DIR}/env)"
