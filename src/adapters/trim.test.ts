// Pins what trimming keeps of a full Pod, Node and PodGroup, what it drops, and that odd shapes survive.
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { nodeInfoFromObject } from '../cluster/node-info.ts';
import { parsePodGroup } from '../cluster/pod-groups.ts';
import { computePodRequests } from '../cluster/requests.ts';
import type { InputEvent } from '../events/types.ts';
import { dropUnchangedUpserts } from '../runtime/pipeline.ts';
import { trimNode, trimObject, trimPod } from './trim.ts';

const managedFields = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': {} } }];
const term = { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' };

/** A Pod as the API server returns it for a running StatefulSet member. */
function fullPod() {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'db-0',
      generateName: 'db-',
      namespace: 'prod',
      uid: 'u-1',
      resourceVersion: '42',
      labels: { app: 'db' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': 'x' },
      creationTimestamp: '2025-01-01T00:00:00Z',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'db',
          uid: 'ss-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields,
    },
    spec: {
      schedulerName: 'berth',
      priority: 100,
      priorityClassName: 'high',
      preemptionPolicy: 'PreemptLowerPriority',
      nodeSelector: { disk: 'ssd' },
      affinity: {
        nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
        podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
      },
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
      ],
      schedulingGates: [{ name: 'wait' }],
      overhead: { cpu: '10m' },
      resources: { limits: { memory: '2Gi' } },
      containers: [
        {
          name: 'db',
          image: 'postgres:17',
          imagePullPolicy: 'IfNotPresent',
          command: ['postgres'],
          env: [{ name: 'PGDATA', value: '/data' }],
          ports: [{ name: 'pg', containerPort: 5432, hostPort: 5432, protocol: 'TCP' }],
          resources: { limits: { cpu: '1' }, claims: [{ name: 'gpu' }] },
          livenessProbe: { tcpSocket: { port: 5432 } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', args: ['-c'] }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
        { name: 'cfg', configMap: { name: 'db-config', defaultMode: 420 } },
        { name: 'tok', projected: { sources: [] } },
        { name: 'model', image: { reference: 'quay.io/m/llm:v1', pullPolicy: 'IfNotPresent' } },
      ],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-tpl' }],
      serviceAccountName: 'db',
      dnsPolicy: 'ClusterFirst',
      nodeName: 'n1',
    },
    status: {
      phase: 'Running',
      nominatedNodeName: 'n1',
      startTime: '2025-01-01T00:00:05Z',
      hostIP: '10.0.0.1',
      qosClass: 'Burstable',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:09Z' },
        { type: 'PodResizePending', status: 'True', reason: 'Deferred', message: 'no room' },
        {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'PreemptionByScheduler',
          message: 'preempted by default/big on node n1',
          lastTransitionTime: '2025-01-01T00:00:10Z',
        },
      ],
      containerStatuses: [
        {
          name: 'db',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: '2025-01-01T00:00:06Z' } },
          imageID: 'sha256:abc',
          allocatedResources: { cpu: '1' },
          resources: { requests: { cpu: '1' }, limits: { cpu: '1' } },
        },
      ],
      allocatedResources: { cpu: '1', memory: '2Gi' },
      resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { memory: '2Gi' } },
    },
  };
}

