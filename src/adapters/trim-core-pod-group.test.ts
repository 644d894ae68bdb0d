// Pins what trimming keeps of Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1) and of a pod's spec.schedulingGroup.
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { parseCorePodGroup } from '../cluster/core-pod-groups.ts';
import type { InputEvent } from '../events/types.ts';
import { dropUnchangedUpserts } from '../runtime/pipeline.ts';
import { trimObject, trimPod } from './trim.ts';

const managedFields = [
  { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:spec': {} } },
];

/** A core PodGroup (scheduling.k8s.io/v1beta1) as the API server returns it, with a condition. */
function fullCorePodGroup(rv: string, condition?: { status: string; message: string }) {
  return {
    apiVersion: 'scheduling.k8s.io/v1beta1',
    kind: 'PodGroup',
    metadata: {
      name: 'train',
      namespace: 'ml',
      uid: 'pg-2',
      resourceVersion: rv,
      generation: 1,
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields,
    },
    spec: {
      workloadRef: { workloadName: 'job', templateName: 'workers' },
      schedulingPolicy: { gang: { minCount: 3 } },
      schedulingConstraints: { topology: [{ key: 'topology.kubernetes.io/rack', extra: 1 }] },
      disruptionMode: { single: {} },
      priority: 0,
      priorityClassName: 'batch',
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status:
      condition === undefined
        ? {}
        : {
            conditions: [
              {
                type: 'PodGroupInitiallyScheduled',
                status: condition.status,
                reason: condition.status === 'True' ? 'Scheduled' : 'Unschedulable',
                message: condition.message,
                observedGeneration: 1,
                lastTransitionTime: `2025-01-01T00:0${rv}:00Z`,
              },
            ],
          },
  };
}

describe('trimObject CorePodGroup', () => {
  it('keeps the policy, topology, priority, preemption policy, disruption mode, generation, creation time and the conditions’ type and status', () => {
    expect(
      trimObject('CorePodGroup', fullCorePodGroup('3', { status: 'False', message: 'x' })),
    ).toStrictEqual({
      metadata: {
        name: 'train',
        namespace: 'ml',
        uid: 'pg-2',
        resourceVersion: '3',
        creationTimestamp: '2025-01-01T00:00:00Z',
        generation: 1,
      },
      spec: {
        schedulingPolicy: { gang: { minCount: 3 } },
        schedulingConstraints: { topology: [{ key: 'topology.kubernetes.io/rack' }] },
        disruptionMode: { single: {} },
        priority: 0,
        preemptionPolicy: 'PreemptLowerPriority',
      },
      status: { conditions: [{ type: 'PodGroupInitiallyScheduled', status: 'False' }] },
    });
  });

  it('loses nothing the group model parses', () => {
    const raw = fullCorePodGroup('3', { status: 'True', message: '' });
    expect(parseCorePodGroup(trimObject('CorePodGroup', raw))).toEqual(parseCorePodGroup(raw));
  });

  it("lets only berth's first True condition through: new messages of a False one are unchanged upserts", async () => {
    const written = [
      fullCorePodGroup('1'),
      fullCorePodGroup('2', {
        status: 'False',
        message: 'minCount (3) cannot be satisfied: 2 scheduled, 0 remaining',
      }),
      fullCorePodGroup('3', {
        status: 'False',
        message: 'minCount (3) cannot be satisfied: 1 scheduled, 0 remaining',
      }),
      fullCorePodGroup('4', { status: 'True', message: '' }),
    ];
    const events: InputEvent[] = written.map((o) => ({
      type: 'ObjectUpserted',
      kind: 'CorePodGroup',
      object: trimObject('CorePodGroup', o),
    }));
    const kept = await lastValueFrom(from(events).pipe(dropUnchangedUpserts(), toArray()));
    expect(kept).toHaveLength(3);
  });

  it('keeps the pod’s spec.schedulingGroup', () => {
    const pod = {
      metadata: { name: 'p', namespace: 'ml', uid: 'u' },
      spec: { schedulingGroup: { podGroupName: 'train', other: 1 }, containers: [] },
    };
    expect(trimPod(pod).spec).toMatchObject({ schedulingGroup: { podGroupName: 'train' } });
    expect(
      (trimPod(pod).spec as Record<string, Record<string, unknown>>).schedulingGroup,
    ).toStrictEqual({
      podGroupName: 'train',
    });
  });
});

describe('trimObject CorePodGroup resourceClaims', () => {
  it('keeps spec.resourceClaims and the claim names status.resourceClaimStatuses records', () => {
    const pg = fullCorePodGroup('4');
    const claims = [
      { name: 'gpu', resourceClaimTemplateName: 'gpus' },
      { name: 'nic', resourceClaimName: 'fabric' },
    ];
    const statuses = [{ name: 'gpu', resourceClaimName: 'train-gpu-x7k2p' }];
    const raw = {
      ...pg,
      spec: { ...pg.spec, resourceClaims: claims },
      status: { resourceClaimStatuses: statuses },
    };
    const trimmed = trimObject('CorePodGroup', raw) as Record<string, Record<string, unknown>>;
    expect(trimmed.spec?.resourceClaims).toStrictEqual(claims);
    expect(trimmed.status?.resourceClaimStatuses).toStrictEqual(statuses);
  });
});
