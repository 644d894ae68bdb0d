// Property tests of the cluster reducer: total on junk, consistent, and in step with a reference model of charges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkClusterInvariants } from '../../src/cluster/invariants.ts';
import { evolve, initialState } from '../../src/cluster/reducer.ts';
import type { Charge, ClusterState } from '../../src/cluster/types.ts';
import {
  type BerthEvent,
  decisionEventTypes,
  type Envelope,
  inputEventTypes,
  type ResourceKind,
} from '../../src/events/types.ts';
import type { NodeObject, PodObject } from '../../src/model/objects.ts';
import { berthPodModel } from '../support/generators.ts';
import { demandOf } from '../support/oracles.ts';
import { GPU, type PodModel, podObject } from '../support/run-models.ts';

const EVENT_TYPES = [...inputEventTypes, ...decisionEventTypes];

// A small world so that events collide: four uids over two names (recreations), two nodes.
const NODES = ['n0', 'n1'] as const;
const UIDS = ['u0', 'u1', 'u2', 'u3'] as const;
const keyOf = (uid: string) => `default/p${UIDS.indexOf(uid as (typeof UIDS)[number]) % 2}`;
const nodeName = fc.constantFrom(...NODES);
const uid = fc.constantFrom(...UIDS);
const attempt = fc.integer({ min: 1, max: 3 });
const kind = fc.constantFrom<ResourceKind>('Node', 'Pod');
const ref = uid.chain((u) => attempt.map((a) => ({ uid: u, key: keyOf(u), attempt: a })));

/** An event, and the generated model of the pod it carries (for the reference model). */
interface Step {
  event: BerthEvent;
  pod?: PodModel;
}

/** A pod upsert: a generated berth pod under one of the uids, bound or not, maybe finished. */
const podStep: fc.Arbitrary<Step> = fc
  .record({
    uid,
    model: berthPodModel,
    nodeName: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, nodeName),
    phase: fc.constantFrom(undefined, undefined, 'Pending', 'Running', 'Succeeded', 'Failed'),
    terminating: fc.boolean(),
  })
  .map(({ uid: u, model, nodeName: n, phase, terminating }) => {
    const name = keyOf(u).slice('default/'.length);
    const pod: PodModel = { ...model, name, nodeName: n, terminating, phase: undefined };
    const obj: PodObject = podObject(pod);
    obj.metadata.uid = u;
    if (phase !== undefined) obj.status = { phase };
    return { event: { type: 'PodUpserted', pod: obj }, pod };
  });

const nodeObj = (name: string): NodeObject => ({
  metadata: { name },
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } },
});

/** A step without a pod model; the event is checked against the event types. */
const step = (event: BerthEvent): Step => ({ event });

const validStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: nodeName.map((n) => step({ type: 'NodeUpserted', node: nodeObj(n) })) },
  nodeName.map((name) => step({ type: 'NodeDeleted', name })),
  { weight: 6, arbitrary: podStep },
  { weight: 2, arbitrary: uid.map((u) => step({ type: 'PodDeleted', uid: u, key: keyOf(u) })) },
  kind.map((k) => step({ type: 'ResyncStarted', kind: k })),
  kind.map((k) => step({ type: 'ResyncDone', kind: k })),
  {
    weight: 4,
    arbitrary: fc
      .tuple(ref, nodeName)
      .map(([r, node]) => step({ type: 'PodReserved', ...r, node })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        ref,
        nodeName,
        fc.constantFrom('Conflict' as const, 'NotFound' as const, 'Error' as const),
      )
      .map(([r, node, reason]) =>
        step({ type: 'BindFailed', ...r, node, reason, message: reason }),
      ),
  },
  fc
    .tuple(ref, nodeName)
    .map(([r, node]) =>
      step({ type: 'PodUnreserved', ...r, node, reason: 'timed out waiting at permit' }),
    ),
  fc.tuple(ref, nodeName).map(([r, node]) => step({ type: 'BindSucceeded', ...r, node })),
);

const validEvent: fc.Arbitrary<BerthEvent> = validStep.map((s) => s.event);

