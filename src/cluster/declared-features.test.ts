// Tests for the node features a pod spec needs (kube 1.37.2's inference) and a node's declared list.
import { describe, expect, it } from 'vitest';
import type { BerthEvent } from '../events/types.ts';
import {
  NO_FEATURES,
  parseDeclaredFeatures,
  requiredNodeFeatures,
  restartAllContainers,
  sameFeatures,
  userNamespacesHostNetwork,
  volumeBindMountOptions,
} from './declared-features.ts';
import { evolve, initialState, reduce } from './reducer.ts';
import type { ClusterStateData } from './serialize.ts';
import { restoreClusterState, serializeClusterState } from './serialize.ts';

const restartRule = { action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [42] } };

describe('requiredNodeFeatures', () => {
  const cases: { name: string; spec: unknown; want: readonly string[] }[] = [
    { name: 'a plain pod needs nothing', spec: { containers: [{ name: 'a' }] }, want: [] },
    { name: 'a spec that is not an object needs nothing', spec: 'x', want: [] },
    {
      name: 'a container rule restarting all containers',
      spec: { containers: [{ name: 'a', restartPolicyRules: [restartRule] }] },
      want: [restartAllContainers],
    },
    {
      name: 'an init container rule restarting all containers',
      spec: { initContainers: [{ name: 'i', restartPolicyRules: [restartRule] }], containers: [] },
      want: [restartAllContainers],
    },
    {
      name: 'a rule with another action needs nothing',
      spec: { containers: [{ restartPolicyRules: [{ action: 'Restart' }] }] },
      want: [],
    },
    {
      name: 'host network inside a user namespace',
      spec: { hostNetwork: true, hostUsers: false },
      want: [userNamespacesHostNetwork],
    },
    { name: 'host network with host users unset', spec: { hostNetwork: true }, want: [] },
    {
      name: 'host network with host users',
      spec: { hostNetwork: true, hostUsers: true },
      want: [],
    },
    { name: 'a user namespace without host network', spec: { hostUsers: false }, want: [] },
    {
      name: 'bind mount options on an ephemeral container',
      spec: { ephemeralContainers: [{ volumeMounts: [{ bindMountOptions: ['noexec'] }] }] },
      want: [volumeBindMountOptions],
    },
    {
      name: 'empty bind mount options need nothing',
      spec: { containers: [{ volumeMounts: [{ name: 'v', bindMountOptions: [] }] }] },
      want: [],
    },
    {
      name: 'all three, in kube registry order',
      spec: {
        hostNetwork: true,
        hostUsers: false,
        containers: [
          { volumeMounts: [{ bindMountOptions: ['nosuid'] }], restartPolicyRules: [restartRule] },
        ],
      },
      want: [restartAllContainers, userNamespacesHostNetwork, volumeBindMountOptions],
    },
    {
      name: 'malformed lists are read as nothing',
      spec: { containers: 'x', initContainers: [null, 3], hostNetwork: 'true', hostUsers: 0 },
      want: [],
    },
  ];
  for (const c of cases) it(c.name, () => expect(requiredNodeFeatures(c.spec)).toEqual(c.want));

  it('shares one empty list for pods needing nothing', () => {
    expect(requiredNodeFeatures({})).toBe(NO_FEATURES);
  });
});

describe('parseDeclaredFeatures', () => {
  it('keeps the strings in their order', () => {
    expect(parseDeclaredFeatures(['A', 7, 'B'])).toEqual(['A', 'B']);
  });
  it('reads anything but a list as none', () => {
    expect(parseDeclaredFeatures('A')).toBe(NO_FEATURES);
    expect(parseDeclaredFeatures(undefined)).toBe(NO_FEATURES);
  });
});

describe('sameFeatures', () => {
  it('compares entry by entry, order included', () => {
    expect(sameFeatures(['A', 'B'], ['A', 'B'])).toBe(true);
    expect(sameFeatures(['A', 'B'], ['B', 'A'])).toBe(false);
    expect(sameFeatures(['A'], ['A', 'B'])).toBe(false);
  });
});

describe('declared features in the cluster state', () => {
  const nodeUp = (declaredFeatures?: string[]): BerthEvent => ({
    type: 'NodeUpserted',
    node: { metadata: { name: 'n' }, status: { allocatable: { pods: '10' }, declaredFeatures } },
  });
  const podUp: BerthEvent = {
    type: 'PodUpserted',
    pod: { metadata: { name: 'p', uid: 'p-1' }, spec: { hostNetwork: true, hostUsers: false } },
  };

  it('reports a node update with the features it had before', () => {
    const state = initialState();
    evolve(state, { seq: 1, time: 0, event: nodeUp() });
    const change = reduce(state, { seq: 2, time: 0, event: nodeUp([restartAllContainers]) });
    expect(change).toMatchObject({
      kind: 'node',
      before: { declaredFeatures: [] },
      after: { declaredFeatures: [restartAllContainers] },
    });
  });

  it('survives a snapshot round trip, on nodes and pods', () => {
    const state = initialState();
    evolve(state, { seq: 1, time: 0, event: nodeUp([restartAllContainers]) });
    evolve(state, { seq: 2, time: 0, event: podUp });
    const data = JSON.parse(JSON.stringify(serializeClusterState(state))) as ClusterStateData;
    const restored = restoreClusterState(data);
    expect(restored.nodes.get('n')?.declaredFeatures).toEqual([restartAllContainers]);
    expect(restored.pods.get('p-1')?.info.requiredNodeFeatures).toEqual([
      userNamespacesHostNetwork,
    ]);
  });
});
