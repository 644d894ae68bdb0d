#!/usr/bin/env bash
# Runs the in-process benches of two checkouts alternately in one sitting (A, B, A, B, ...) and keeps every run's output.
# Usage: bench/ab-sitting.sh A_DIR B_DIR OUT_DIR [RUNS]   (each DIR a checkout with node_modules; RUNS default 3)
set -uo pipefail
a="$1"; b="$2"; out="$3"; runs="${4:-3}"
mkdir -p "$out"
run() { # run LABEL DIR BENCH ARGS...
  local label="$1" dir="$2" bench="$3"; shift 3
  local file="$out/$bench-$label.txt"
  echo "## $(date -u +%FT%TZ) $label $(git -C "$dir" rev-parse --short HEAD)" >>"$file"
  (cd "$dir" && npx tsx "bench/$bench.bench.ts" "$@") >>"$file" 2>&1
}
for i in $(seq 1 "$runs"); do
  for bench in scheduling replay; do
    run A "$a" "$bench" --runs 1
    run B "$b" "$bench" --runs 1
  done
done
for bench in preemption gang; do
  run A "$a" "$bench"
  run B "$b" "$bench"
done
echo "done: $out"
