// Property tests of the cluster reducer: total on junk, charges always consistent, nothing leaks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absentNodes } from '../../src/cluster/charges.ts';
import { checkClusterInvariants } from '../../src/cluster/invariants.ts';
import type { NodeObject, PodObject } from '../../src/cluster/objects.ts';
import { evolve, initialState } from '../../src/cluster/reducer.ts';
import type { ClusterState } from '../../src/cluster/types.ts';
import type { BerthEvent, Envelope } from '../../src/events/types.ts';

const EVENT_TYPES = [
  'NodeUpserted',
  'NodeDeleted',
  'PodUpserted',
  'PodDeleted',
  'ResyncStarted',
  'ResyncDone',
  'BindSucceeded',
  'BindFailed',
  'TimerFired',
  'PodAssumed',
  'PodUnschedulable',
] as const;

const nodeName = fc.constantFrom('n0', 'n1', 'n2', 'n3');
const podName = fc.constantFrom('p0', 'p1', 'p2', 'p3', 'p4', 'p5');
const podKey = podName.map((n) => `default/${n}`);
const kind = fc.constantFrom('Node' as const, 'Pod' as const);
const quantity = fc.oneof(
  fc.constantFrom('100m', '1', '0.5', '2Gi', '512Mi', '1e3', '1.5', '0', 'abc', '-1', '3k'),
  fc.integer({ min: 0, max: 5000 }),
);
const requests = fc.record(
  { cpu: quantity, memory: quantity, 'nvidia.com/gpu': quantity },
  { requiredKeys: [] },
);
const container = fc.record(
  {
    resources: fc.record({ requests, limits: requests }, { requiredKeys: [] }),
    restartPolicy: fc.constantFrom('Always', 'OnFailure'),
  },
  { requiredKeys: [] },
);

/** Pods as the API would send them, with a few unparsable quantities mixed in. */
const pod: fc.Arbitrary<PodObject> = fc
  .record({
    name: podName,
    nodeName: fc.option(nodeName, { nil: undefined }),
    phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed'),
    terminating: fc.boolean(),
    containers: fc.array(container, { maxLength: 3 }),
    initContainers: fc.array(container, { maxLength: 3 }),
    overhead: fc.option(requests, { nil: undefined }),
  })
  .map((p) => {
    const obj: PodObject = {
      metadata: { name: p.name, namespace: 'default' },
      spec: { containers: p.containers, initContainers: p.initContainers },
      status: { phase: p.phase },
    };
    if (p.terminating) obj.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    if (p.nodeName !== undefined) obj.spec.nodeName = p.nodeName;
    if (p.overhead !== undefined) obj.spec.overhead = p.overhead;
    return obj;
  });

const node: fc.Arbitrary<NodeObject> = fc
  .record({ name: nodeName, allocatable: requests })
  .map(({ name, allocatable }) => ({ metadata: { name }, status: { allocatable } }));

/** Events drawn from a small world so that they collide: same pods, same nodes. */
const validEvent: fc.Arbitrary<BerthEvent> = fc.oneof(
  { weight: 3, arbitrary: node.map((n) => ({ type: 'NodeUpserted' as const, node: n })) },
  nodeName.map((name) => ({ type: 'NodeDeleted' as const, name })),
  { weight: 5, arbitrary: pod.map((p) => ({ type: 'PodUpserted' as const, pod: p })) },
  { weight: 2, arbitrary: podKey.map((key) => ({ type: 'PodDeleted' as const, key })) },
  kind.map((k) => ({ type: 'ResyncStarted' as const, kind: k })),
  kind.map((k) => ({ type: 'ResyncDone' as const, kind: k })),
  {
    weight: 3,
    arbitrary: fc
      .tuple(podKey, nodeName)
      .map(([key, n]) => ({ type: 'PodAssumed' as const, key, node: n })),
  },
  fc.tuple(podKey, nodeName).map(([key, n]) => ({
    type: 'BindFailed' as const,
    key,
    node: n,
    reason: 'Conflict' as const,
    message: 'conflict',
  })),
  fc.tuple(podKey, nodeName).map(([key, n]) => ({ type: 'BindSucceeded' as const, key, node: n })),
);

