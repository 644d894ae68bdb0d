// Property: the allocator picks what a brute-force first-fit over ordered device combinations picks.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Device, ResourceSliceInfo } from '../../../model/dra-types.ts';
import { claim, classA, dev, localA, req, run } from './test-fixtures.ts';

interface World {
  pools: { id: number; slices: { id: number; devices: { t: 'X' | 'Y'; taken: boolean }[] }[] }[];
  claims: { count: number; t: 'X' | 'Y' | undefined }[][];
}

const worldArb: fc.Arbitrary<World> = fc.record({
  pools: fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 20 }),
      slices: fc.uniqueArray(
        fc.record({
          id: fc.integer({ min: 0, max: 20 }),
          devices: fc.array(
            fc.record({ t: fc.constantFrom('X' as const, 'Y' as const), taken: fc.boolean() }),
            { maxLength: 3 },
          ),
        }),
        { minLength: 1, maxLength: 2, selector: (s) => s.id },
      ),
    }),
    { minLength: 1, maxLength: 3, selector: (p) => p.id },
  ),
  claims: fc.array(
    fc.array(
      fc.record({
        count: fc.integer({ min: 1, max: 2 }),
        t: fc.constantFrom(undefined, 'X' as const, 'Y' as const),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    { minLength: 1, maxLength: 2 },
  ),
});

interface Flat {
  pool: string;
  slice: string;
  name: string;
  t: string;
  taken: boolean;
}

/** Every device, in the order kube searches: pool name, then slice name, then slice order. */
function flatten(w: World): Flat[] {
  const out: Flat[] = [];
  for (const p of w.pools) {
    for (const s of p.slices) {
      s.devices.forEach((d, i) => {
        out.push({
          pool: `pool-${p.id}`,
          slice: `slice-${p.id}-${s.id}`,
          name: `device-${s.id}-${i}`,
          t: d.t,
          taken: d.taken,
        });
      });
    }
  }
  const key = (d: Flat) => [d.pool, d.slice];
  return out
    .map((d, i) => ({ d, i }))
    .sort((a, b) => {
      const [x, y] = [key(a.d), key(b.d)];
      for (let k = 0; k < 2; k++)
        if (x[k] !== y[k]) return (x[k] as string) < (y[k] as string) ? -1 : 1;
      return a.i - b.i;
    })
    .map((e) => e.d);
}

/** All ascending k-combinations of `items`, in lexicographic order. */
function combinations(items: number[], k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  items.forEach((first, i) => {
    for (const rest of combinations(items.slice(i + 1), k - 1)) out.push([first, ...rest]);
  });
  return out;
}

/** The first assignment, request by request, of combinations of free matching devices. */
function oracle(devices: Flat[], requests: World['claims'][number]): number[][] | undefined {
  const pick = (i: number, used: Set<number>): number[][] | undefined => {
    const r = requests[i];
    if (r === undefined) return [];
    const candidates = devices
      .map((d, j) => ({ d, j }))
      .filter(({ d, j }) => !d.taken && !used.has(j) && (r.t === undefined || d.t === r.t))
      .map(({ j }) => j);
    for (const combo of combinations(candidates, r.count)) {
      const rest = pick(i + 1, new Set([...used, ...combo]));
      if (rest !== undefined) return [combo, ...rest];
    }
    return undefined;
  };
  return pick(0, new Set());
}

function slicesOf(w: World): ResourceSliceInfo[] {
  return w.pools.flatMap((p) =>
    p.slices.map((s) =>
      localA(
        s.devices.map(
          (d, i): Device => dev(`device-${s.id}-${i}`, { attributes: { t: { string: d.t } } }),
        ),
        `slice-${p.id}-${s.id}`,
        `pool-${p.id}`,
        { resourceSliceCount: p.slices.length },
      ),
    ),
  );
}

describe('allocate (property)', () => {
  it('picks the first combination in pool, slice and device order, or none when none fits', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const devices = flatten(w);
        const requests = w.claims.flat();
        const expected = oracle(devices, requests);
        const claims = w.claims.map((rs, c) =>
          claim(
            `claim-${c}`,
            rs.map((r, i) =>
              req(`req-${i}`, 'class-a', {
                count: r.count,
                ...(r.t !== undefined && {
                  selectors: [{ cel: { expression: `attr t == ${r.t}` } }],
                }),
              }),
            ),
          ),
        );
        const taken = devices.filter((d) => d.taken).map((d) => `driver-a/${d.pool}/${d.name}`);
        const outcome = run({
          claims,
          classes: [classA],
          slices: slicesOf(w),
          allocated: { devices: new Set(taken) },
        });
        if (expected === undefined) {
          expect(outcome.kind).toBe('unschedulable');
          return;
        }
        if (outcome.kind !== 'allocated')
          throw new Error(`expected an allocation, got ${JSON.stringify(outcome)}`);
        const picked = outcome.results.flatMap((r) =>
          r.devices.results.map((d) => `${d.pool}/${d.device}`),
        );
        const want = expected.flat().map((j) => `${devices[j]?.pool}/${devices[j]?.name}`);
        expect(picked).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });
});
