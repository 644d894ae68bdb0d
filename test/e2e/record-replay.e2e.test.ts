// A live run recorded with --record (sealed with --record-key) replays to the same decisions with berth replay.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { readRecord } from './support/invariants.ts';
import { podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'replay';
// 5 cpu exceeds each node's whole allocatable: preemption cannot help (kube's PostFilter part).
const message =
  '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';

describe('record a live run and replay it', () => {
  const cluster = useCluster('replay');
  let berth: BerthRun;
  let record: string;
  let key: string;

  beforeAll(async () => {
    const k = cluster().kubectl;
    record = join(cluster().dir, 'live.record.jsonl');
    key = join(cluster().dir, 'record.key');
    writeFileSync(key, 'e2e-record-key-'.repeat(3), { mode: 0o600 });
    await k.apply(
      toYaml([
        namespace(ns),
        kwokNode('r-0', { cpu: '4', memory: '8Gi' }),
        kwokNode('r-1', { cpu: '4', memory: '8Gi' }),
      ]),
    );
    berth = await startBerth(cluster(), {
      name: 'berth',
      args: ['--record', record, '--record-key', key],
    });
    await k.create(
      toYaml([...pods('r', ns, 20, { cpu: '300m' }), pod('too-big', ns, { cpu: '5' })]),
    );
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('binds 20 pods and marks the oversized one Unschedulable', async () => {
    const k = cluster().kubectl;
    await waitFor('20 pods bound and too-big Unschedulable', async () => {
      berth.checkAlive();
      const ps = await k.pods(ns);
      const unbound = ps.filter((p) => p.metadata.name !== 'too-big' && !p.spec.nodeName);
      const big = podScheduledCondition(ps.find((p) => p.metadata.name === 'too-big'));
      return {
        ok: ps.length === 21 && unbound.length === 0 && big?.status === 'False',
        seen: { unbound: unbound.map((p) => p.metadata.name), big },
      };
    });
  });

  it('flushes the record with its closing digest on SIGTERM and exits 0', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record);
    expect(lines[0]?.kind).toBe('header');
    expect(lines.at(-1)).toMatchObject({ kind: 'digest' });
    expect(lines[0]?.seal).toMatchObject({ alg: 'HMAC-SHA-256' });
  });

  it('replays to the same digest, placements and pending reasons', async () => {
    const r = await berthCommand(['replay', record, '--json', '--record-key', key]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      decisionDigest: string;
      placements: Record<string, string>;
      pending: Record<string, string>;
      integrity: { sealed: boolean; verified: boolean; closed: boolean };
    };
    expect(summary.integrity).toMatchObject({ sealed: true, verified: true, closed: true });
    expect(summary.decisionDigest).toBe(readRecord(record).at(-1)?.digest);
    const live = Object.fromEntries(
      (await cluster().kubectl.pods(ns))
        .filter((p) => p.spec.nodeName !== undefined)
        .map((p) => [`${ns}/${p.metadata.name}`, p.spec.nodeName]),
    );
    expect(Object.keys(live)).toHaveLength(20);
    expect(summary.placements).toEqual(live);
    expect(summary.pending).toEqual({ [`${ns}/too-big`]: message });
  });

  it('refuses an edited copy of the sealed record with the key, naming the line', async () => {
    const lines = readFileSync(record, 'utf8').trimEnd().split('\n');
    const at = lines.findIndex((l) => l.includes('"PodReserved"'));
    lines[at] = (lines[at] as string).replace(
      /"node":"r-(\d)"/,
      (_, n) => `"node":"r-${1 - Number(n)}"`,
    );
    const forged = join(cluster().dir, 'forged.record.jsonl');
    writeFileSync(forged, `${lines.join('\n')}\n`);
    const r = await berthCommand(['replay', forged, '--record-key', key]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`line ${at + 1}: the seal does not verify`);
  });

  it('records a rotated run into segments that replay one by one and as a whole', async () => {
    const k = cluster().kubectl;
    const dir = join(cluster().dir, 'segments');
    await k.apply(toYaml([namespace('rotated'), kwokNode('s-0', { cpu: '8', memory: '16Gi' })]));
    const rotated = await startBerth(cluster(), {
      name: 'berth-rotated',
      args: ['--record', dir, '--record-segment-size', '64Ki', '--record-key', key],
    });
    try {
      // The r-* nodes have 2 cpu left after the first run; s-0 takes the rest.
      await k.create(toYaml(pods('s', 'rotated', 30, { cpu: '100m' })));
      await waitFor('30 pods bound', async () => {
        rotated.checkAlive();
        const unbound = (await k.pods('rotated')).filter((p) => !p.spec.nodeName);
        return { ok: unbound.length === 0, seen: unbound.length };
      });
    } finally {
      const exit = await rotated.stop('SIGTERM');
      expect(exit, rotated.tail()).toEqual({ code: 0, signal: null });
    }
    const segments = readdirSync(dir).sort();
    console.log(`[e2e] replay: rotated recording in ${segments.length} segments`);
    expect(segments.length).toBeGreaterThanOrEqual(2);
    const whole = await berthCommand(['replay', dir, '--json', '--record-key', key]);
    expect(whole.code, whole.stderr).toBe(0);
    const summary = JSON.parse(whole.stdout) as {
      placements: Record<string, string>;
      integrity: { verified: boolean };
    };
    expect(summary.integrity.verified).toBe(true);
    expect(Object.keys(summary.placements).filter((p) => p.startsWith('rotated/'))).toHaveLength(
      30,
    );
    for (const segment of segments) {
      const one = await berthCommand(['replay', join(dir, segment), '--record-key', key]);
      expect(one.code, `${segment}: ${one.stderr}`).toBe(0);
      expect(one.stdout).toContain("every line's seal verified");
    }
  });
});
