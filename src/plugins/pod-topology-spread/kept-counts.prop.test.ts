// PodTopologySpread reading the snapshot's kept counts decides as counting every node's pods afresh.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePod } from '../../../test/support/builders.ts';
import { initialState, reduce } from '../../cluster/reducer.ts';
import type { PodLabelSelector, SpreadConstraint } from '../../cluster/spread-constraints.ts';
import type { ClusterSnapshot, ClusterState } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import { computePreFilterState } from './filtering.ts';
import { computePreScoreState, scoreNode } from './scoring.ts';

const host = 'kubernetes.io/hostname';
const nodes = ['n0', 'n1', 'n2', 'n3'];

const nodeArb = fc.record({
  zone: fc.constantFrom('z1', 'z2', '', undefined),
  live: fc.constantFrom(true, true, true, false),
});
/** Mostly false: most pods count, so counts differ when a check is missing. */
const rarely = fc.constantFrom(false, false, false, true);
const podArb = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  app: fc.constantFrom('web', 'db', undefined),
  node: fc.constantFrom(...nodes, undefined),
  terminating: rarely,
  deleted: rarely,
});
const selectorArb: fc.Arbitrary<PodLabelSelector> = fc.constantFrom<PodLabelSelector>(
  { nothing: false, requirements: [{ key: 'app', operator: 'In', values: ['web'] }] },
  { nothing: false, requirements: [{ key: 'app', operator: 'Exists', values: [] }] },
  { nothing: false, requirements: [] },
  { nothing: true, requirements: [] },
);
const constraintArb: fc.Arbitrary<SpreadConstraint> = fc.record({
  maxSkew: fc.integer({ min: 1, max: 3 }),
  topologyKey: fc.constantFrom('zone', host),
  selector: selectorArb,
  minDomains: fc.integer({ min: 1, max: 3 }),
  nodeAffinityPolicy: fc.constantFrom('Honor' as const, 'Ignore' as const),
  nodeTaintsPolicy: fc.constantFrom('Honor' as const, 'Ignore' as const),
});

let seq = 0;
const apply = (state: ClusterState, event: unknown) =>
  reduce(state, { seq: ++seq, time: 0, event: event as BerthEvent } as never);

/** Nodes (some deleted afterwards, keeping their pods' charges as absent nodes) and pods. */
function stateOf(spec: Spec): ClusterState {
  const state = initialState();
  spec.nodes.forEach((n, i) => {
    const labels: Record<string, string> = { [host]: nodes[i] as string };
    if (n.zone !== undefined) labels.zone = n.zone;
    apply(state, {
      type: 'NodeUpserted',
      node: {
        metadata: { name: nodes[i], labels },
        status: { allocatable: { cpu: '4', memory: '8Gi', pods: '20' } },
      },
    });
  });
  spec.pods.forEach((p, i) => {
    const metadata = {
      name: `p${i}`,
      namespace: p.namespace,
      uid: `u${i}`,
      ...(p.app === undefined ? {} : { labels: { app: p.app } }),
      ...(p.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    };
    const spec = { containers: [{ name: 'c' }], ...(p.node ? { nodeName: p.node } : {}) };
    apply(state, { type: 'PodUpserted', pod: { metadata, spec, status: { phase: 'Running' } } });
  });
  spec.pods.forEach((p, i) => {
    if (p.deleted) apply(state, { type: 'PodDeleted', uid: `u${i}`, key: `${p.namespace}/p${i}` });
  });
  spec.nodes.forEach((n, i) => {
    if (!n.live) apply(state, { type: 'NodeDeleted', name: nodes[i] });
  });
  return state;
}

interface Spec {
  nodes: { zone: string | undefined; live: boolean }[];
  pods: {
    namespace: string;
    app: string | undefined;
    node: string | undefined;
    terminating: boolean;
    deleted: boolean;
  }[];
}

/** The same nodes and indexes as a plain object: the plugin counts every node's pods. */
function handBuilt(state: ClusterState): ClusterSnapshot {
  const { nodes, nodeOrder, nodeIndex, topology, nominated, imageStates, objects } = state;
  return { nodes, nodeOrder, nodeIndex, topology, nominated, imageStates, objects };
}

const specArb = fc.record({
  nodes: fc.array(nodeArb, { minLength: 4, maxLength: 4 }),
  pods: fc.array(podArb, { minLength: 1, maxLength: 16 }),
});

describe('PodTopologySpread with the kept counts', () => {
  it('PreFilter, PreScore and Score equal counting every node afresh', () => {
    fc.assert(
      fc.property(
        specArb,
        fc.array(constraintArb, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('a', 'b'),
        fc.boolean(),
        (spec, constraints, namespace, requireAll) => {
          const state = stateOf(spec);
          // Twice: the second query reads the entries the first one built.
          for (let round = 0; round < 2; round++) {
            const pod = makePod({ namespace, labels: { app: 'web' } });
            const plain = handBuilt(state);
            const pf = computePreFilterState(pod, constraints, state);
            const pfAfresh = computePreFilterState(pod, constraints, plain);
            expect(pf.counts.map((m) => [...m])).toEqual(pfAfresh.counts.map((m) => [...m]));
            expect(pf.minMatch).toEqual(pfAfresh.minMatch);
            const live = state.nodeOrder;
            const ps = computePreScoreState(pod, constraints, state, live, requireAll);
            const psAfresh = computePreScoreState(pod, constraints, plain, live, requireAll);
            expect(ps.counts.map((m) => [...m])).toEqual(psAfresh.counts.map((m) => [...m]));
            for (const node of live)
              expect(scoreNode(ps, pod, node)).toBe(scoreNode(psAfresh, pod, node));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
