// overcommitments: cpu, memory and pod count per node, init containers and overhead counted as the scheduler does.
import { describe, expect, it } from 'vitest';
import {
  antiAffinityViolations,
  overcommitments,
  type PlacedNode,
  type PlacedPod,
  podRequest,
  spreadViolations,
} from './placement-check.ts';

const node = (name: string, cpu: string, memory: string, pods: string): PlacedNode => ({
  metadata: { name },
  status: { allocatable: { cpu, memory, pods } },
});

const pod = (
  name: string,
  nodeName: string | undefined,
  cpu: string,
  memory = '1Mi',
): PlacedPod => ({
  metadata: { name, namespace: 'ns' },
  spec: {
    ...(nodeName === undefined ? {} : { nodeName }),
    containers: [{ resources: { requests: { cpu, memory } } }],
  },
});

describe('overcommitments', () => {
  it('is empty when every node holds what it has', () => {
    const nodes = [node('a', '1', '1Gi', '2'), node('b', '1', '1Gi', '2')];
    const pods = [
      pod('p', 'a', '500m'),
      pod('q', 'a', '500m'),
      pod('r', 'b', '1'),
      pod('s', undefined, '4'),
    ];
    expect(overcommitments(nodes, pods)).toEqual([]);
  });

  it('names a node whose pods ask for more cpu, memory or pods than it has', () => {
    const nodes = [node('a', '1', '1Gi', '2')];
    const pods = [
      pod('p', 'a', '600m', '600Mi'),
      pod('q', 'a', '600m', '600Mi'),
      pod('r', 'a', '0', '0'),
    ];
    expect(overcommitments(nodes, pods)).toEqual([
      'node a: cpu 1200m requested of 1000m',
      'node a: memory 1258291200 requested of 1073741824',
      'node a: 3 pods of 2',
    ]);
  });

  it('leaves terminal pods out and names a pod on an unknown node', () => {
    const done: PlacedPod = { ...pod('p', 'a', '2'), status: { phase: 'Succeeded' } };
    expect(overcommitments([node('a', '1', '1Gi', '1')], [done, pod('q', 'x', '1m')])).toEqual([
      'pod ns/q bound to unknown node x',
    ]);
  });
});

describe('podRequest', () => {
  it('takes the larger of the containers and the largest init container, plus overhead', () => {
    const p: PlacedPod = {
      metadata: { name: 'p' },
      spec: {
        containers: [
          { resources: { requests: { cpu: '100m' } } },
          { resources: { requests: { cpu: '100m' } } },
        ],
        initContainers: [{ resources: { requests: { cpu: '300m' } } }],
        overhead: { cpu: '10m' },
      },
    };
    expect(podRequest(p, 'cpu')).toBe(310_000_000n);
  });
});

describe('antiAffinityViolations', () => {
  const host = (name: string): PlacedNode => ({
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  });
  const green = (
    name: string,
    namespace: string,
    nodeName: string,
    namespaces?: string[],
  ): PlacedPod => ({
    metadata: { name, namespace, labels: { color: 'green' } },
    spec: {
      nodeName,
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchLabels: { color: 'green' } },
              topologyKey: 'kubernetes.io/hostname',
              ...(namespaces === undefined ? {} : { namespaces }),
            },
          ],
        },
      },
    },
  });

  it('is empty when no two selected pods share a host', () => {
    const pods = [
      green('a', 'x', 'n1', ['x', 'y']),
      green('b', 'y', 'n2', ['x', 'y']),
      pod('c', 'n1', '1m'),
    ];
    expect(antiAffinityViolations([host('n1'), host('n2')], pods)).toEqual([]);
  });

  it('names two selected pods on one host, from each side, in the named namespaces only', () => {
    const pods = [
      green('a', 'x', 'n1', ['x', 'y']),
      green('b', 'y', 'n1', ['x', 'y']),
      green('c', 'z', 'n2'),
      green('d', 'w', 'n2'),
    ];
    expect(antiAffinityViolations([host('n1'), host('n2')], pods)).toEqual([
      'pod x/a shares kubernetes.io/hostname=n1 with y/b against its anti-affinity',
      'pod y/b shares kubernetes.io/hostname=n1 with x/a against its anti-affinity',
    ]);
  });
});

describe('spreadViolations', () => {
  const zone = (name: string, z: string): PlacedNode => ({
    metadata: { name, labels: { 'topology.kubernetes.io/zone': z } },
  });
  const blue = (name: string, nodeName: string | undefined): PlacedPod => ({
    metadata: { name, namespace: 'x', labels: { color: 'blue' } },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { color: 'blue' } },
        },
      ],
    },
  });
  const nodes = [zone('a', 'z1'), zone('b', 'z2'), zone('c', 'z3')];

  it('is empty when the selected pods are within maxSkew over every domain', () => {
    const pods = [blue('p', 'a'), blue('q', 'b'), blue('r', undefined), pod('s', 'a', '1m')];
    expect(spreadViolations(nodes, pods)).toEqual([]);
  });

  it('names a constraint once when the fullest domain is more than maxSkew above the emptiest', () => {
    const pods = [blue('p', 'a'), blue('q', 'a'), blue('r', 'b')];
    expect(spreadViolations(nodes, pods)).toEqual([
      'spread over topology.kubernetes.io/zone in x: skew 2 > maxSkew 1 (z1=2, z2=1, z3=0)',
    ]);
  });
});
