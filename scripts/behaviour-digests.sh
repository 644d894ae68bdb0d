#!/usr/bin/env bash
# Prints the decision digest of 20 seeded `berth simulate` runs, to compare two builds' behaviour line by line.
# Usage: scripts/behaviour-digests.sh [path/to/berth.js [SIMULATE_FLAG...]]   (default: this checkout's bin/berth.js, built)
# Flags after the path go to every run, e.g. `--emulated-version 1.34` to compare two builds at one release.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
berth="${1:-$here/bin/berth.js}"
shift || true
extra=("$@")
fixtures="$here/test/fixtures"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# Each run: a name and its arguments. Seeds 1-20; generated workloads, failures, and the feature fixtures.
runs=(
  "demo-s1|--seed 1"
  "demo-s2|--seed 2 --bind-failure-rate 0.3"
  "gen-s3|--nodes 20 --pods 100 --seed 3"
  "gen-s4|--nodes 50 --pods 400 --seed 4"
  "gen-s5|--nodes 10 --pods 300 --seed 5"
  "gen-s6|--nodes 100 --pods 1000 --seed 6"
  "gen-fail-s7|--nodes 30 --pods 200 --seed 7 --bind-failure-rate 0.2"
  "gen-fail-s8|--nodes 5 --pods 120 --seed 8 --bind-failure-rate 0.5"
  "gen-latency-s9|--nodes 40 --pods 300 --seed 9 --bind-latency-ms 50"
  "gen-s10|--nodes 3 --pods 60 --seed 10"
  "preemption-s11|--cluster $fixtures/preemption.yaml --seed 11"
  "preemption-fail-s12|--cluster $fixtures/preemption.yaml --seed 12 --bind-failure-rate 0.3"
  "gang-s13|--cluster $fixtures/gang.yaml --seed 13"
  "gang-fail-s14|--cluster $fixtures/gang.yaml --seed 14 --bind-failure-rate 0.3"
  "gated-s15|--cluster $fixtures/gated-unsupported.yaml --seed 15"
  "filters-s16|--cluster $fixtures/kube-filters.yaml --seed 16"
  "filters-gen-s17|--cluster $fixtures/kube-filters.yaml --nodes 20 --pods 150 --seed 17"
  "admission-s18|--cluster $fixtures/admission.yaml --seed 18"
  "protocol-s19|--cluster $fixtures/protocol-regressions.yaml --seed 19"
  "gen-s20|--nodes 200 --pods 2000 --seed 20 --bind-failure-rate 0.05"
)
for run in "${runs[@]}"; do
  name="${run%%|*}"
  # shellcheck disable=SC2086
  node "$berth" simulate ${run#*|} ${extra[@]+"${extra[@]}"} --record "$out/$name.jsonl" --json >/dev/null 2>"$out/$name.err" ||
    { echo "$name: simulate failed: $(tail -1 "$out/$name.err")"; continue; }
  echo "$name $(tail -1 "$out/$name.jsonl")"
done
