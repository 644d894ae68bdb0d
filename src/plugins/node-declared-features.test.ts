// Tests for NodeDeclaredFeatures by release, after kube 1.37.2's TestNodeDeclaredFeaturesFilter.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import {
  restartAllContainers,
  userNamespacesHostNetwork,
  volumeBindMountOptions,
} from '../cluster/declared-features.ts';
import { nodeInfoFromObject } from '../cluster/node-info.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import type { ClusterChange, NodeFacts, NodeInfo, PodInfo } from '../cluster/types.ts';
import { success } from '../framework/types.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import {
  checkedFeatures,
  ErrReasonUnsatisfied,
  name,
  newNodeDeclaredFeatures,
} from './node-declared-features.ts';

const rejected = {
  code: 'UnschedulableAndUnresolvable',
  reasons: ["node(s) didn't match Pod's required features"],
  plugin: 'NodeDeclaredFeatures',
};

describe('NodeDeclaredFeatures', () => {
  it("uses kube's reason and name", () => {
    expect(ErrReasonUnsatisfied).toBe(rejected.reasons[0]);
    expect(name).toBe(rejected.plugin);
  });

  it('checks the features each release infers (none before the 1.36 gate)', () => {
    expect([...checkedFeatures('1.34')]).toEqual([]);
    expect([...checkedFeatures('1.35')]).toEqual([]);
    expect([...checkedFeatures('1.36')]).toEqual([restartAllContainers, userNamespacesHostNetwork]);
    expect([...checkedFeatures('1.37')]).toEqual([
      restartAllContainers,
      userNamespacesHostNetwork,
      volumeBindMountOptions,
    ]);
  });

  const restarting = makePod({ requiredNodeFeatures: [restartAllContainers] });
  const cases: {
    name: string;
    release: KubeRelease;
    needs: string[];
    declared: string[];
    fits: boolean;
  }[] = [
    {
      name: 'refuses a node declaring nothing (1.37)',
      release: '1.37',
      needs: [restartAllContainers],
      declared: [],
      fits: false,
    },
    {
      name: 'admits a node declaring the feature (1.37)',
      release: '1.37',
      needs: [restartAllContainers],
      declared: ['ExtendWebSocketsToKubelet', restartAllContainers],
      fits: true,
    },
    {
      name: 'refuses a node declaring only some of the features',
      release: '1.37',
      needs: [restartAllContainers, userNamespacesHostNetwork],
      declared: [restartAllContainers],
      fits: false,
    },
    {
      name: 'refuses a node without the feature at 1.36 too (beta, on)',
      release: '1.36',
      needs: [userNamespacesHostNetwork],
      declared: [],
      fits: false,
    },
    {
      name: 'ignores bind mount options at 1.36 (kube 1.36.3 does not infer them)',
      release: '1.36',
      needs: [volumeBindMountOptions],
      declared: [],
      fits: true,
    },
    {
      name: 'refuses a node without bind mount options at 1.37',
      release: '1.37',
      needs: [volumeBindMountOptions],
      declared: [restartAllContainers],
      fits: false,
    },
    {
      name: 'passes every node at 1.35 (gate alpha, off)',
      release: '1.35',
      needs: [restartAllContainers],
      declared: [],
      fits: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plugin = newNodeDeclaredFeatures(undefined, c.release);
      const pod = makePod({ requiredNodeFeatures: c.needs });
      const got = plugin.filter(pod, makeNode({ declaredFeatures: c.declared }));
      expect(got).toEqual(c.fits ? success : rejected);
    });
  }

  it('is skipped (PreFilter Skip) for a pod needing no feature the release checks', () => {
    const p37 = newNodeDeclaredFeatures(undefined, '1.37');
    expect(p37.preFilterSkip(makePod())).toBe(true);
    expect(p37.preFilterSkip(restarting)).toBe(false);
    expect(newNodeDeclaredFeatures(undefined, '1.35').preFilterSkip(restarting)).toBe(true);
    const binds = makePod({ requiredNodeFeatures: [volumeBindMountOptions] });
    expect(newNodeDeclaredFeatures(undefined, '1.36').preFilterSkip(binds)).toBe(true);
  });

  describe('queueing hint', () => {
    const hint = newNodeDeclaredFeatures(undefined, '1.37').queueingHint;
    const after = makeNode({ name: 'n', declaredFeatures: [restartAllContainers] });
    const facts = (declaredFeatures: string[]): NodeFacts => ({
      labels: after.labels,
      taints: after.taints,
      unschedulable: after.unschedulable,
      allocatable: after.allocatable,
      declaredFeatures,
    });
    const change = (before: NodeFacts | undefined): ClusterChange => ({
      kind: 'node',
      name: 'n',
      before,
      after,
    });
    it('requeues on a node added', () => expect(hint(change(undefined))).toBe(true));
    it('requeues when the declared features changed', () =>
      expect(hint(change(facts([])))).toBe(true));
    it('skips a node update that keeps them', () =>
      expect(hint(change(facts([restartAllContainers])))).toBe(false));
    it('skips a node deleted', () =>
      expect(hint({ kind: 'node', name: 'n', before: facts([]), after: undefined })).toBe(false));
  });

  it('reads both sides from the objects: a RestartAllContainers pod, nodes with and without', () => {
    const pod = podInfoFromObject({
      metadata: { name: 'p', uid: 'u' },
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'main',
            restartPolicy: 'Never',
            restartPolicyRules: [
              { action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [7] } },
            ],
          },
        ],
      },
    }) as PodInfo;
    const node = (declaredFeatures?: string[]) =>
      nodeInfoFromObject({
        metadata: { name: 'n' },
        status: { allocatable: { cpu: '1', pods: '10' }, declaredFeatures },
      }) as NodeInfo;
    const plugin = newNodeDeclaredFeatures(undefined, '1.37');
    expect(pod.requiredNodeFeatures).toEqual([restartAllContainers]);
    expect(plugin.filter(pod, node())).toEqual(rejected);
    expect(plugin.filter(pod, node([restartAllContainers]))).toBe(success);
    expect(newNodeDeclaredFeatures(undefined, '1.35').filter(pod, node())).toBe(success);
  });
});
