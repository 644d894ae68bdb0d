// Property: the pool's plugin index finds exactly the parked pods a scan with kube's rule finds, in parking order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnschedulablePool } from './unschedulable-pool.ts';

const plugins = ['NodeResourcesFit', 'NodeAffinity', 'TaintToleration', 'Custom'];

const op = fc.oneof(
  fc.record({
    kind: fc.constant('park' as const),
    key: fc.integer({ min: 0, max: 30 }),
    plugins: fc.subarray(plugins),
  }),
  fc.record({ kind: fc.constant('remove' as const), key: fc.integer({ min: 0, max: 30 }) }),
);

/** What a scan of every parked pod finds: rejected by no plugin, or by one `rejectedBy` matches. */
function scanned(pool: UnschedulablePool, rejectedBy: (p: string) => boolean): string[] {
  const out: string[] = [];
  for (const [key, { plugins: ps }] of pool.entries())
    if (ps.length === 0 || ps.some(rejectedBy)) out.push(key);
  return out;
}

describe('UnschedulablePool.parkedWhere', () => {
  it('equals a scan of every parked pod, after any parks and removals', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.subarray(plugins), (ops, matching) => {
        const pool = new UnschedulablePool();
        // Pods no change helps here, so that the matching ones are few and found by the index.
        for (let i = 0; i < 200; i++) pool.park(`filler-${i}`, 0, ['Filler']);
        for (const o of ops)
          if (o.kind === 'park') pool.park(`p${o.key}`, 0, o.plugins);
          else pool.remove(`p${o.key}`);
        const rejectedBy = (p: string) => matching.includes(p);
        expect(pool.parkedWhere(rejectedBy)).toEqual(scanned(pool, rejectedBy));
      }),
      { numRuns: 500 },
    );
  });

  it('finds a few pods among many through the index, oldest parking first', () => {
    const pool = new UnschedulablePool();
    for (let i = 0; i < 100; i++) pool.park(`fit-${i}`, i, ['NodeResourcesFit']);
    pool.park('affinity-b', 200, ['NodeAffinity']);
    pool.park('affinity-a', 201, ['NodeAffinity', 'NodeResourcesFit']);
    pool.park('affinity-b', 202, ['NodeAffinity']); // re-parked: now the newest
    expect(pool.parkedWhere((p) => p === 'NodeAffinity')).toEqual(['affinity-a', 'affinity-b']);
    pool.remove('affinity-a');
    expect(pool.parkedWhere((p) => p === 'NodeAffinity')).toEqual(['affinity-b']);
    expect(pool.parkedWhere((p) => p === 'TaintToleration')).toEqual([]);
  });
});
