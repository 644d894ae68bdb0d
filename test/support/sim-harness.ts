// A simulated cluster on a manual clock, recording what it emits: for tests of the sim's API server and controllers.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import { SimCluster } from '../../src/adapters/sim/sim-cluster.ts';
import type { InputEvent } from '../../src/events/types.ts';
import { seededRng } from '../../src/framework/rng.ts';
import type { PodObject } from '../../src/model/objects.ts';
import { nodeObject } from './objects.ts';

/** What {@link manualSim} builds the cluster from. */
export interface ManualSimOptions {
  pods?: PodObject[];
  objects?: ManifestObject[];
  bindLatencyMs?: number;
}

/**
 * A sim with nodes n1 and n2 on a manual clock starting at 1,000,000 ms: `advance(ms)` fires
 * what is due, in deadline then scheduling order; `seen` holds every event emitted.
 */
export function manualSim(o: ManualSimOptions = {}) {
  let now = 1_000_000;
  const due: { at: number; n: number; fire: () => void }[] = [];
  let scheduled = 0;
  const sim = new SimCluster({
    nodes: [nodeObject('n1'), nodeObject('n2')],
    pods: o.pods ?? [],
    ...(o.objects === undefined ? {} : { objects: o.objects }),
    timers: {
      now: () => now,
      schedule: (at, fire) => void due.push({ at, n: scheduled++, fire }),
    },
    bindLatencyMs: o.bindLatencyMs ?? 5,
    bindFailureRate: 0,
    rng: seededRng(1),
  });
  const seen: InputEvent[] = [];
  sim.events$.subscribe((e) => seen.push(e));
  const advance = (ms: number) => {
    now += ms;
    for (;;) {
      due.sort((a, b) => a.at - b.at || a.n - b.n);
      const next = due[0];
      if (next === undefined || next.at > now) return;
      due.shift();
      next.fire();
    }
  };
  const uidOf = (name: string) =>
    sim.podObjects().find((p) => p.metadata.name === name)?.metadata.uid as string;
  return { sim, seen, advance, uidOf };
}