/** Event-shaped junk: a known or unknown type with arbitrary values in every field. */
const junkEvent = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...EVENT_TYPES), fc.string(), fc.anything()),
    node: fc.oneof(fc.anything(), node, nodeName),
    pod: fc.oneof(fc.anything(), pod),
    name: fc.oneof(fc.anything(), nodeName),
    key: fc.oneof(fc.anything(), podKey),
    kind: fc.oneof(fc.anything(), kind),
  },
  { requiredKeys: ['type'] },
);

/** A pod or node whose fields are, at any depth, sometimes replaced by arbitrary values. */
const junkObject = fc.oneof(
  fc.anything(),
  fc.record({
    metadata: fc.oneof(
      fc.record({ name: fc.oneof(podName, fc.anything()), labels: fc.anything() }),
      fc.anything(),
    ),
    spec: fc.oneof(
      fc.record({
        nodeName: fc.oneof(nodeName, fc.anything()),
        containers: fc.oneof(fc.array(fc.oneof(container, fc.anything())), fc.anything()),
        affinity: fc.anything(),
        tolerations: fc.anything(),
        taints: fc.anything(),
        nodeSelector: fc.anything(),
        priority: fc.anything(),
      }),
      fc.anything(),
    ),
    status: fc.oneof(
      fc.record({ phase: fc.anything(), allocatable: fc.anything(), capacity: fc.anything() }),
      fc.anything(),
    ),
  }),
);

function fold(events: unknown[]): ClusterState {
  const state = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event } as Envelope);
  });
  return state;
}

function internalErrors(state: ClusterState): string[] {
  return state.rejected.filter((r) => r.reason.startsWith('internal error')).map((r) => r.reason);
}

describe('evolve is total', () => {
  it('never throws on arbitrary objects inside node and pod events', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            junkObject.map((n) => ({ type: 'NodeUpserted', node: n })),
            junkObject.map((p) => ({ type: 'PodUpserted', pod: p })),
            validEvent,
          ),
          { maxLength: 30 },
        ),
        (events) => {
          const state = fold(events);
          expect(internalErrors(state)).toEqual([]);
          expect(checkClusterInvariants(state)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on event-shaped junk or junk envelopes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(junkEvent, validEvent, fc.anything()), { maxLength: 30 }),
        fc.anything(),
        (events, envelope) => {
          const state = fold(events);
          expect(evolve(state, envelope as Envelope)).toBe(state);
          expect(internalErrors(state)).toEqual([]);
          expect(checkClusterInvariants(state)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('evolve keeps charges consistent', () => {
  it('after every event, each node holds exactly the sums of the pods charged to it', () => {
    fc.assert(
      fc.property(fc.array(validEvent, { maxLength: 60 }), (events) => {
        const state = initialState();
        events.forEach((event, i) => {
          evolve(state, { seq: i + 1, time: i, event });
          const broken = checkClusterInvariants(state);
          if (broken.length > 0) {
            throw new Error(`after event ${i} (${event.type}): ${broken.join('; ')}`);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('leaves no charge behind once every pod and node is deleted', () => {
    fc.assert(
      fc.property(fc.array(validEvent, { maxLength: 60 }), fc.boolean(), (events, byRelist) => {
        const state = fold(events);
        const cleanup: BerthEvent[] = byRelist
          ? [
              { type: 'ResyncStarted', kind: 'Pod' },
              { type: 'ResyncDone', kind: 'Pod' },
            ]
          : [...state.pods.keys()].map((key) => ({ type: 'PodDeleted', key }));
        for (const event of cleanup) evolve(state, { seq: 0, time: 0, event });
        for (const n of state.nodes.values()) {
          expect(n.pods.size).toBe(0);
          expect(n.requested).toEqual({ milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: {} });
          expect(n.nonZeroRequested).toEqual({ milliCPU: 0, memory: 0 });
        }
        for (const name of state.nodeOrder.map((n) => n.name)) {
          evolve(state, { seq: 0, time: 0, event: { type: 'NodeDeleted', name } });
        }
        expect(state.pods.size).toBe(0);
        expect(state.nodes.size).toBe(0);
        expect(state.nodeOrder).toEqual([]);
        expect(state.nodeIndex.size).toBe(0);
        expect(absentNodes(state).size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
