// bin/berth.js holds V8's young generation at its start-up size from before the bundle loads; simulate gives V8 its own growth back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berthBin } from '../e2e/support/paths.ts';
import { exitProbe } from './exit-probe.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-young-'));

/**
 * Once the command is done (exit): churns through short-lived objects while keeping up to
 * 200,000 alive, and prints the young generation's size in MiB.
 */
const probe = exitProbe(
  work,
  `let keep = [];
  for (let i = 0; i < 3e6; i++) { keep.push({ a: i, b: 'x' + i }); if (keep.length > 200000) keep = []; }
  const young = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return Math.round(young.space_size / 2 ** 20);`,
);

/** The young generation (MiB) after `berth ARGS` and the churn. */
function youngAfter(...args: string[]): number {
  const r = spawnSync(process.execPath, [berthBin, ...args], {
    encoding: 'utf8',
    cwd: work,
    env: probe.env,
  });
  expect(r.status, r.stderr).toBe(0);
  return probe.read(r.stderr) as number;
}

describe('young generation of the berth command', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('stays at its start-up size under bin/berth.js; simulate lets V8 grow it again', () => {
    // Node 24's V8 now and then keeps a few extra pages in the young generation after a
    // scavenge that pinned objects (held runs there: 17 of 20 at 2 MiB, the others 4–8.5 MiB),
    // whatever the growth factor; the smallest of five runs is the held size.
    const held = Math.min(...[1, 2, 3, 4, 5].map(() => youngAfter('--version')));
    const grown = youngAfter('simulate', '--nodes', '5', '--pods', '10');
    // Measured here: 2 MiB held, 32 MiB with V8's own factor.
    expect(held).toBeLessThanOrEqual(2);
    expect(grown).toBeGreaterThanOrEqual(16);
  }, 120_000);
});
