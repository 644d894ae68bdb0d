#!/usr/bin/env bash
# build.sh [--kube MINOR | --compat | --controller-manager] — build the pinned control-plane binaries once into the cache and print their paths.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "${HERE}/versions.env"

usage() {
  cat >&2 <<'EOF_USAGE'
usage: build.sh              etcd, kube-apiserver, kube-scheduler, kwok, helm at the pinned versions,
                             and kube-controller-manager (its own key: --controller-manager)
       build.sh --kube 1.35  kube-apiserver and kube-scheduler of the pinned 1.35.x (any pinned minor,
                             or its full tag v1.35.4); the main set's own for K8S_VERSION's minor
       build.sh --compat     --kube for every release in K8S_COMPAT_VERSIONS, one after the other
       build.sh --controller-manager
                             only kube-controller-manager of K8S_VERSION, in its own key
Prints KEY=path lines on stdout; progress goes to stderr. Cached builds return at once.
EOF_USAGE
  exit 2
}

MODE=main
KUBE_TAG=${K8S_VERSION}
case "${1:-}" in
  "") ;;
  --kube)
    [[ $# -eq 2 && -n "$2" ]] || usage
    KUBE_TAG=$(berth_e2e_kube_version "$2") ||
      { printf '[build] ERROR: Kubernetes %s is not pinned (K8S_VERSION=%s, K8S_COMPAT_VERSIONS=%s)\n' \
        "$2" "${K8S_VERSION}" "${K8S_COMPAT_VERSIONS}" >&2; exit 2; }
    [[ "${KUBE_TAG}" == "${K8S_VERSION}" ]] || MODE=kube
    ;;
  --compat)
    [[ $# -eq 1 ]] || usage
    for tag in ${K8S_COMPAT_VERSIONS}; do bash "${BASH_SOURCE[0]}" --kube "${tag}"; done
    exit 0
    ;;
  --controller-manager)
    [[ $# -eq 1 ]] || usage
    MODE=kcm
    ;;
  *) usage ;;
esac

if [[ "${MODE}" == main ]]; then
  BINARIES=(etcd kube-apiserver kube-scheduler kwok helm)
  KEY=${BERTH_E2E_KEY}
elif [[ "${MODE}" == kcm ]]; then
  BINARIES=(kube-controller-manager)
  KEY=${BERTH_E2E_KCM_KEY}
else
  BINARIES=(kube-apiserver kube-scheduler)
  KEY="k8s-${KUBE_TAG}_r${BUILD_RECIPE}"
fi
OUT_DIR="${BERTH_E2E_CACHE}/${KEY}"
BIN_DIR="${OUT_DIR}/bin"

# Print the binary paths on stdout as KEY=VALUE lines (everything else goes to stderr).
print_paths() {
  local b key
  if [[ "${MODE}" == main ]]; then
    echo "BERTH_E2E_BIN=${BIN_DIR}"
  fi
  echo "K8S_VERSION=${KUBE_TAG}"
  [[ "${MODE}" == kcm ]] || echo "BERTH_E2E_KUBE_BIN=${BIN_DIR}"
  for b in "${BINARIES[@]}"; do
    key=${b^^}
    echo "${key//-/_}=${BIN_DIR}/${b}"
  done
  if [[ "${MODE}" == main ]]; then
    echo "KUBE_CONTROLLER_MANAGER=${BERTH_E2E_KCM}"
  fi
}

# Print the paths and exit; the main set first builds kube-controller-manager (its own key, under the
# same lock, which this process must release first) if it is missing.
finish() {
  if [[ "${MODE}" == main && ! -x "${BERTH_E2E_KCM}" ]]; then
    exec 9>&-
    bash "${BASH_SOURCE[0]}" --controller-manager >/dev/null || exit 1
  fi
  print_paths
  exit 0
}

have_all() {
  local b
  for b in "${BINARIES[@]}"; do
    [[ -x "${BIN_DIR}/${b}" ]] || return 1
  done
}

# Fast path: everything for the pinned versions is already built.
if have_all; then
  finish
fi

log() { printf '[build] %s\n' "$*" >&2; }
die() { printf '[build] ERROR: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null || die "'go' is not on PATH; Go >= ${GO_MIN_VERSION} is needed to build the control plane"
GO_VERSION=$(go env GOVERSION)
if [[ "$(printf '%s\n' "go${GO_MIN_VERSION}" "${GO_VERSION}" | sort -V | head -n1)" != "go${GO_MIN_VERSION}" ]]; then
  die "${GO_VERSION} is too old: the pinned versions need Go >= ${GO_MIN_VERSION} (and GOTOOLCHAIN=local forbids switching)"
fi
mkdir -p "${BERTH_E2E_CACHE}"

# Serialise concurrent builds (e.g. parallel test workers); re-check once we hold the lock.
if command -v flock >/dev/null; then
  exec 9>"${BERTH_E2E_CACHE}/.build.lock"
  if ! flock -n 9; then
    log "another build.sh holds ${BERTH_E2E_CACHE}/.build.lock; waiting for it"
    flock 9
  fi
else
  log "flock not found (util-linux): not guarding against concurrent builds"
fi
if have_all; then
  finish
fi

# Leftovers of builds that were killed (we hold the lock, so none is running).
rm -rf "${BERTH_E2E_CACHE}"/.tmp-*

export CGO_ENABLED=0 GOTOOLCHAIN=local GOWORK=off GOFLAGS=
log "cache: ${OUT_DIR}"
log "toolchain: ${GO_VERSION}, GOMODCACHE=$(go env GOMODCACHE), GOCACHE=$(go env GOCACHE)"

STAGE=$(mktemp -d "${BERTH_E2E_CACHE}/.tmp-${KEY}.XXXXXX")
cleanup() { rm -rf "${STAGE}"; }
trap cleanup EXIT
mkdir -p "${STAGE}/bin" "${STAGE}/src"
chmod 755 "${STAGE}"

GOBUILD=(nice -n 10 go build -mod=mod -p 2 -trimpath)
T_ALL=${SECONDS}

in_dir() { (cd "$1" && shift && "$@"); }

step() { # step NAME CMD... : run a build step, timing it and failing clearly
  local name=$1 t0=${SECONDS}
  shift
  log "${name}: $*"
  "$@" >&2 || die "${name} failed (command: $*)"
  log "${name}: done in $((SECONDS - t0))s"
}

# --- kube-apiserver, kube-scheduler, kube-controller-manager: wrapper module around k8s.io/kubernetes
# build_kubernetes TAG COMMAND...: builds k8s.io/kubernetes/cmd/COMMAND of TAG for each COMMAND.
build_kubernetes() {
  local tag=$1 dir="${STAGE}/src/kubernetes" gomod staging stage_ver minor info_time ldflags=() pkg cmds=()
  shift
  for pkg in "$@"; do cmds+=("k8s.io/kubernetes/cmd/${pkg}"); done
  mkdir -p "${dir}"
  stage_ver="v0.${tag#v1.}"           # v1.37.2 -> v0.37.2
  minor=${tag#v1.}; minor=${minor%%.*} # v1.37.2 -> 37
  log "kubernetes ${tag}: reading the tag's go.mod"
  gomod=$(cd "${dir}" && go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@${tag}") ||
    die "cannot resolve k8s.io/kubernetes@${tag} through the Go module proxy"
  [[ -f "${gomod}" ]] || die "go.mod of k8s.io/kubernetes@${tag} not found (got '${gomod}')"
  # Staging modules: lines 'k8s.io/NAME => ./staging/src/k8s.io/NAME' (block or single-line replace).
  staging=$(awk '$1 == "replace" { $1 = ""; $0 = $0 } $2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "${gomod}")
  [[ -n "${staging}" ]] || die "no './staging/' replace directives found in ${gomod}"
  log "kubernetes: $(wc -w <<<"${staging}") staging modules -> ${stage_ver}"
  {
    echo "// Generated by berth test/e2e/cluster/build.sh: builds k8s.io/kubernetes ${tag} commands."
    echo "module berth.local/e2e/kubernetes"
    echo
    grep -E '^go [0-9]' "${gomod}"
    echo
    # godebug: single line or block, copied verbatim.
    awk '/^godebug \(/ { blk = 1 } blk || /^godebug / { print } blk && /^\)/ { blk = 0 }' "${gomod}"
    echo
    echo "require k8s.io/kubernetes ${tag}"
    echo
    echo "replace ("
    local m
    for m in ${staging}; do
      printf '\t%s => %s %s\n' "${m}" "${m}" "${stage_ver}"
    done
    echo ")"
  } >"${dir}/go.mod"
  step "kubernetes: resolve dependencies" \
    in_dir "${dir}" go get "${cmds[@]/%/@${tag}}"
  info_time=$(cd "${dir}" && go list -m -f '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)
  # The version kube reports, and the binary version its --emulated-version is checked against.
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=("-X ${pkg}.gitVersion=${tag}" "-X ${pkg}.gitMajor=1" "-X ${pkg}.gitMinor=${minor}"
      "-X ${pkg}.gitTreeState=clean" "-X ${pkg}.buildDate=${info_time:-1970-01-01T00:00:00Z}")
  done
  step "kubernetes: build $*" \
    in_dir "${dir}" "${GOBUILD[@]}" -tags=selinux,notest,grpcnotrace \
    -ldflags "-s -w ${ldflags[*]}" -o "${STAGE}/bin/" "${cmds[@]}"
}

# --- etcd: wrapper module around go.etcd.io/etcd/server/v3 (its go.mod has replace directives) ---
build_etcd() {
  local dir="${STAGE}/src/etcd"
  mkdir -p "${dir}"
  printf '// Generated by berth test/e2e/cluster/build.sh: builds etcd %s.\nmodule berth.local/e2e/etcd\n\ngo 1.24\n' \
    "${ETCD_VERSION}" >"${dir}/go.mod"
  step "etcd: resolve dependencies" \
    in_dir "${dir}" go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
  step "etcd: build" \
    in_dir "${dir}" "${GOBUILD[@]}" -ldflags "-s -w" \
    -o "${STAGE}/bin/etcd" go.etcd.io/etcd/server/v3
}

# --- kwok and helm: plain 'go install pkg@version' (no replace directives) ---------------------
build_kwok() {
  step "kwok: build" env GOBIN="${STAGE}/bin" nice -n 10 go install -p 2 -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${K8S_VERSION}" \
    "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
}

build_helm() {
  local major=${HELM_VERSION%%.*} minor=${K8S_VERSION#v1.} x=() p mod
  minor=${minor%%.*}
  mod="helm.sh/helm/${major}" # v3.x -> helm.sh/helm/v3, v4.x -> helm.sh/helm/v4
  if [[ "${major}" == v3 ]]; then
    # helm 3's default capabilities (template/lint without a cluster) come from ldflags: the pinned minor.
    for p in "${mod}/pkg/lint/rules" "${mod}/pkg/chartutil"; do
      x+=("-X ${p}.k8sVersionMajor=1" "-X ${p}.k8sVersionMinor=${minor}")
    done
  fi
  # helm 4 reads them from the k8s.io/client-go version in its build info (v4.3.1: client-go v0.37 -> 1.37).
  step "helm: build" env GOBIN="${STAGE}/bin" nice -n 10 go install -p 2 -trimpath \
    -ldflags "-s -w -X ${mod}/internal/version.version=${HELM_VERSION} -X ${mod}/internal/version.gitTreeState=clean ${x[*]}" \
    "${mod}/cmd/helm@${HELM_VERSION}"
}

if [[ "${MODE}" == main ]]; then
  log "building ${BINARIES[*]} (k8s ${K8S_VERSION}, etcd ${ETCD_VERSION}, kwok ${KWOK_VERSION}, helm ${HELM_VERSION}); a cold build takes a long time on 2 cores"
  build_kubernetes "${K8S_VERSION}" kube-apiserver kube-scheduler
  build_etcd
  build_kwok
  build_helm
elif [[ "${MODE}" == kcm ]]; then
  log "building kube-controller-manager of k8s ${K8S_VERSION}; it shares most packages with kube-apiserver (Go's build cache)"
  build_kubernetes "${K8S_VERSION}" kube-controller-manager
else
  log "building ${BINARIES[*]} of k8s ${KUBE_TAG} (compatibility release); a cold build takes several minutes on 2 cores"
  build_kubernetes "${KUBE_TAG}" kube-apiserver kube-scheduler
fi

for b in "${BINARIES[@]}"; do
  [[ -x "${STAGE}/bin/${b}" ]] || die "build finished but ${b} is missing from ${STAGE}/bin"
done
{
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) with ${GO_VERSION} in $((SECONDS - T_ALL))s"
  (cd "${STAGE}/bin" && ls -l "${BINARIES[@]}")
} >"${STAGE}/BUILD-INFO"

# Move into place atomically (rename of a directory); drop any incomplete leftover first.
rm -rf "${OUT_DIR}"
mv "${STAGE}" "${OUT_DIR}"
trap - EXIT
log "finished in $((SECONDS - T_ALL))s; sizes:"
for b in "${BINARIES[@]}"; do
  printf '[build]   %-23s %4d MiB\n' "${b}" "$(($(stat -c %s "${BIN_DIR}/${b}") / 1048576))" >&2
done
finish
