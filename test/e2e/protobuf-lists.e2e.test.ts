// Pods and Nodes listed as protobuf from a real kube-apiserver decode to exactly what the JSON list trims to.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeApiError } from '../../src/adapters/kube/api-error.ts';
import type { KubeClients } from '../../src/adapters/kube/config.ts';
import { DirectHttp } from '../../src/adapters/kube/direct-http.ts';
import { podSource } from '../../src/adapters/kube/list-watch.ts';
import { decodeNodeItem, decodePodItem } from '../../src/adapters/kube/protobuf/items.ts';
import { trimNode, trimPod } from '../../src/adapters/trim.ts';
import { podGroupApiVersion } from '../../src/cluster/pod-groups.ts';
import { Api } from './support/api.ts';
import { useCluster } from './support/cluster.ts';
import { kwokNode, type Manifest, namespace } from './support/manifests.ts';
import { applyPodGroupCrd } from './support/pod-group-crd.ts';

const ns = 'proto';

const selector = {
  matchLabels: { app: 'web' },
  matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
};

/** A pod using every field the trim keeps, and many it drops. Nobody schedules it. */
const fullPod: Manifest = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'full',
    namespace: ns,
    labels: { app: 'web', tier: 'a' },
    annotations: { note: 'dropped' },
    finalizers: ['berth.test/hold'],
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'rs',
        uid: '0e0e0e0e-0000-4000-8000-000000000001',
        controller: true,
      },
    ],
  },
  spec: {
    schedulerName: 'nobody',
    nodeSelector: { disk: 'ssd' },
    hostNetwork: false,
    schedulingGates: [{ name: 'wait' }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1', 'z2'] }],
              matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n9'] }],
            },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 7, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
        ],
      },
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: selector,
            topologyKey: 'zone',
            namespaces: ['other'],
            namespaceSelector: { matchLabels: { team: 'x' } },
          },
        ],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: selector,
              topologyKey: 'kubernetes.io/hostname',
              matchLabelKeys: ['pod-template-hash'],
            },
          },
        ],
      },
    },
    tolerations: [
      { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoSchedule' },
      { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 2,
        minDomains: 3,
        topologyKey: 'zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: selector,
        nodeAffinityPolicy: 'Honor',
        nodeTaintsPolicy: 'Ignore',
        matchLabelKeys: ['pod-template-hash'],
      },
    ],
    initContainers: [
      {
        name: 'sidecar',
        image: 'side:1',
        restartPolicy: 'Always',
        resources: { requests: { cpu: '50m' } },
      },
      {
        name: 'init',
        image: 'init:1',
        command: ['true'],
        resources: { limits: { memory: '32Mi' } },
      },
    ],
    containers: [
      {
        name: 'app',
        image: 'registry.example/app:1.2',
        env: [{ name: 'A', value: 'b' }],
        ports: [
          { containerPort: 8080, hostPort: 18080, hostIP: '127.0.0.2', protocol: 'UDP', name: 'p' },
          { containerPort: 9090 },
        ],
        resources: {
          requests: { cpu: '1500m', memory: '1Gi', 'example.com/dongle': '2' },
          limits: { 'example.com/dongle': '2', memory: '2Gi' },
        },
        readinessProbe: { httpGet: { port: 'p', path: '/' } },
      },
    ],
    volumes: [
      { name: 'claim', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
      {
        name: 'eph',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { a: 'b' } },
            spec: {
              accessModes: ['ReadWriteOncePod'],
              storageClassName: 'fast',
              resources: { requests: { storage: '5Gi' } },
            },
          },
        },
      },
      {
        name: 'csi',
        csi: { driver: 'csi.example', volumeAttributes: { size: 'big' }, readOnly: false },
      },
      { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'img', pool: 'p' } },
      {
        name: 'iscsi',
        iscsi: { targetPortal: '10.0.0.2:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 },
      },
      { name: 'gce', gcePersistentDisk: { pdName: 'disk-1', readOnly: true } },
      { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } },
      { name: 'cm', configMap: { name: 'cfg' } },
    ],
  },
};

