// Runs a manifest fixture of test/fixtures on the simulated cluster, as `berth simulate --cluster` does (seed 1, 5 ms binds, none failing).
import { readFileSync } from 'node:fs';
import { admit, manifestInput } from '../../src/adapters/sim/admission.ts';
import { parseManifests } from '../../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { simulate } from '../../src/runtime/simulate.ts';

/** The run of fixture `name` (a file in test/fixtures) with the default configuration. */
export function simulateFixture(name: string) {
  const text = readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
  const { nodes, pods, objects } = admit([manifestInput(parseManifests(text, name))]);
  return simulate({
    nodes,
    pods,
    objects,
    seed: 1,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
  });
}
