// What a kube-scheduler binary runs with, read from the binary itself: its completed default profile (--write-config-to) and its feature gates (/metrics).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseSamples } from '../../support/prometheus-text.ts';
import type { Cluster } from './control-plane.ts';
import {
  freeLoopbackPort,
  type KubeSchedulerOptions,
  kubeSchedulerBinary,
  kubeSchedulerFlags,
  startKubeScheduler,
  writeKubeSchedulerConfig,
} from './kube-scheduler.ts';
import { runProcess } from './process.ts';
import { waitFor } from './wait.ts';

/** A plugin of a completed profile, with its weight when it scores. */
export interface ProfilePlugin {
  name: string;
  weight?: number;
}

interface WrittenConfig {
  profiles?: { schedulerName?: string; plugins?: { multiPoint?: { enabled?: ProfilePlugin[] } } }[];
}

/**
 * The default profile's multi-point plugins, in kube's order, as the binary `opts` select
 * completes them: `kube-scheduler --config … --write-config-to FILE` (it writes, then exits 0).
 * Throws with its output when it exits otherwise or writes no profile.
 */
export async function completedDefaultProfile(
  cluster: Cluster,
  opts: KubeSchedulerOptions & { name: string },
): Promise<ProfilePlugin[]> {
  const config = writeKubeSchedulerConfig(cluster, opts);
  const written = join(cluster.dir, `${opts.name}.written.yaml`);
  const r = await runProcess(
    kubeSchedulerBinary(cluster, opts),
    [
      `--config=${config}`,
      '--secure-port=0',
      `--write-config-to=${written}`,
      ...kubeSchedulerFlags(opts),
    ],
    { timeoutMs: 60_000 },
  );
  if (r.code !== 0)
    throw new Error(`kube-scheduler --write-config-to exited ${r.code}:\n${r.stderr}`);
  const parsed = parse(readFileSync(written, 'utf8')) as WrittenConfig;
  const enabled = parsed.profiles?.[0]?.plugins?.multiPoint?.enabled;
  if (enabled === undefined) throw new Error(`${written} has no profile with multiPoint plugins`);
  return enabled.map((p) =>
    p.weight === undefined ? { name: p.name } : { name: p.name, weight: p.weight },
  );
}

/**
 * The feature gates of the running binary `opts` select, by name (true = enabled), from its
 * `kubernetes_feature_enabled` gauge; the scheduler is stopped before this resolves.
 */
export async function featureGates(
  cluster: Cluster,
  opts: KubeSchedulerOptions & { name: string },
): Promise<Map<string, boolean>> {
  const scheduler = startKubeScheduler(cluster, { ...opts, securePort: await freeLoopbackPort() });
  try {
    const body = await waitFor(
      `${opts.name} to serve /metrics`,
      async () => {
        const res = await scheduler.get('/metrics');
        return {
          ok: res.status === 200 && res.body.includes('kubernetes_feature_enabled'),
          seen: res.body,
        };
      },
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    const gates = new Map<string, boolean>();
    for (const s of parseSamples(body))
      if (s.name === 'kubernetes_feature_enabled' && s.labels.name !== undefined)
        gates.set(s.labels.name, s.value === 1);
    return gates;
  } finally {
    await scheduler.stop();
  }
}

/** Gates whose state differs between `a` and `b` (present in both), as `name: a→b`, sorted. */
export function gateDifferences(a: Map<string, boolean>, b: Map<string, boolean>): string[] {
  const out: string[] = [];
  for (const [name, on] of a) {
    const other = b.get(name);
    if (other !== undefined && other !== on) out.push(`${name}: ${on}→${other}`);
  }
  return out.sort();
}
