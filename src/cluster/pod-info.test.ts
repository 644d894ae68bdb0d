// Pins PodInfo parsing: defaults, identity, rejection, and invalid constraints named by field.
import { describe, expect, it } from 'vitest';
import { podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from './pod-info.ts';
import type { PodInfo } from './types.ts';

function info(obj: unknown): PodInfo {
  const r = podInfoFromObject(obj);
  if ('rejected' in r) throw new Error(r.rejected);
  return r;
}

describe('podInfoFromObject', () => {
  it('fills the defaults of a minimal pod', () => {
    const p = info({ metadata: { name: 'a' }, spec: {} });
    expect(p).toMatchObject({
      key: 'default/a',
      namespace: 'default',
      name: 'a',
      // The API always serves a uid; without one the pod is known by its name.
      uid: 'default/a',
      schedulerName: 'default-scheduler',
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
      creationMs: 0,
      nodeName: undefined,
      phase: 'Pending',
      terminating: false,
      startMs: undefined,
      preemptedByScheduler: false,
      invalid: undefined,
      requiredNodeAffinity: undefined,
      preferredNodeAffinity: [],
      tolerations: [],
      schedulingGates: [],
      nominatedNodeName: undefined,
      hostPorts: [],
      unsupported: undefined,
    });
    expect(p.labels).toEqual({});
    expect(p.nodeSelector).toEqual({});
  });

  it('gives pods that leave out labels, selector, tolerations, preferences and scalars one frozen value of each', () => {
    const a = info({ metadata: { name: 'a', labels: {} }, spec: { nodeSelector: {} } });
    const b = info({ metadata: { name: 'b' }, spec: { tolerations: [], affinity: {} } });
    for (const field of [
      'labels',
      'nodeSelector',
      'tolerations',
      'preferredNodeAffinity',
      'scalarRequestNames',
    ] as const) {
      expect(a[field], field).toBe(b[field]);
      // Shared, so never writable: a write would otherwise reach every pod.
      expect(Object.isFrozen(a[field]), field).toBe(true);
    }
    // A pod that has some gets its own.
    const c = info({
      metadata: { name: 'c', labels: { app: 'x' } },
      spec: {
        nodeSelector: { zone: 'z' },
        tolerations: [{ key: 'k', operator: 'Exists' }],
        containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': '1' } } }],
      },
    });
    expect(c.labels).toEqual({ app: 'x' });
    expect(c.nodeSelector).toEqual({ zone: 'z' });
    expect(c.tolerations).toEqual([{ key: 'k', operator: 'Exists' }]);
    expect(c.scalarRequestNames).toEqual(['example.com/gpu']);
  });

  it('reads the fields scheduling uses', () => {
    const p = info({
      metadata: {
        name: 'web',
        namespace: 'shop',
        uid: 'u1',
        labels: { app: 'web', bad: 3 },
        creationTimestamp: '2024-01-02T03:04:05Z',
        deletionTimestamp: '2024-01-02T03:05:05Z',
      },
      spec: {
        nodeName: 'n1',
        schedulerName: 'berth',
        priority: 1000,
        preemptionPolicy: 'Never',
        nodeSelector: { zone: 'a' },
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, { key: 5 }, 'junk'],
        containers: [{ resources: { requests: { cpu: '1' } } }],
      },
      status: { phase: 'Running' },
    });
    expect(p).toMatchObject({
      key: 'shop/web',
      uid: 'u1',
      labels: { app: 'web' },
      schedulerName: 'berth',
      priority: 1000,
      preemptionPolicy: 'Never',
      creationMs: Date.UTC(2024, 0, 2, 3, 4, 5),
      nodeName: 'n1',
      phase: 'Running',
      terminating: true,
      nodeSelector: { zone: 'a' },
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
    });
    expect(p.requests.milliCPU).toBe(1000);
  });

  it('reads scheduling gates, the nominated node and host ports', () => {
    const p = info({
      metadata: { name: 'a', uid: 'u1' },
      spec: {
        schedulingGates: [{ name: 'example.com/quota' }, {}],
        initContainers: [{ restartPolicy: 'Always', ports: [{ hostPort: 53, protocol: 'UDP' }] }],
        containers: [
          { ports: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.1' }, { hostPort: 0 }] },
        ],
      },
      status: { nominatedNodeName: 'n3' },
    });
    expect(p.schedulingGates).toEqual(['example.com/quota', '']);
    expect(p.nominatedNodeName).toBe('n3');
    expect(p.hostPorts).toEqual([
      { hostIP: '0.0.0.0', protocol: 'UDP', port: 53 },
      { hostIP: '10.0.0.1', protocol: 'TCP', port: 8080 },
    ]);
  });

  it.each([
    [
      'required pod anti-affinity (InterPodAffinity checks it)',
      {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone' }],
          },
        },
      },
      undefined,
    ],
    [
      'a host port (NodePorts checks it)',
      { containers: [{ ports: [{ hostPort: 8080 }] }] },
      undefined,
    ],
    [
      'only preferred pod affinity',
      { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{}] } } },
      undefined,
    ],
  ])('names the unsupported constraint of a pod with %s', (_name, spec, unsupported) => {
    expect(info({ metadata: { name: 'a' }, spec }).unsupported).toBe(unsupported);
  });

  it.each([
    ['a string priority', { priority: '5' }],
    ['a NaN priority', { priority: Number.NaN }],
    ['an infinite priority', { priority: Number.POSITIVE_INFINITY }],
  ])('treats %s as 0', (_name, spec) => {
    expect(info({ metadata: { name: 'a' }, spec }).priority).toBe(0);
  });

  it('treats an unparsable creationTimestamp as 0', () => {
    expect(info({ metadata: { name: 'a', creationTimestamp: 'yesterday' } }).creationMs).toBe(0);
  });

  it.each<[string, unknown, number | undefined]>([
    ['RFC 3339', '2024-01-02T03:04:05Z', Date.UTC(2024, 0, 2, 3, 4, 5)],
    [
      'with a fraction and an offset',
      '2024-01-02T05:04:05.250+02:00',
      Date.UTC(2024, 0, 2, 3, 4, 5, 250),
    ],
    ['absent', undefined, undefined],
    ['null', null, undefined],
    ['unparsable', 'yesterday', undefined],
    ['a number', 1_700_000_000_000, undefined],
  ])('reads status.startTime %s', (_case, startTime, want) => {
    expect(info({ metadata: { name: 'a' }, status: { startTime } }).startMs).toBe(want);
  });

  const target = (status: unknown, reason: unknown) => ({
    type: 'DisruptionTarget',
    status,
    reason,
  });
  it.each<[string, unknown, boolean]>([
    ['the scheduler’s DisruptionTarget', [target('True', 'PreemptionByScheduler')], true],
    [
      'it after other conditions',
      [{ type: 'Ready', status: 'True' }, 'junk', target('True', 'PreemptionByScheduler')],
      true,
    ],
    ['a False one', [target('False', 'PreemptionByScheduler')], false],
    ['another reason', [target('True', 'EvictionByEvictionAPI')], false],
    [
      'only the first DisruptionTarget counting',
      [target('True', 'DeletionByTaintManager'), target('True', 'PreemptionByScheduler')],
      false,
    ],
    [
      'the first DisruptionTarget counting even when a later one is not the scheduler’s',
      [target('True', 'PreemptionByScheduler'), target('False', 'EvictionByEvictionAPI')],
      true,
    ],
    ['no conditions', undefined, false],
    ['conditions that are not a list', { type: 'DisruptionTarget' }, false],
    [
      'a PreemptionByScheduler reason on another type',
      [{ type: 'Ready', status: 'True', reason: 'PreemptionByScheduler' }],
      false,
    ],
  ])('reads preemptedByScheduler from %s', (_case, conditions, want) => {
    const p = info({ metadata: { name: 'a' }, status: { conditions } });
    expect(p.preemptedByScheduler).toBe(want);
  });

  it.each([
    ['null', null],
    ['a number', 42],
    ['a list', [1, 2]],
    ['an object without metadata', {}],
    ['a pod without a name', { metadata: { namespace: 'x' } }],
    ['a pod with an empty name', { metadata: { name: '' } }],
    ['a pod with a numeric name', { metadata: { name: 7 } }],
  ])('rejects %s', (_name, obj) => {
    expect(podInfoFromObject(obj)).toHaveProperty('rejected');
  });

  it('marks a pod invalid when a request is unparsable, naming the field', () => {
    const p = info(podObject('a', { requests: { cpu: 'lots' } }));
    expect(p.invalid).toBe(
      'invalid quantity "lots" at spec.containers[0].resources.requests.cpu: no digits',
    );
  });

  it('marks a pod invalid when a nodeSelector value is not a string', () => {
    const p = info({ metadata: { name: 'a' }, spec: { nodeSelector: { zone: 1 } } });
    expect(p.invalid).toBe('spec.nodeSelector["zone"] is not a string');
  });

  it('reads spread constraints, and marks a pod with a malformed one invalid, naming it', () => {
    const c = { maxSkew: 1, topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } } };
    const ok = info({
      metadata: { name: 'a', labels: { app: 'web' } },
      spec: { topologySpreadConstraints: [c, { ...c, whenUnsatisfiable: 'ScheduleAnyway' }] },
    });
    expect(ok.invalid).toBeUndefined();
    expect(ok.spreadConstraints.hard.map((x) => x.topologyKey)).toEqual(['zone']);
    expect(ok.spreadConstraints.soft).toHaveLength(1);
    const bad = info({
      metadata: { name: 'a' },
      spec: { topologySpreadConstraints: { maxSkew: 1 } },
    });
    expect(bad.invalid).toBe('spec.topologySpreadConstraints is not a list');
    expect(bad.spreadConstraints.hard).toEqual([]);
  });
});