/** A plain pod, as the benchmarks create thousands of. */
const plainPod: Manifest = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'plain', namespace: ns },
  spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'pause' }] },
};

function name(object: unknown): unknown {
  return (object as { metadata?: { name?: unknown } }).metadata?.name;
}

async function listBoth(http: DirectHttp, path: string, decode: (b: Uint8Array) => unknown) {
  const json: unknown[] = [];
  const proto: unknown[] = [];
  let decoded = 0;
  const jsonMeta = await http.list(path, {}, { timeoutMs: 10_000 }, (i) => json.push(i));
  const protoMeta = await http.list(
    path,
    { resourceVersion: jsonMeta.resourceVersion, resourceVersionMatch: 'Exact' },
    {
      timeoutMs: 10_000,
      protobuf: (b) => {
        decoded++;
        return decode(b);
      },
    },
    (i) => proto.push(i),
  );
  return { json, proto, decoded, jsonMeta, protoMeta };
}

describe('protobuf lists from kube-apiserver', () => {
  const cluster = useCluster('protobuf');
  let api: Api;
  let http: DirectHttp;

  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    const kc = new KubeConfig();
    kc.loadFromFile(cluster().kubeconfig);
    http = new DirectHttp(kc);
    await api.ok('POST', '/api/v1/namespaces', namespace(ns));
    await api.ok('POST', '/api/v1/nodes', kwokNode('plain-node', { cpu: '4', memory: '8Gi' }));
    await api.ok('POST', '/api/v1/nodes', {
      ...kwokNode('tainted', { cpu: '2', memory: '4Gi', labels: { zone: 'z1' } }),
      spec: {
        unschedulable: true,
        taints: [
          { key: 'gpu', value: 'yes', effect: 'NoSchedule' },
          {
            key: 'node.kubernetes.io/unreachable',
            effect: 'NoExecute',
            timeAdded: '2026-01-02T03:04:05Z',
          },
        ],
      },
    });
    await api.ok('POST', `/api/v1/namespaces/${ns}/pods`, fullPod);
    await api.ok('POST', `/api/v1/namespaces/${ns}/pods`, plainPod);
    // Status fields the trim keeps: conditions, nominated node, start time, container statuses.
    await api.ok('PATCH', `/api/v1/namespaces/${ns}/pods/full/status`, {
      status: {
        nominatedNodeName: 'tainted',
        startTime: '2026-03-04T05:06:07Z',
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'PreemptionByScheduler',
            message: 'x',
          },
          { type: 'PodResizePending', status: 'True', reason: 'Infeasible' },
          { type: 'Ready', status: 'False' },
        ],
        containerStatuses: [
          {
            name: 'app',
            image: 'registry.example/app:1.2',
            imageID: '',
            ready: false,
            restartCount: 0,
            allocatedResources: { cpu: '1' },
            resources: { requests: { cpu: '1' } },
          },
        ],
      },
    });
    // A terminating pod: the finalizer holds it with its deletionTimestamp set.
    await api.ok('DELETE', `/api/v1/namespaces/${ns}/pods/full`);
  });

  afterAll(async () => {
    await api?.request('PATCH', `/api/v1/namespaces/${ns}/pods/full`, {
      metadata: { finalizers: null },
    });
    http?.destroy();
    api?.close();
  });

  it('a Pod source lists the bound pods, then the pending ones exactly at that version', async () => {
    // In another namespace: the protobuf test below counts the pods of `ns`.
    await api.ok('POST', '/api/v1/namespaces/default/pods', {
      ...plainPod,
      metadata: { name: 'placed', namespace: 'default' },
      spec: { ...(plainPod.spec as object), nodeName: 'plain-node' },
    });
    const seen: (string | '|')[] = [];
    const nodeOf = new Map<string, unknown>();
    const meta = await podSource({ http } as KubeClients).list(
      { fromCache: true },
      (item) => {
        const pod = item as { metadata: { name: string }; spec: { nodeName?: string } };
        seen.push(pod.metadata.name);
        nodeOf.set(pod.metadata.name, pod.spec.nodeName);
      },
      () => seen.push('|'),
    );
    const all = await api.ok<{ items: unknown[]; metadata: { resourceVersion: string } }>(
      'GET',
      `/api/v1/pods?resourceVersion=${meta.resourceVersion}&resourceVersionMatch=Exact`,
    );
    const bound = seen.slice(0, seen.indexOf('|'));
    const pending = seen.slice(seen.indexOf('|') + 1);
    expect(bound).toContain('placed');
    expect(bound.every((n) => nodeOf.get(n) === 'plain-node')).toBe(true);
    expect(pending.sort()).toEqual(['full', 'plain']);
    // One snapshot: every pod once, none twice (the exact list was served, no fallback).
    expect(seen).toHaveLength(all.items.length + 1);
  });

  it('decodes every Pod to what trimPod keeps of its JSON', async () => {
    const r = await listBoth(http, `/api/v1/namespaces/${ns}/pods`, decodePodItem);
    expect(r.decoded).toBe(2);
    expect(r.proto).toEqual(r.json.map(trimPod));
    expect(r.protoMeta.resourceVersion).toBe(r.jsonMeta.resourceVersion);
    const full = r.proto.find((p) => name(p) === 'full');
    // The listed pod really carries the fields this test is about.
    expect(full).toHaveProperty(
      'metadata.deletionTimestamp',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    );
    expect(full).toHaveProperty('spec.volumes.length', 8);
    expect(full).toHaveProperty('status.conditions.length', 2);
    expect(full).toHaveProperty('status.containerStatuses.0.allocatedResources', { cpu: '1' });
    expect(full).toHaveProperty('spec.containers.0.ports.0.hostPort', 18080);
  });

  it('decodes every Node to what trimNode keeps of its JSON', async () => {
    const r = await listBoth(http, '/api/v1/nodes', decodeNodeItem);
    expect(r.decoded).toBe(2);
    expect(r.proto).toEqual(r.json.map(trimNode));
    const tainted = r.proto.find((n) => name(n) === 'tainted');
    expect(tainted).toHaveProperty('spec.taints.1.timeAdded', '2026-01-02T03:04:05Z');
    expect(tainted).toHaveProperty('spec.unschedulable', true);
  });

  it('reads an error on a protobuf list as the Status the server sent in protobuf', async () => {
    const err = await http
      .list(
        '/api/v1/pods',
        { limit: 1, continue: 'not-a-continue-token' },
        { timeoutMs: 10_000, protobuf: decodePodItem },
        () => undefined,
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as { headers?: Record<string, string> }).headers?.['content-type']).toMatch(
      /protobuf/,
    );
    const failure = describeApiError(err);
    expect(failure.code).toBe(400);
    expect(failure.message).toMatch(/continue/);
  });

  it('reads JSON when the server has no protobuf for the resource (a custom resource)', async () => {
    await applyPodGroupCrd(cluster().kubeconfig);
    const path = `/apis/${podGroupApiVersion}/namespaces/${ns}/podgroups`;
    await api.ok('POST', path, {
      apiVersion: podGroupApiVersion,
      kind: 'PodGroup',
      metadata: { name: 'g', namespace: ns },
      spec: { minMember: 2 },
    });
    const items: unknown[] = [];
    let decoded = 0;
    const protobuf = () => {
      decoded++;
      return {};
    };
    await http.list(path, {}, { timeoutMs: 10_000, protobuf }, (i) => items.push(i));
    expect(decoded).toBe(0);
    expect(items).toHaveLength(1);
    expect(items[0]).toHaveProperty('spec.minMember', 2);
  });
});
