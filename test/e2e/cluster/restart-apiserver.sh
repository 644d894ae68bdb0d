#!/usr/bin/env bash
# restart-apiserver.sh DIR — stop (if running) and start again the kube-apiserver of the cluster in DIR, same port and etcd.
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/up.sh" --restart-apiserver "$@"
