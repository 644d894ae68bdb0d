// Which binary is the oracle for --emulated-version 1.35: kube-scheduler 1.37.2 emulating 1.35 beside the 1.35.4 binary (profile order, plugins, feature gates).
import { describe, expect, it } from 'vitest';
import { useCluster } from './support/cluster.ts';
import {
  completedDefaultProfile,
  featureGates,
  gateDifferences,
  type ProfilePlugin,
} from './support/kube-emulation.ts';

function log(line: string): void {
  process.stderr.write(`[e2e] compat-emulation: ${line}\n`);
}

const names = (plugins: ProfilePlugin[]) => plugins.map((p) => p.name);
const comesFirst = (plugins: ProfilePlugin[], a: string, b: string) =>
  names(plugins).indexOf(a) < names(plugins).indexOf(b);

describe('kube-scheduler --emulated-version=1.35 against the 1.35.4 binary', () => {
  const cluster = useCluster('compat-emulation');

  it('1.37.2 emulating 1.35 drops 1.37-only plugins but keeps 1.37’s filter order; 1.35.4 has 1.35’s', async () => {
    const c = cluster();
    const latest = await completedDefaultProfile(c, { name: 'ks-137' });
    const emulating = await completedDefaultProfile(c, {
      name: 'ks-137-as-135',
      emulatedVersion: '1.35',
    });
    const old = await completedDefaultProfile(c, { name: 'ks-135', release: '1.35' });
    for (const [label, p] of [
      ['1.37.2', latest],
      ['1.37.2 --emulated-version=1.35', emulating],
      ['1.35.4', old],
    ] as const)
      log(
        `${label}: ${p.map((x) => (x.weight === undefined ? x.name : `${x.name}×${x.weight}`)).join(', ')}`,
      );
    // The plugin set follows the emulated feature gates (NodeDeclaredFeatures: alpha, off in 1.35).
    expect(names(latest)).toContain('NodeDeclaredFeatures');
    expect(names(emulating)).not.toContain('NodeDeclaredFeatures');
    expect(names(old)).not.toContain('NodeDeclaredFeatures');
    // The order is code, not a gate: emulation keeps 1.37's NodeName before NodeUnschedulable.
    expect(comesFirst(latest, 'NodeName', 'NodeUnschedulable')).toBe(true);
    expect(comesFirst(emulating, 'NodeName', 'NodeUnschedulable')).toBe(true);
    expect(comesFirst(old, 'NodeUnschedulable', 'NodeName')).toBe(true);
  });

  it('1.37.2 emulating 1.35 reports 1.35’s scheduling gates where both binaries know the gate', async () => {
    const c = cluster();
    const latest = await featureGates(c, { name: 'ks-137-gates' });
    const emulating = await featureGates(c, {
      name: 'ks-137-as-135-gates',
      emulatedVersion: '1.35',
    });
    const old = await featureGates(c, { name: 'ks-135-gates', release: '1.35' });
    log(`gates 1.37.2 → emulating 1.35: ${gateDifferences(latest, emulating).join(', ')}`);
    log(
      `gates emulating 1.35 → 1.35.4 binary: ${gateDifferences(emulating, old).join(', ') || 'none'}`,
    );
    expect(latest.get('NodeDeclaredFeatures')).toBe(true);
    expect(emulating.get('NodeDeclaredFeatures')).toBe(false);
    expect(old.get('NodeDeclaredFeatures')).toBe(false);
  });
});