describe('trimPod', () => {
  it('keeps exactly what kube-scheduler reads of a full pod', () => {
    expect(trimPod(fullPod())).toStrictEqual({
      metadata: {
        name: 'db-0',
        namespace: 'prod',
        uid: 'u-1',
        resourceVersion: '42',
        labels: { app: 'db' },
        creationTimestamp: '2025-01-01T00:00:00Z',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'ss-1', controller: true },
        ],
      },
      spec: {
        nodeName: 'n1',
        schedulerName: 'berth',
        priority: 100,
        priorityClassName: 'high',
        preemptionPolicy: 'PreemptLowerPriority',
        nodeSelector: { disk: 'ssd' },
        affinity: {
          nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
          podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
        },
        tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
        schedulingGates: [{ name: 'wait' }],
        overhead: { cpu: '10m' },
        resources: { limits: { memory: '2Gi' } },
        containers: [
          {
            name: 'db',
            image: 'postgres:17',
            ports: [{ containerPort: 5432, hostPort: 5432, protocol: 'TCP' }],
            resources: { limits: { cpu: '1' }, claims: [{ name: 'gpu' }] },
          },
        ],
        initContainers: [{ name: 'proxy', restartPolicy: 'Always', image: 'envoy' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
          { name: 'cfg' },
          { name: 'tok' },
          { name: 'model', image: { reference: 'quay.io/m/llm:v1' } },
        ],
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-tpl' }],
      },
      status: {
        phase: 'Running',
        nominatedNodeName: 'n1',
        startTime: '2025-01-01T00:00:05Z',
        conditions: [
          { type: 'PodResizePending', reason: 'Deferred' },
          { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' },
        ],
        containerStatuses: [
          {
            name: 'db',
            allocatedResources: { cpu: '1' },
            resources: { requests: { cpu: '1' } },
          },
        ],
        allocatedResources: { cpu: '1', memory: '2Gi' },
        resources: { requests: { cpu: '1', memory: '2Gi' } },
      },
    });
  });

  it('makes status churn invisible: the trimmed pod does not change', () => {
    const churned = fullPod();
    churned.metadata.resourceVersion = '42';
    churned.metadata.managedFields = [...managedFields, ...managedFields];
    churned.status.conditions[0] = { type: 'Ready', status: 'False', lastTransitionTime: 'later' };
    const cs = churned.status.containerStatuses[0]!;
    cs.ready = false;
    cs.restartCount = 3;
    cs.state = { running: { startedAt: 'later' } };
    expect(trimPod(churned)).toStrictEqual(trimPod(fullPod()));
  });

  it('keeps the DisruptionTarget conditions in order, and drops the conditions list without them', () => {
    const conditions = [
      { type: 'Ready', status: 'True' },
      { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'm' },
      'junk',
      { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: 'm' },
    ];
    expect(trimPod({ metadata: { name: 'p' }, status: { conditions } })).toStrictEqual({
      metadata: { name: 'p' },
      status: {
        conditions: [
          { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager' },
          { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' },
        ],
      },
    });
    expect(
      trimPod({ metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready' }] } }),
    ).toStrictEqual({ metadata: { name: 'p' }, status: {} });
  });

  it('keeps limits, so three 1-cpu limits-only pods do not fit a 1-cpu node', () => {
    const pod = trimPod({
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] },
    });
    const node = nodeInfoFromObject(
      trimNode({ metadata: { name: 'n' }, status: { allocatable: { cpu: '1', pods: '110' } } }),
    );
    if ('rejected' in node) throw new Error(node.rejected);
    const perPod = computePodRequests(pod.spec).requests.milliCPU;
    expect(perPod).toBe(1000);
    expect(3 * Number(perPod)).toBeGreaterThan(Number(node.allocatable.milliCPU));
  });

  it('passes odd shapes through untouched', () => {
    expect(trimPod(7)).toBe(7);
    expect(trimPod(null)).toBe(null);
    expect(trimPod({ metadata: 'm', spec: 'x' })).toStrictEqual({ metadata: 'm', spec: 'x' });
    const odd = trimPod({
      metadata: { name: 'p', ownerReferences: 'o' },
      spec: {
        containers: [3, { name: 'c', ports: 'p', resources: 'r' }, { ports: [null, 'x'] }],
        initContainers: {},
        volumes: [null],
      },
      status: { conditions: 'c', containerStatuses: [{ name: 'c', resources: 1 }] },
    });
    expect(odd).toStrictEqual({
      metadata: { name: 'p', ownerReferences: 'o' },
      spec: {
        containers: [3, { name: 'c', ports: 'p', resources: 'r' }, { ports: [null, 'x'] }],
        initContainers: {},
        volumes: [null],
      },
      status: { conditions: 'c', containerStatuses: [{ name: 'c', resources: 1 }] },
    });
  });
});

describe('trimNode', () => {
  it('keeps labels, taints, unschedulable, allocatable, capacity and image sizes only', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n1',
        uid: 'nu',
        resourceVersion: '7',
        labels: { zone: 'a' },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
        managedFields,
      },
      spec: {
        unschedulable: true,
        taints: [{ key: 'k', effect: 'NoSchedule' }],
        podCIDR: '10.1.0.0/24',
      },
      status: {
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        images: [{ names: ['nginx@sha256:1', 'nginx:1.27'], sizeBytes: 7 }],
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: 'now' }],
        nodeInfo: { kubeletVersion: 'v1.34.0' },
      },
    };
    expect(trimNode(node)).toStrictEqual({
      metadata: { name: 'n1', uid: 'nu', resourceVersion: '7', labels: { zone: 'a' } },
      spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        images: [{ names: ['nginx@sha256:1', 'nginx:1.27'], sizeBytes: 7 }],
      },
    });
  });
});

/** A PodGroup as the API server returns it once berth has written its status. */
function fullPodGroup(rv: string, status: Record<string, unknown>) {
  return {
    apiVersion: 'scheduling.x-k8s.io/v1alpha1',
    kind: 'PodGroup',
    metadata: {
      name: 'train',
      namespace: 'ml',
      uid: 'pg-1',
      resourceVersion: rv,
      generation: 1,
      labels: { team: 'a' },
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'berth.dev/topology-key': 'topology.kubernetes.io/rack',
      },
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields,
    },
    spec: {
      minMember: 3,
      minResources: { cpu: '3', memory: '6Gi', 'nvidia.com/gpu': 3 },
      scheduleTimeoutSeconds: 60,
    },
    status,
  };
}

describe('trimObject PodGroup', () => {
  it('keeps the metadata, creation time, topology-key annotation and the spec a gang reads, and drops the status', () => {
    const raw = fullPodGroup('9', { phase: 'Running', running: 3, occupiedBy: 'ml/train' });
    expect(trimObject('PodGroup', raw)).toStrictEqual({
      metadata: {
        name: 'train',
        namespace: 'ml',
        uid: 'pg-1',
        resourceVersion: '9',
        labels: { team: 'a' },
        creationTimestamp: '2025-01-01T00:00:00Z',
        annotations: { 'berth.dev/topology-key': 'topology.kubernetes.io/rack' },
      },
      spec: {
        minMember: 3,
        minResources: { cpu: '3', memory: '6Gi', 'nvidia.com/gpu': 3 },
        scheduleTimeoutSeconds: 60,
      },
    });
  });

  it('loses nothing the group model parses', () => {
    const raw = fullPodGroup('9', { phase: 'Pending' });
    expect(parsePodGroup(trimObject('PodGroup', raw))).toEqual(parsePodGroup(raw));
  });

  it("makes berth's own status writes invisible: the pipeline drops them as unchanged", async () => {
    const written = [
      fullPodGroup('9', {}),
      fullPodGroup('10', { phase: 'Scheduling', scheduled: 0 }),
      fullPodGroup('11', {
        phase: 'Scheduled',
        scheduled: 3,
        scheduleStartTime: '2025-01-01T00:01:00Z',
      }),
    ];
    const events: InputEvent[] = written.map((o) => ({
      type: 'ObjectUpserted',
      kind: 'PodGroup',
      object: trimObject('PodGroup', o),
    }));
    const kept = await lastValueFrom(from(events).pipe(dropUnchangedUpserts(), toArray()));
    expect(kept).toHaveLength(1);
  });
});
