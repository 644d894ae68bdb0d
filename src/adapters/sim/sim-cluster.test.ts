// Pins what the simulated API server serves on a relist: object kinds first, then nodes and pods.
import { describe, expect, it } from 'vitest';
import { nodeObject } from '../../../test/support/objects.ts';
import type { InputEvent } from '../../events/types.ts';
import { seededRng } from '../../framework/rng.ts';
import { SimCluster } from './sim-cluster.ts';

describe('SimCluster relist', () => {
  it('serves the watched object kinds, trimmed, before nodes and pods, one relist per kind', () => {
    const sim = new SimCluster({
      nodes: [nodeObject('n1')],
      pods: [],
      objects: [
        {
          kind: 'Service',
          object: {
            kind: 'Service',
            metadata: { name: 'web', namespace: 'a' },
            spec: { selector: { app: 'web' }, ports: [] },
          },
          origin: 'f: document 2',
        },
        {
          kind: 'Namespace',
          object: { kind: 'Namespace', metadata: { name: 'a', labels: { env: 'x' } } },
          origin: 'f: document 1',
        },
      ],
      timers: { now: () => 0, schedule: () => {} },
      bindLatencyMs: 1,
      bindFailureRate: 0,
      rng: seededRng(1),
    });
    const seen: InputEvent[] = [];
    sim.events$.subscribe((e) => seen.push(e));
    sim.start();
    expect(seen.map((e) => `${e.type} ${'kind' in e ? e.kind : ''}`.trim())).toEqual([
      'ResyncStarted Namespace',
      'ObjectUpserted Namespace',
      'ResyncDone Namespace',
      'ResyncStarted Service',
      'ObjectUpserted Service',
      'ResyncDone Service',
      'ResyncStarted Node',
      'NodeUpserted',
      'ResyncDone Node',
      'ResyncStarted Pod',
      'ResyncDone Pod',
    ]);
    expect(seen[4]).toEqual({
      type: 'ObjectUpserted',
      kind: 'Service',
      object: { metadata: { name: 'web', namespace: 'a' }, spec: { selector: { app: 'web' } } },
    });
  });
});