describe('podInfoFromObject node affinity', () => {
  const withAffinity = (affinity: unknown) => info({ metadata: { name: 'a' }, spec: { affinity } });
  const required = (nodeSelectorTerms: unknown) => ({
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } },
  });

  it('keeps well-formed required and preferred terms', () => {
    const term = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] };
    const p = withAffinity({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] },
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 10,
            preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
          },
          { weight: 'heavy', preference: term },
          { weight: 5, preference: { matchExpressions: 'junk' } },
        ],
      },
    });
    expect(p.invalid).toBeUndefined();
    expect(p.requiredNodeAffinity).toEqual([term]);
    expect(p.preferredNodeAffinity).toEqual([
      {
        weight: 10,
        preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
      },
    ]);
  });

  it('treats null affinity fields as absent', () => {
    const p = withAffinity({ nodeAffinity: null });
    expect(p.invalid).toBeUndefined();
    expect(p.requiredNodeAffinity).toBeUndefined();
  });

  const path = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  it.each([
    ['affinity is not an object', 'x', 'spec.affinity is not an object'],
    ['nodeAffinity is a list', { nodeAffinity: [] }, 'spec.affinity.nodeAffinity is not an object'],
    [
      'terms are missing',
      { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } },
      `${path}.nodeSelectorTerms is not a list`,
    ],
    ['a term is not an object', required([3]), `${path}.nodeSelectorTerms[0] is not an object`],
    [
      'expressions are not a list',
      required([{ matchExpressions: {} }]),
      `${path}.nodeSelectorTerms[0].matchExpressions is not a list`,
    ],
    [
      'a key is missing',
      required([{ matchExpressions: [{ operator: 'Exists' }] }]),
      `${path}.nodeSelectorTerms[0].matchExpressions[0].key is not a string`,
    ],
    [
      'an operator is unknown',
      required([{ matchExpressions: [{ key: 'k', operator: 'Near' }] }]),
      `${path}.nodeSelectorTerms[0].matchExpressions[0].operator is not a known operator`,
    ],
    [
      'values are not strings',
      required([{ matchFields: [{ key: 'k', operator: 'In', values: [1] }] }]),
      `${path}.nodeSelectorTerms[0].matchFields[0].values is not a list of strings`,
    ],
  ])('marks the pod invalid when %s', (_name, affinity, reason) => {
    const p = withAffinity(affinity);
    expect(p.invalid).toBe(reason);
    expect(p.requiredNodeAffinity).toBeUndefined();
  });
});
