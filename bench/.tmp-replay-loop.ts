import { performance } from 'node:perf_hooks';
import { generateWorkload } from '../src/adapters/sim/workload.ts';
import { openLogFile } from '../src/cli/log-file.ts';
import { defaultConfig } from '../src/core/config.ts';
import { replayLogFile } from '../src/runtime/replay-file.ts';
import { simulate } from '../src/runtime/simulate.ts';
const [nodes, pods, rate, runs] = process.argv.slice(2).map(Number);
const path = `/tmp/prof/loop-${nodes}-${pods}-${rate}.jsonl`;
const w = generateWorkload(nodes, pods, 42);
const log = openLogFile(path);
simulate({ nodes: w.nodes, pods: w.pods, seed: 7, config: defaultConfig, bindLatencyMs: 5, bindFailureRate: rate, record: log.sink });
log.close();
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const r = replayLogFile(path);
  const ms = performance.now() - t;
  console.log(`run ${i}: ${r.lastSeq} events ${ms.toFixed(0)} ms ${Math.round(r.lastSeq / ms)}k/s matches=${r.matches}`);
}
