# lib.sh — helpers shared by up.sh, restart-apiserver.sh and down.sh (sourced, not run).
# shellcheck shell=bash

CLUSTER_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "${CLUSTER_LIB_DIR}/versions.env"

# Seconds to wait for each component to become ready (overridable).
BERTH_E2E_READY_TIMEOUT=${BERTH_E2E_READY_TIMEOUT:-90}
# Pod IPs handed out by kwok (fake: no traffic is ever sent to them).
BERTH_E2E_POD_CIDR=${BERTH_E2E_POD_CIDR:-10.128.0.1/9}

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] ERROR: %s\n' "$*" >&2; exit 1; }

# Print the last lines of a log file to stderr (for failure reports).
log_tail() {
  local file=$1
  [[ -f "${file}" ]] || return 0
  printf '[cluster] ---- last 40 lines of %s ----\n' "${file}" >&2
  tail -n 40 "${file}" >&2 || true
  printf '[cluster] ---- end of %s ----\n' "${file}" >&2
}

# True if PID is a live (non-zombie) process.
pid_alive() {
  local pid=$1 stat
  [[ "${pid}" =~ ^[0-9]+$ ]] || return 1
  kill -0 "${pid}" 2>/dev/null || return 1
  stat=$(cat "/proc/${pid}/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ "${stat:0:1}" != "Z" ]]
}

# True if PID is alive and runs the binary NAME (guards against pid reuse).
pid_is() {
  local pid=$1 name=$2 exe
  pid_alive "${pid}" || return 1
  exe=$(readlink "/proc/${pid}/exe" 2>/dev/null) || return 1
  [[ "${exe##*/}" == "${name}" || "${exe##*/}" == "${name} (deleted)" ]]
}

# True if something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Print a random free loopback port not in the space-separated list $1. The range 15000-31999 stays
# below Linux's default ephemeral range (32768-60999), so outgoing connections don't grab it meanwhile.
pick_port() {
  local avoid=" ${1:-} " port i
  for ((i = 0; i < 200; i++)); do
    port=$((15000 + (RANDOM * 32768 + RANDOM) % 17000))
    [[ "${avoid}" == *" ${port} "* ]] && continue
    port_in_use "${port}" && continue
    echo "${port}"
    return 0
  done
  die "could not find a free TCP port on 127.0.0.1"
}

# Pid recorded for NAME in DIR/pids ("name pid" lines), or nothing.
recorded_pid() {
  local dir=$1 name=$2
  [[ -f "${dir}/pids" ]] || return 0
  awk -v n="${name}" '$1 == n { p = $2 } END { if (p != "") print p }' "${dir}/pids"
}

# Set NAME's pid in DIR/pids (replacing an earlier line for NAME).
record_pid() {
  local dir=$1 name=$2 pid=$3 tmp
  tmp=$(mktemp "${dir}/.pids.XXXXXX")
  if [[ -f "${dir}/pids" ]]; then
    awk -v n="${name}" '$1 != n' "${dir}/pids" >"${tmp}"
  fi
  echo "${name} ${pid}" >>"${tmp}"
  mv "${tmp}" "${dir}/pids"
}

# Start a daemon in its own session, stdout+stderr appended to LOG; sets STARTED_PID.
start_daemon() {
  local logfile=$1
  shift
  printf '==== %s starting: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >>"${logfile}"
  setsid "$@" </dev/null >>"${logfile}" 2>&1 &
  STARTED_PID=$!
}

# wait_until NAME PID LOG CMD...: poll CMD until it succeeds; fail clearly if PID dies or time runs out.
wait_until() {
  local name=$1 pid=$2 logfile=$3 deadline
  shift 3
  deadline=$((SECONDS + BERTH_E2E_READY_TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    if ! pid_alive "${pid}"; then
      log_tail "${logfile}"
      die "${name} (pid ${pid}) exited before becoming ready; see ${logfile}"
    fi
    if ((SECONDS >= deadline)); then
      log_tail "${logfile}"
      die "${name} (pid ${pid}) not ready after ${BERTH_E2E_READY_TIMEOUT}s; see ${logfile}"
    fi
    sleep 0.2
  done
}

# Stop PID (TERM, then KILL after GRACE seconds) if it is still NAME.
stop_pid() {
  local name=$1 pid=$2 grace=${3:-10} deadline
  pid_is "${pid}" "${name}" || return 0
  kill -TERM "${pid}" 2>/dev/null || true
  deadline=$((SECONDS + grace))
  while pid_alive "${pid}"; do
    if ((SECONDS >= deadline)); then
      log "${name} (pid ${pid}) ignored SIGTERM for ${grace}s; sending SIGKILL"
      kill -KILL "${pid}" 2>/dev/null || true
      sleep 0.2
      break
    fi
    sleep 0.1
  done
}

# --- probes -------------------------------------------------------------------------------------
etcd_healthy() {
  curl -fsS --max-time 2 "http://127.0.0.1:${ETCD_CLIENT_PORT}/health" | grep -q '"health":"true"'
}

apiserver_ready() {
  local dir=$1
  [[ "$(curl -fsS --max-time 3 --cacert "${dir}/pki/ca.crt" \
    -H "Authorization: Bearer $(<"${dir}/pki/admin.token")" \
    "https://127.0.0.1:${APISERVER_PORT}/readyz")" == "ok" ]]
}

# --- kube-apiserver ---------------------------------------------------------------------------
# start_apiserver DIR: start kube-apiserver for the cluster in DIR (ports from the environment; the
# binary from BERTH_E2E_KUBE_BIN, else the main set), wait for /readyz and record its pid.
start_apiserver() {
  local dir=$1 pki="$1/pki" logfile="$1/kube-apiserver.log"
  local audit=()
  # An audit policy copied in by up.sh (BERTH_E2E_AUDIT_POLICY) logs matching requests to DIR/audit.log.
  if [[ -f "${dir}/audit-policy.yaml" ]]; then
    audit=(--audit-policy-file="${dir}/audit-policy.yaml" --audit-log-path="${dir}/audit.log"
      --audit-log-format=json --audit-log-maxsize=0)
  fi
  # More flags recorded by up.sh (BERTH_E2E_APISERVER_FLAGS), one word each, kept for restarts.
  local extra=()
  if [[ -s "${dir}/apiserver-flags" ]]; then
    read -r -a extra <"${dir}/apiserver-flags"
  fi
  port_in_use "${APISERVER_PORT}" && die "port ${APISERVER_PORT} (kube-apiserver) is already in use"
  start_daemon "${logfile}" "${BERTH_E2E_KUBE_BIN:-${BERTH_E2E_BIN}}/kube-apiserver" "${audit[@]}" "${extra[@]}" \
    --etcd-servers="http://127.0.0.1:${ETCD_CLIENT_PORT}" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --secure-port="${APISERVER_PORT}" \
    --cert-dir="${pki}" \
    --tls-cert-file="${pki}/apiserver.crt" \
    --tls-private-key-file="${pki}/apiserver.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="${pki}/sa.pub" \
    --service-account-signing-key-file="${pki}/sa.key" \
    --token-auth-file="${pki}/tokens.csv" \
    --authorization-mode=RBAC \
    --disable-admission-plugins=ServiceAccount,TaintNodesByCondition \
    --endpoint-reconciler-type=none \
    --allow-privileged=true
  record_pid "${dir}" kube-apiserver "${STARTED_PID}"
  wait_until kube-apiserver "${STARTED_PID}" "${logfile}" apiserver_ready "${dir}"
  log "kube-apiserver ready on https://127.0.0.1:${APISERVER_PORT} (pid ${STARTED_PID})"
}

# --- kube-controller-manager --------------------------------------------------------------------
kube_controller_manager_healthy() {
  # Its serving certificate is self-signed in memory (no --cert-dir): -k, on loopback only.
  [[ "$(curl -fsSk --max-time 3 "https://127.0.0.1:${KUBE_CONTROLLER_MANAGER_PORT}/healthz")" == "ok" ]]
}

# start_controller_manager DIR CONTROLLERS: start the main set's kube-controller-manager running only
# CONTROLLERS (its --controllers list), as user system:kube-controller-manager (DIR's
# kube-controller-manager.kubeconfig); each controller then acts as its own service account in
# kube-system with kube's bootstrap role for it (--use-service-account-credentials, as kubeadm runs it).
# Waits for /healthz on KUBE_CONTROLLER_MANAGER_PORT and records its pid.
# BERTH_E2E_KCM_QPS=N sets its client limit (--kube-api-qps N, --kube-api-burst 2N; kube's default 20/30).
# BERTH_E2E_KCM_FLAGS="--a=b ..." adds flags (e.g. --feature-gates=GenericWorkload=true,WorkloadWithJob=true).
start_controller_manager() {
  local dir=$1 controllers=$2 logfile="$1/kube-controller-manager.log" limits=() extra=()
  if [[ -n "${BERTH_E2E_KCM_FLAGS:-}" ]]; then
    read -r -a extra <<<"${BERTH_E2E_KCM_FLAGS}"
    for flag in "${extra[@]}"; do
      [[ "${flag}" == --?*=* ]] || die "BERTH_E2E_KCM_FLAGS: ${flag}: expected --name=value"
    done
  fi
  if [[ -n "${BERTH_E2E_KCM_QPS:-}" ]]; then
    [[ "${BERTH_E2E_KCM_QPS}" =~ ^[1-9][0-9]*$ ]] || die "BERTH_E2E_KCM_QPS=${BERTH_E2E_KCM_QPS}: expected a whole number"
    limits=(--kube-api-qps="${BERTH_E2E_KCM_QPS}" --kube-api-burst="$((2 * BERTH_E2E_KCM_QPS))")
  fi
  port_in_use "${KUBE_CONTROLLER_MANAGER_PORT}" &&
    die "port ${KUBE_CONTROLLER_MANAGER_PORT} (kube-controller-manager) is already in use"
  start_daemon "${logfile}" "${BERTH_E2E_KCM}" \
    --kubeconfig="${dir}/kube-controller-manager.kubeconfig" \
    --controllers="${controllers}" \
    --use-service-account-credentials=true \
    --leader-elect=false \
    --bind-address=127.0.0.1 \
    --secure-port="${KUBE_CONTROLLER_MANAGER_PORT}" \
    "${limits[@]}" "${extra[@]}"
  record_pid "${dir}" kube-controller-manager "${STARTED_PID}"
  wait_until kube-controller-manager "${STARTED_PID}" "${logfile}" kube_controller_manager_healthy
  log "kube-controller-manager (${controllers}) healthy on https://127.0.0.1:${KUBE_CONTROLLER_MANAGER_PORT} (pid ${STARTED_PID})"
}
