// The spreading counts kept by the charges always equal a count afresh from the pod records, after any event sequence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BerthEvent } from '../events/types.ts';
import { initialState, reduce } from './reducer.ts';
import { restoreClusterState, serializeClusterState } from './serialize.ts';
import {
  type LabelRequirement,
  type PodLabelSelector,
  selectorMatches,
} from './spread-constraints.ts';
import { type SpreadCounts, spreadCountsOf } from './spread-counts.ts';
import type { ClusterState } from './types.ts';

const nodeName = fc.constantFrom('n0', 'n1', 'n2');
const podName = fc.constantFrom('p0', 'p1', 'p2', 'p3', 'p4');
const namespace = fc.constantFrom('a', 'b');
const app = fc.constantFrom('web', 'db', undefined);

type Step =
  | { op: 'node'; name: string; zone: string }
  | { op: 'deleteNode'; name: string }
  | {
      op: 'pod';
      name: string;
      namespace: string;
      app: string | undefined;
      node: string | undefined;
      terminating: boolean;
      phase: 'Running' | 'Succeeded' | 'Pending';
      recreated: boolean;
    }
  | { op: 'deletePod'; name: string; namespace: string }
  | { op: 'reserve' | 'unreserve'; name: string; namespace: string; node: string }
  | { op: 'restore' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('node' as const),
    name: nodeName,
    zone: fc.constantFrom('z1', 'z2'),
  }),
  fc.record({ op: fc.constant('deleteNode' as const), name: nodeName }),
  fc.record({
    op: fc.constant('pod' as const),
    name: podName,
    namespace,
    app,
    node: fc.option(fc.constantFrom('n0', 'n1', 'n2', 'gone'), { nil: undefined }),
    terminating: fc.boolean(),
    phase: fc.constantFrom('Running' as const, 'Succeeded' as const, 'Pending' as const),
    recreated: fc.boolean(),
  }),
  fc.record({ op: fc.constant('deletePod' as const), name: podName, namespace }),
  fc.record({
    op: fc.constantFrom('reserve' as const, 'unreserve' as const),
    name: podName,
    namespace,
    node: nodeName,
  }),
  fc.constant({ op: 'restore' as const }),
);

let seq = 0;
const apply = (state: ClusterState, event: unknown) =>
  reduce(state, { seq: ++seq, time: 0, event: event as BerthEvent } as never);

function run(state: ClusterState, s: Step): ClusterState {
  switch (s.op) {
    case 'node':
      apply(state, {
        type: 'NodeUpserted',
        node: {
          metadata: { name: s.name, labels: { zone: s.zone } },
          status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } },
        },
      });
      return state;
    case 'deleteNode':
      apply(state, { type: 'NodeDeleted', name: s.name });
      return state;
    case 'pod':
      apply(state, {
        type: 'PodUpserted',
        pod: {
          metadata: {
            name: s.name,
            namespace: s.namespace,
            uid: `${s.namespace}-${s.name}${s.recreated ? '-2' : ''}`,
            ...(s.app === undefined ? {} : { labels: { app: s.app } }),
            ...(s.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
          },
          spec: {
            containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }],
            ...(s.node === undefined ? {} : { nodeName: s.node }),
          },
          status: { phase: s.phase },
        },
      });
      return state;
    case 'deletePod': {
      const key = `${s.namespace}/${s.name}`;
      const uid = state.podUids.get(key);
      if (uid !== undefined) apply(state, { type: 'PodDeleted', uid, key });
      return state;
    }
    case 'reserve':
    case 'unreserve': {
      const key = `${s.namespace}/${s.name}`;
      const uid = state.podUids.get(key) ?? 'none';
      const type = s.op === 'reserve' ? 'PodReserved' : 'PodUnreserved';
      apply(state, { type, uid, key, attempt: 1, node: s.node, reason: 'test' });
      return state;
    }
    case 'restore':
      return restoreClusterState(JSON.parse(JSON.stringify(serializeClusterState(state))));
  }
}

const req = (operator: LabelRequirement['operator'], values: string[] = []): PodLabelSelector => ({
  nothing: false,
  requirements: [{ key: 'app', operator, values }],
});
/** The selectors queried: each is asked for in both namespaces. */
const selectors: PodLabelSelector[] = [
  req('In', ['web']),
  req('Exists'),
  req('NotIn', ['db']),
  req('DoesNotExist'),
];

/** The oracle: from the pod records (not the nodes' pod maps), counted pods per charged node. */
function afresh(state: ClusterState, ns: string, sel: PodLabelSelector): Map<string, number> {
  const out = new Map<string, number>();
  for (const { info, charge } of state.pods.values()) {
    if (charge.kind === 'none' || info.terminating || info.namespace !== ns) continue;
    if (!selectorMatches(sel, info.labels)) continue;
    out.set(charge.node, (out.get(charge.node) ?? 0) + 1);
  }
  return out;
}

const sorted = (m: ReadonlyMap<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

describe('spreading counts kept by the charges', () => {
  it('equal a count afresh after every event, the entries kept (not rebuilt) between restores', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.integer({ min: 0, max: 5 }),
        (steps, firstQuery) => {
          let state = initialState();
          let held = new Map<string, SpreadCounts>();
          steps.forEach((s, i) => {
            state = run(state, s);
            if (s.op === 'restore') held = new Map();
            if (i < firstQuery) return; // the entries are first built on a populated state
            for (const ns of ['a', 'b'])
              selectors.forEach((sel, j) => {
                const counts = spreadCountsOf(state, ns, sel);
                expect(counts).toBeDefined();
                const c = counts as SpreadCounts;
                expect(sorted(c.perNode)).toEqual(sorted(afresh(state, ns, sel)));
                expect(c.kept).toBe(true);
                const before = held.get(`${ns}/${j}`);
                if (before !== undefined) expect(c).toBe(before);
                held.set(`${ns}/${j}`, c);
              });
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are not kept for an empty or Nothing selector, nor for a hand-built snapshot', () => {
    const state = initialState();
    expect(spreadCountsOf(state, 'a', { nothing: true, requirements: [] })).toBeUndefined();
    expect(spreadCountsOf(state, 'a', { nothing: false, requirements: [] })).toBeUndefined();
    const { nodes, nodeOrder, nodeIndex, topology, nominated, imageStates, objects } = state;
    const handBuilt = { nodes, nodeOrder, nodeIndex, topology, nominated, imageStates, objects };
    expect(spreadCountsOf(handBuilt, 'a', selectors[0] as PodLabelSelector)).toBeUndefined();
  });
});