/** Event-shaped junk: a known or unknown type with arbitrary values in every field. */
const junkEvent = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...EVENT_TYPES), fc.string(), fc.anything()),
    node: fc.oneof(fc.anything(), nodeName),
    pod: fc.oneof(
      fc.anything(),
      podStep.map((s) => (s.event as { pod: unknown }).pod),
    ),
    name: fc.oneof(fc.anything(), nodeName),
    uid: fc.oneof(fc.anything(), uid),
    key: fc.anything(),
    attempt: fc.oneof(fc.anything(), attempt),
    kind: fc.oneof(fc.anything(), kind),
  },
  { requiredKeys: ['type'] },
);

/** A pod or node whose fields are, at any depth, sometimes replaced by arbitrary values. */
const junkObject = fc.oneof(
  fc.anything(),
  fc.record({
    metadata: fc.oneof(
      fc.record({
        name: fc.oneof(fc.constantFrom('p0', 'p1'), fc.anything()),
        // No string uids: one uid under two names is not something an API server serves
        // (see the note on podUids in the report); a missing uid falls back to the name.
        uid: fc.anything().filter((v) => typeof v !== 'string'),
        labels: fc.anything(),
      }),
      fc.anything(),
    ),
    spec: fc.oneof(
      fc.record({
        nodeName: fc.oneof(nodeName, fc.anything()),
        containers: fc.anything(),
        initContainers: fc.anything(),
        resources: fc.anything(),
        affinity: fc.anything(),
        tolerations: fc.anything(),
        taints: fc.anything(),
        nodeSelector: fc.anything(),
        schedulingGates: fc.anything(),
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

// ---------------------------------------------------------------------------------------------
// The reference model: where each pod is charged, by the protocol's rules, in plain maps; node
// sums are computed from the generated pods' demands, not from berth's parsed requests.
// ---------------------------------------------------------------------------------------------

interface ModelPod {
  key: string;
  model: PodModel;
  nodeName: string | undefined;
  finished: boolean;
  charge: Charge;
}

class ReferenceCharges {
  readonly pods = new Map<string, ModelPod>();
  readonly keyUid = new Map<string, string>();
  readonly live = new Set<string>();
  private readonly seen: Partial<Record<ResourceKind, Set<string>>> = {};

  private remove(u: string): void {
    const p = this.pods.get(u);
    if (p === undefined) return;
    this.pods.delete(u);
    if (this.keyUid.get(p.key) === u) this.keyUid.delete(p.key);
  }

  apply(step: Step): void {
    const e = step.event;
    switch (e.type) {
      case 'NodeUpserted':
        this.live.add(e.node.metadata.name);
        this.seen.Node?.add(e.node.metadata.name);
        return;
      case 'NodeDeleted':
        this.live.delete(e.name);
        return;
      case 'PodUpserted': {
        const u = e.pod.metadata.uid as string;
        const key = keyOf(u);
        const holder = this.keyUid.get(key);
        if (holder !== undefined && holder !== u) this.remove(holder);
        const phase = e.pod.status?.phase;
        const finished = phase === 'Succeeded' || phase === 'Failed';
        const nodeName = e.pod.spec.nodeName;
        const before = this.pods.get(u)?.charge;
        // Bound (and not finished) → on its node; assumed stays assumed until bound or released.
        const charge: Charge = finished
          ? { kind: 'none' }
          : nodeName !== undefined
            ? { kind: 'bound', node: nodeName }
            : before?.kind === 'assumed'
              ? before
              : { kind: 'none' };
        this.pods.set(u, { key, model: step.pod as PodModel, nodeName, finished, charge });
        this.keyUid.set(key, u);
        this.seen.Pod?.add(u);
        return;
      }
      case 'PodDeleted':
        this.remove(e.uid);
        return;
      case 'ResyncStarted':
        this.seen[e.kind] = new Set();
        return;
      case 'ResyncDone': {
        const seen = this.seen[e.kind];
        if (seen === undefined) return;
        delete this.seen[e.kind];
        if (e.kind === 'Node') {
          for (const n of [...this.live]) if (!seen.has(n)) this.live.delete(n);
        } else {
          for (const u of [...this.pods.keys()]) if (!seen.has(u)) this.remove(u);
        }
        return;
      }
      case 'PodReserved': {
        const p = this.pods.get(e.uid);
        if (p === undefined || p.nodeName !== undefined || p.finished || !this.live.has(e.node))
          return;
        p.charge = { kind: 'assumed', node: e.node, attempt: e.attempt };
        return;
      }
      case 'BindFailed':
      case 'PodUnreserved': {
        const p = this.pods.get(e.uid);
        const c = p?.charge;
        if (
          p !== undefined &&
          c?.kind === 'assumed' &&
          c.node === e.node &&
          c.attempt === e.attempt
        )
          p.charge = { kind: 'none' };
        return;
      }
      default:
        return;
    }
  }

  /** Per node name (live, or holding charges): demand sums and the uids charged there. */
  nodes(): Record<string, string> {
    const out: Record<string, { milliCPU: number; memory: number; gpus: number; uids: string[] }> =
      {};
    const entry = (n: string) => {
      out[n] ??= { milliCPU: 0, memory: 0, gpus: 0, uids: [] };
      return out[n];
    };
    for (const n of this.live) entry(n);
    for (const [u, p] of this.pods) {
      if (p.charge.kind === 'none') continue;
      const e = entry(p.charge.node);
      const d = demandOf(p.model);
      e.milliCPU += d.milliCPU;
      e.memory += d.memory;
      e.gpus += d.gpus;
      e.uids.push(u);
    }
    return canonical(out);
  }
}

function canonical(
  nodes: Record<string, { milliCPU: number; memory: number; gpus: number; uids: string[] }>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [n, v] of Object.entries(nodes))
    out[n] = `cpu=${v.milliCPU} mem=${v.memory} gpu=${v.gpus} pods=[${v.uids.sort()}]`;
  return out;
}

/** The reducer's per-node charges, live nodes and absent ones alike, in the model's format. */
function reducerNodes(state: ClusterState): Record<string, string> {
  const out: Record<string, { milliCPU: number; memory: number; gpus: number; uids: string[] }> =
    {};
  for (const node of [...state.nodes.values(), ...state.absentNodes.values()]) {
    out[node.name] = {
      // The model's amounts are small: their floats are exact.
      milliCPU: Number(node.requested.milliCPU),
      memory: Number(node.requested.memory),
      gpus: Number(node.requested.scalar[GPU] ?? 0),
      uids: [...node.pods.keys()],
    };
  }
  return canonical(out);
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

describe('evolve keeps charges right', () => {
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

  it('charges every pod where a reference model of the protocol says, with its generated requests', () => {
    fc.assert(
      fc.property(fc.array(validStep, { minLength: 10, maxLength: 80, size: 'large' }), (steps) => {
        const state = initialState();
        const model = new ReferenceCharges();
        steps.forEach((step, i) => {
          evolve(state, { seq: i + 1, time: i, event: step.event });
          model.apply(step);
          const at = `after event ${i} (${step.event.type})`;
          expect(reducerNodes(state), at).toEqual(model.nodes());
          for (const [u, p] of model.pods)
            expect(state.pods.get(u)?.charge, `${at}: ${u}`).toEqual(p.charge);
          expect(state.pods.size, at).toBe(model.pods.size);
          expect(Object.fromEntries(state.podUids), at).toEqual(Object.fromEntries(model.keyUid));
        });
      }),
      { numRuns: 400 },
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
          : [...state.pods.entries()].map(([u, r]) => ({
              type: 'PodDeleted',
              uid: u,
              key: r.info.key,
            }));
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
        expect(state.podUids.size).toBe(0);
        expect(state.nodes.size).toBe(0);
        expect(state.nodeOrder).toEqual([]);
        expect(state.nodeIndex.size).toBe(0);
        expect(state.absentNodes.size).toBe(0);
        expect(state.topology.size).toBe(0);
        expect(state.nominated.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
