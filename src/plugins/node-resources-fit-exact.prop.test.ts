// NodeResourcesFit against a BigInt brute force over huge quantities: fit, reasons and LeastAllocated scores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { propertySeed } from '../../test/support/property-seed.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import type { RawResourceList } from '../model/objects.ts';
import { fitsRequest, nodeResourcesFit } from './node-resources-fit.ts';

const RUNS = { numRuns: 400, seed: propertySeed(20261128).seed };

const MAX_INT64 = 2n ** 63n - 1n;
const DEV = 'example.com/dev';
/** Resources in kube's check order; cpu is written in millicores ("<n>m"). */
const NAMES = ['cpu', 'memory', 'ephemeral-storage', DEV] as const;
type Name = (typeof NAMES)[number];
const REASONS: Record<Name, string> = {
  cpu: 'Insufficient cpu',
  memory: 'Insufficient memory',
  'ephemeral-storage': 'Insufficient ephemeral-storage',
  [DEV]: `Insufficient ${DEV}`,
};

/** One amount in its unit: plain digits, or with the Ki suffix (bytes only). */
interface Written {
  value: bigint;
  ki: boolean;
}

/** Amounts near the edges that matter: 2^53, 2^63, 2^64, and small ones. */
const value: fc.Arbitrary<bigint> = fc.oneof(
  fc.bigInt(0n, 5000n),
  fc.bigInt(2n ** 52n - 8n, 2n ** 53n + 8n),
  fc.bigInt(2n ** 53n - 2000n, 2n ** 54n),
  fc.bigInt(MAX_INT64 - 8n, MAX_INT64 + 8n),
  fc.bigInt(2n ** 62n, 2n ** 66n),
  fc.bigInt(0n, 2n ** 70n),
);
const written: fc.Arbitrary<Written> = fc.record({ value, ki: fc.boolean() });
type List = Partial<Record<Name, Written>>;
const list: fc.Arbitrary<List> = fc.record(
  { cpu: written, memory: written, 'ephemeral-storage': written, [DEV]: written },
  { requiredKeys: [] },
);

/** The manifest's quantity string: cpu as millicores, bytes and devices as digits or Ki. */
function text(name: Name, w: Written): string {
  if (name === 'cpu') return `${w.value}m`;
  return w.ki ? `${w.value}Ki` : `${w.value}`;
}

/** The oracle's reading of a quantity, independently: its integer, saturated at int64. */
function units(name: Name, w: Written): bigint {
  const v = name !== 'cpu' && w.ki ? w.value * 1024n : w.value;
  return v > MAX_INT64 ? MAX_INT64 : v;
}

function raw(l: List): RawResourceList {
  const out: RawResourceList = {};
  for (const name of NAMES) {
    const w = l[name];
    if (w !== undefined) out[name] = text(name, w);
  }
  return out;
}

function nodeFrom(allocatable: List, bound: List[]): NodeInfo {
  const state = initialState();
  const events: BerthEvent[] = [
    {
      type: 'NodeUpserted',
      node: nodeObject('n', { allocatable: { pods: '110', ...raw(allocatable) } }),
    },
  ];
  bound.forEach((l, i) => {
    const pod = podObject(`b${i}`, { requests: raw(l), nodeName: 'n' });
    pod.metadata.uid = `b${i}`;
    events.push({ type: 'PodUpserted', pod });
  });
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state.nodes.get('n') as NodeInfo;
}

function podFrom(l: List): PodInfo {
  const pod = podObject('p', { requests: raw(l) });
  pod.metadata.uid = 'p';
  return podInfoFromObject(pod) as PodInfo;
}

const amountOf = (l: List, name: Name): bigint => {
  const w = l[name];
  return w === undefined ? 0n : units(name, w);
};

/** kube's fitsRequest, by brute force: reasons in order and whether any is unresolvable. */
function oracleFit(alloc: List, bound: List[], pod: List): { reasons: string[]; code: string } {
  const reasons: string[] = [];
  let unresolvable = false;
  for (const name of NAMES) {
    const want = amountOf(pod, name);
    if (want === 0n) continue;
    const total = amountOf(alloc, name);
    const used = bound.reduce((sum, b) => sum + amountOf(b, name), 0n);
    if (want > total - used) {
      reasons.push(REASONS[name]);
      if (want > total) unresolvable = true;
    }
  }
  if (reasons.length === 0) return { reasons, code: 'Success' };
  return { reasons, code: unresolvable ? 'UnschedulableAndUnresolvable' : 'Unschedulable' };
}

/** kube's non-zero request: the default (100m, 200Mi) only when the container names none. */
function nonZero(l: List, name: 'cpu' | 'memory'): bigint {
  if (l[name] !== undefined) return amountOf(l, name);
  return name === 'cpu' ? 100n : 200n * 1024n * 1024n;
}

/** LeastAllocated on cpu and memory (weights 1), in integers. */
function oracleScore(alloc: List, bound: List[], pod: List): number {
  let total = 0n;
  let n = 0n;
  for (const name of ['cpu', 'memory'] as const) {
    const capacity = amountOf(alloc, name);
    if (capacity === 0n) continue;
    const requested = bound.reduce((s, b) => s + nonZero(b, name), 0n) + nonZero(pod, name);
    total += requested > capacity ? 0n : ((capacity - requested) * 100n) / capacity;
    n++;
  }
  return n === 0n ? 0 : Number(total / n);
}

describe('NodeResourcesFit agrees with a BigInt brute force on huge quantities', () => {
  it('fit, reasons and LeastAllocated scores', () => {
    fc.assert(
      fc.property(list, fc.array(list, { maxLength: 4 }), list, (alloc, bound, pod) => {
        const node = nodeFrom(alloc, bound);
        const info = podFrom(pod);
        const got = fitsRequest(info, node);
        expect({ reasons: [...got.reasons], code: got.code }).toEqual(oracleFit(alloc, bound, pod));
        expect(nodeResourcesFit.score(info, node)).toBe(oracleScore(alloc, bound, pod));
      }),
      RUNS,
    );
  });
});
