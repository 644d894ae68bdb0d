// Config file documents: berth's plain keys, or a KubeSchedulerConfiguration with a BerthConfiguration.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../core/config.ts';
import { readConfigDocuments } from './config-file.ts';

const ksc = (fields: Record<string, unknown> = {}) => ({
  apiVersion: 'kubescheduler.config.k8s.io/v1',
  kind: 'KubeSchedulerConfiguration',
  ...fields,
});
const berthDoc = (fields: Record<string, unknown>) => ({
  apiVersion: 'berth/v1',
  kind: 'BerthConfiguration',
  ...fields,
});
const errorOf = (docs: unknown[]): string => {
  try {
    readConfigDocuments(docs, '1.37');
  } catch (error) {
    return (error as Error).message;
  }
  return '(no error)';
};

describe('readConfigDocuments', () => {
  it('passes berth’s plain keys through (the format before profiles)', () => {
    const plain = { schedulerName: 'batch', maxParkedMs: 1000, metricsBindAddress: '0' };
    expect(readConfigDocuments([plain], '1.37')).toEqual({
      format: 'plain',
      config: plain,
      run: plain,
      clientConnection: {},
    });
    expect(readConfigDocuments([], '1.37').format).toBe('plain');
    expect(readConfigDocuments([null], '1.37').config).toEqual({});
  });

  it('reads two profiles, the backoff in seconds and the percentage', () => {
    const loaded = readConfigDocuments(
      [
        ksc({
          percentageOfNodesToScore: 40,
          podInitialBackoffSeconds: 2,
          podMaxBackoffSeconds: 20,
          profiles: [
            { schedulerName: 'berth-a' },
            {
              schedulerName: 'berth-b',
              percentageOfNodesToScore: 100,
              pluginConfig: [
                { name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } },
              ],
            },
          ],
        }),
      ],
      '1.37',
    );
    expect(loaded.format).toBe('kube');
    const config = parseConfig(loaded.config);
    expect(config.schedulerName).toBe('berth-a');
    expect(config.percentageOfNodesToScore).toBe(40);
    expect(config.backoff).toEqual({ initialMs: 2000, maxMs: 20_000 });
    expect(config.profiles?.map((p) => p.schedulerName)).toEqual(['berth-a', 'berth-b']);
    expect(config.profiles?.[1]?.percentageOfNodesToScore).toBe(100);
    expect(config.profiles?.[1]?.plugins.pluginArgs).toMatchObject({
      NodeResourcesFit: { scoringStrategy: { type: 'MostAllocated' } },
    });
  });

  it('names a lone unnamed profile (or none at all) default-scheduler, as kube does', () => {
    for (const profiles of [undefined, [{}]]) {
      const config = parseConfig(readConfigDocuments([ksc({ profiles })], '1.37').config);
      expect(config.schedulerName).toBe('default-scheduler');
      expect(config.backoff).toEqual({ initialMs: 1000, maxMs: 10_000 });
    }
  });

  it('maps leaderElection and clientConnection; takes berth’s keys from a BerthConfiguration', () => {
    const loaded = readConfigDocuments(
      [
        ksc({
          profiles: [{ schedulerName: 'b' }],
          leaderElection: {
            leaderElect: true,
            leaseDuration: '30s',
            resourceLock: 'leases',
            resourceName: '',
            resourceNamespace: 'berth-system',
          },
          clientConnection: {
            kubeconfig: '/etc/k',
            qps: 20,
            burst: 0,
            contentType: 'application/json',
          },
          parallelism: 16,
          enableProfiling: false,
        }),
        null,
        berthDoc({ maxParkedMs: 60_000, metricsBindAddress: '127.0.0.1:9000' }),
      ],
      '1.37',
    );
    expect(loaded.run).toEqual({
      leaderElection: {
        leaderElect: true,
        leaseDuration: '30s',
        resourceNamespace: 'berth-system',
      },
      metricsBindAddress: '127.0.0.1:9000',
    });
    expect(loaded.clientConnection).toEqual({ kubeconfig: '/etc/k', qps: 20 });
    expect(parseConfig(loaded.config).maxParkedMs).toBe(60_000);
  });

  const cases: { name: string; docs: unknown[]; error: string }[] = [
    {
      name: 'an unknown plugin, naming its path',
      docs: [
        ksc({
          profiles: [
            { schedulerName: 'a' },
            { schedulerName: 'b', plugins: { score: { enabled: [{ name: 'Foo' }] } } },
          ],
        }),
      ],
      error: 'config profiles[1].plugins.score.enabled[0].name: unknown plugin "Foo"',
    },
    {
      name: 'an unknown top-level field',
      docs: [ksc({ percentageOfNodes: 3 })],
      error: 'config percentageOfNodes: unknown field',
    },
    {
      name: 'berth’s schedulerName in a KubeSchedulerConfiguration',
      docs: [ksc({ schedulerName: 'berth' })],
      error: 'config schedulerName: name the scheduler in profiles[].schedulerName',
    },
    {
      name: 'berth’s backoff in a KubeSchedulerConfiguration',
      docs: [ksc({ backoff: { initialMs: 5 } })],
      error: 'config backoff: use podInitialBackoffSeconds and podMaxBackoffSeconds',
    },
    {
      name: 'berth’s maxParkedMs in a KubeSchedulerConfiguration',
      docs: [ksc({ maxParkedMs: 5 })],
      error: 'config maxParkedMs: berth-only: put it in a BerthConfiguration document',
    },
    {
      name: 'profiles in a plain file',
      docs: [{ schedulerName: 'x', profiles: [] }],
      error: 'config profiles: profiles go in a KubeSchedulerConfiguration',
    },
    {
      name: 'two unnamed profiles',
      docs: [ksc({ profiles: [{ schedulerName: 'a' }, {}] })],
      error: 'config profiles[1].schedulerName: is required',
    },
    {
      name: 'two profiles with one name',
      docs: [ksc({ profiles: [{ schedulerName: 'a' }, { schedulerName: 'a' }] })],
      error: 'config profiles[1].schedulerName: duplicate value "a" (also profiles[0])',
    },
    {
      name: 'an unknown profile field',
      docs: [ksc({ profiles: [{ schedulerName: 'a', plugin: {} }] })],
      error: 'config profiles[0].plugin: unknown field',
    },
    {
      name: 'a percentage over 100',
      docs: [ksc({ percentageOfNodesToScore: 101 })],
      error: 'config percentageOfNodesToScore: 101 not in valid range [0, 100]',
    },
    {
      name: 'a profile percentage below 0',
      docs: [ksc({ profiles: [{ schedulerName: 'a', percentageOfNodesToScore: -1 }] })],
      error: 'config profiles[0].percentageOfNodesToScore: -1 not in valid range [0, 100]',
    },
    {
      name: 'a zero initial backoff',
      docs: [ksc({ podInitialBackoffSeconds: 0 })],
      error: 'config podInitialBackoffSeconds: 0 must be greater than 0',
    },
    {
      name: 'a max backoff below the initial one',
      docs: [ksc({ podInitialBackoffSeconds: 5, podMaxBackoffSeconds: 2 })],
      error:
        'config podMaxBackoffSeconds: 2 must be greater than or equal to podInitialBackoffSeconds (5)',
    },
    {
      name: 'extenders',
      docs: [ksc({ extenders: [{ urlPrefix: 'http://x' }] })],
      error: 'config extenders[0]: berth calls no scheduler extenders',
    },
    {
      name: 'a resource lock other than leases',
      docs: [ksc({ leaderElection: { resourceLock: 'endpoints' } })],
      error: 'config leaderElection.resourceLock: must be "leases"',
    },
    {
      name: 'an older KubeSchedulerConfiguration version',
      docs: [ksc({ apiVersion: 'kubescheduler.config.k8s.io/v1beta3' })],
      error: 'config apiVersion: must be kubescheduler.config.k8s.io/v1',
    },
    {
      name: 'another kind',
      docs: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      error: 'config kind: must be KubeSchedulerConfiguration or BerthConfiguration',
    },
    {
      name: 'a BerthConfiguration alone',
      docs: [berthDoc({ maxParkedMs: 5 })],
      error: 'config BerthConfiguration: goes with a KubeSchedulerConfiguration',
    },
    {
      name: 'a decision key in the BerthConfiguration',
      docs: [ksc(), berthDoc({ schedulerName: 'x' })],
      error:
        'config BerthConfiguration.schedulerName: set profiles[].schedulerName in the KubeSchedulerConfiguration',
    },
    {
      name: 'a plain document next to a KubeSchedulerConfiguration',
      docs: [ksc(), { maxParkedMs: 5 }],
      error: 'config (document 2): has no apiVersion and kind',
    },
    {
      name: 'two KubeSchedulerConfigurations',
      docs: [ksc(), ksc()],
      error: 'config (document 2): a second KubeSchedulerConfiguration',
    },
    {
      name: 'a document that is not a mapping',
      docs: ['profiles'],
      error: 'config: must be a mapping, got "profiles"',
    },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const message = errorOf(c.docs);
      expect(message.startsWith(c.error), message).toBe(true);
    });
  }
});

describe('readConfigDocuments: the release a KubeSchedulerConfiguration is resolved against', () => {
  const plugins = { multiPoint: { disabled: [{ name: 'ImageLocality' }] } };
  const profileOf = (release: '1.34' | '1.37') =>
    parseConfig(readConfigDocuments([ksc({ profiles: [{ plugins }] })], release).config)
      .profiles?.[0]?.plugins;

  it('records explicit lists from that release’s defaults, and the release itself', () => {
    const old = profileOf('1.34');
    const now = profileOf('1.37');
    expect(old?.filters.slice(0, 2)).toEqual(['NodeUnschedulable', 'NodeName']);
    expect(old?.scores.map((s) => s.name)).not.toContain('DynamicResources');
    expect(now?.filters.slice(0, 2)).toEqual(['NodeName', 'NodeUnschedulable']);
    expect(now?.filters.at(-1)).toBe('NodeDeclaredFeatures');
    expect(now?.scores).toContainEqual({ name: 'DynamicResources', weight: 2 });
    expect(
      readConfigDocuments([ksc({ profiles: [{ plugins }] })], '1.34').config.emulatedVersion,
    ).toBe('1.34');
  });
});
