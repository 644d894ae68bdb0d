// One core, several profiles: pods go by their scheduler name's profile, and the log header keeps them.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { readConfigDocuments } from '../config/config-file.ts';
import { parseLog } from '../events/reader.ts';
import { replay } from '../runtime/replay.ts';
import { simulate } from '../runtime/simulate.ts';
import { type BerthConfig, parseConfig, profilesOf } from './config.ts';

/** berth-a: kube's defaults (LeastAllocated); berth-b: only NodeResourcesFit, MostAllocated. */
const twoProfiles: BerthConfig = parseConfig(
  readConfigDocuments(
    [
      {
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          { schedulerName: 'berth-a' },
          {
            schedulerName: 'berth-b',
            plugins: {
              score: { disabled: [{ name: '*' }], enabled: [{ name: 'NodeResourcesFit' }] },
            },
            pluginConfig: [
              { name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } },
            ],
          },
        ],
      },
    ],
    '1.34',
  ).config,
);

/** Two equal nodes, one already half full; one pod per scheduler name, and one of nobody's. */
function cluster() {
  const nodes = [nodeObject('busy'), nodeObject('idle')];
  const pods = [
    podObject('filler', { nodeName: 'busy', requests: { cpu: '2', memory: '4Gi' } }),
    podObject('a', { schedulerName: 'berth-a', requests: { cpu: '500m', memory: '1Gi' } }),
    podObject('b', { schedulerName: 'berth-b', requests: { cpu: '500m', memory: '1Gi' } }),
    podObject('c', { schedulerName: 'berth-c', requests: { cpu: '500m', memory: '1Gi' } }),
  ];
  return { nodes, pods };
}

function run(config: BerthConfig) {
  const lines: string[] = [];
  const summary = simulate({
    ...cluster(),
    seed: 7,
    config,
    bindLatencyMs: 1,
    bindFailureRate: 0,
    record: (line) => lines.push(line),
  });
  return { summary, log: `${lines.join('\n')}\n` };
}

describe('a core with two profiles', () => {
  it('schedules each pod by its scheduler name’s profile and leaves other names alone', () => {
    const { summary } = run(twoProfiles);
    // LeastAllocated spreads to the idle node; MostAllocated packs onto the busy one.
    expect(summary.placements).toEqual({ 'default/a': 'idle', 'default/b': 'busy' });
    expect(summary.pods).toBe(2);
  });

  it('records the profiles in the log header, so replay decides with them', () => {
    const { log } = run(twoProfiles);
    const parsed = parseLog(log);
    expect(parsed.header.config.profiles).toEqual(twoProfiles.profiles);
    expect(replay(parsed).matches).toBe(true);
    // The same log whose header gives berth-b LeastAllocated (its args dropped) diverges at b.
    const profiles = structuredClone(twoProfiles.profiles) ?? [];
    if (profiles[1] !== undefined) profiles[1].plugins.pluginArgs = {};
    const header = { ...parsed.header, config: { ...parsed.header.config, profiles } };
    const tampered = parseLog(log.replace(JSON.stringify(parsed.header), JSON.stringify(header)));
    const result = replay(tampered);
    expect(result.matches).toBe(false);
    expect(result.divergence?.expected).toMatch(/default\/b.*busy/);
  });

  it('round-trips the config through JSON (the header) unchanged', () => {
    const again = parseConfig(JSON.parse(JSON.stringify(twoProfiles)));
    expect(again).toEqual(twoProfiles);
    expect(profilesOf(again).map((p) => p.schedulerName)).toEqual(['berth-a', 'berth-b']);
  });

  it('reads a header without profiles (older logs) as one default profile', () => {
    const old = parseConfig({ schedulerName: 'berth', percentageOfNodesToScore: 0 });
    expect(old.profiles).toBeUndefined();
    const [only, ...rest] = profilesOf(old);
    expect(rest).toEqual([]);
    expect(only?.schedulerName).toBe('berth');
    expect(only?.profile.score.map((s) => s.plugin.name)).toContain(
      'NodeResourcesBalancedAllocation',
    );
  });
});

describe('parseConfig refuses header profiles it cannot build', () => {
  const profile = (plugins: Record<string, unknown>, schedulerName = 'x') => ({
    schedulerName,
    plugins: { preFilters: [], filters: [], scores: [], ...plugins },
  });
  it.each([
    ['an empty list', { profiles: [] }, /config profiles must be a non-empty list/],
    [
      'an unknown plugin',
      { profiles: [profile({ filters: ['Nope'] })] },
      /config profiles\[0\]: unknown plugin "Nope"/,
    ],
    [
      'a bad weight',
      { profiles: [profile({ scores: [{ name: 'ImageLocality', weight: 0 }] })] },
      /config profiles\[0\]: .*weight 1–100/,
    ],
    [
      'bad args',
      {
        profiles: [profile({ filters: ['NodeResourcesFit'], pluginArgs: { NodeResourcesFit: 5 } })],
      },
      /config profiles\[0\]: NodeResourcesFit: args must be an object/,
    ],
    [
      'a repeated name',
      { profiles: [profile({}), profile({})] },
      /config profiles\[1\].schedulerName "x" names another profile/,
    ],
    [
      'a scheduler name that is not the first profile’s',
      { schedulerName: 'y', profiles: [profile({})] },
      /schedulerName must be the first profile's/,
    ],
    [
      'plugins missing',
      { profiles: [{ schedulerName: 'x' }] },
      /config profiles\[0\] must be an object with schedulerName and plugins/,
    ],
  ])('%s', (_name, raw, message) => {
    expect(() => parseConfig(raw)).toThrow(message);
  });
});
