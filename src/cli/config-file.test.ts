// `--config FILE` through the CLI's reader: YAML/JSON documents, one-line errors, the flag conflict.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decisionConfig, readConfigFile } from './config-file.ts';
import { CliError } from './errors.ts';
import { simulateConfig } from './simulate-command.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-config-file-'));
const file = (name: string, text: string) => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};

const twoProfiles = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
podInitialBackoffSeconds: 2
profiles:
  - schedulerName: berth
  - schedulerName: berth-binpack
    pluginConfig:
      - name: NodeResourcesFit
        args: {scoringStrategy: {type: MostAllocated}}
---
apiVersion: berth/v1
kind: BerthConfiguration
flushIntervalMs: 5000
metricsBindAddress: "0"
`;

function cliError(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('readConfigFile and decisionConfig', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reads a KubeSchedulerConfiguration with a BerthConfiguration document', () => {
    const loaded = readConfigFile(file('two.yaml', twoProfiles));
    expect(loaded?.format).toBe('kube');
    expect(loaded?.run).toEqual({ leaderElection: {}, metricsBindAddress: '0' });
    const config = decisionConfig(loaded);
    expect(config.profiles?.map((p) => p.schedulerName)).toEqual(['berth', 'berth-binpack']);
    expect(config.backoff.initialMs).toBe(2000);
    expect(config.flushIntervalMs).toBe(5000);
  });

  it('reads the same as JSON', () => {
    const json = JSON.stringify({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      profiles: [{ schedulerName: 'x' }],
    });
    expect(decisionConfig(readConfigFile(file('one.json', json))).schedulerName).toBe('x');
  });

  it('keeps the plain format and --scheduler-name over it', () => {
    const loaded = readConfigFile(file('plain.yaml', 'schedulerName: a\nmaxParkedMs: 7\n'));
    expect(decisionConfig(loaded, 'b')).toMatchObject({ schedulerName: 'b', maxParkedMs: 7 });
    expect(decisionConfig(undefined).schedulerName).toBe('berth');
  });

  it('refuses --scheduler-name with a KubeSchedulerConfiguration as a usage error', () => {
    const e = cliError(() => decisionConfig(readConfigFile(file('k.yaml', twoProfiles)), 'x'));
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/--scheduler-name cannot be used with a KubeSchedulerConfiguration/);
  });

  it.each([
    ['bad YAML', 'profiles: [\n', /^config .*bad YAML\.yaml is not valid YAML\/JSON: /],
    [
      'a duplicate key',
      'kind: a\nkind: b\n',
      /is not valid YAML\/JSON: .*[Mm]ap keys must be unique/,
    ],
    [
      'an unknown plugin',
      twoProfiles.replace('NodeResourcesFit', 'NodeResourcesFitt'),
      /^config profiles\[1\]\.pluginConfig\[0\]\.name: unknown plugin "NodeResourcesFitt"/,
    ],
  ])('turns %s into one line, exit 1', (name, text, message) => {
    const e = cliError(() => readConfigFile(file(`${name}.yaml`, text)));
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain('\n');
  });

  it('gives simulate the file’s profiles, and checks its run keys too', () => {
    expect(simulateConfig(file('sim.yaml', twoProfiles)).profiles).toHaveLength(2);
    expect(simulateConfig(undefined).profiles).toBeUndefined();
    const e = cliError(() => simulateConfig(file('sim-bad.yaml', 'frobnicate: 1\n')));
    expect(e.message).toMatch(/unknown key "frobnicate"/);
  });

  it('merges a KubeSchedulerConfiguration with the --emulated-version release’s defaults', () => {
    const path = file('release.yaml', twoProfiles);
    const filtersAt = (version?: string) =>
      decisionConfig(readConfigFile(path, version), undefined, version).profiles?.[0]?.plugins
        .filters;
    expect(filtersAt('1.34')?.slice(0, 2)).toEqual(['NodeUnschedulable', 'NodeName']);
    expect(filtersAt('1.34')).not.toContain('NodeDeclaredFeatures');
    expect(filtersAt()?.slice(0, 2)).toEqual(['NodeName', 'NodeUnschedulable']);
    expect(filtersAt()?.at(-1)).toBe('NodeDeclaredFeatures');
    expect(decisionConfig(readConfigFile(path, '1.35'), undefined, '1.35').emulatedVersion).toBe(
      '1.35',
    );
    expect(simulateConfig(path, '1.34').profiles?.[1]?.plugins.filters[0]).toBe(
      'NodeUnschedulable',
    );
    const e = cliError(() => readConfigFile(path, '1.99'));
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/^--emulated-version: cannot emulate/);
  });
});
