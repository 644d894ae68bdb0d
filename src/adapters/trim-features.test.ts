// Pins what trimming keeps for NodeDeclaredFeatures: the pod fields it infers from, the node's declared list.
import { describe, expect, it } from 'vitest';
import { requiredNodeFeatures } from '../cluster/declared-features.ts';
import { trimNode, trimPod } from './trim.ts';

describe('trimPod: what NodeDeclaredFeatures reads', () => {
  const spec = {
    hostNetwork: true,
    hostUsers: false,
    containers: [
      {
        name: 'a',
        restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In' } }],
        volumeMounts: [
          { name: 'v', mountPath: '/v', bindMountOptions: ['noexec'] },
          { name: 'w', mountPath: '/w' },
        ],
      },
    ],
    ephemeralContainers: [
      { name: 'dbg', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/v' }] },
      { name: 'dbg2', volumeMounts: [{ name: 'v', bindMountOptions: ['nosuid'] }] },
    ],
  };
  const trimmed = trimPod({ metadata: { name: 'p' }, spec });

  it('keeps restart rule actions, hostUsers and only the mounts with bind mount options', () => {
    expect(trimmed.spec).toStrictEqual({
      hostNetwork: true,
      hostUsers: false,
      containers: [
        {
          name: 'a',
          restartPolicyRules: [{ action: 'RestartAllContainers' }],
          volumeMounts: [{ bindMountOptions: ['noexec'] }],
        },
      ],
      ephemeralContainers: [{ volumeMounts: [{ bindMountOptions: ['nosuid'] }] }],
    });
    expect(trimPod(trimmed)).toStrictEqual(trimmed);
  });

  it('loses none of the features the pod needs', () => {
    expect(requiredNodeFeatures(trimmed.spec)).toEqual(requiredNodeFeatures(spec));
    expect(requiredNodeFeatures(trimmed.spec)).toHaveLength(3);
  });
});

describe('trimNode: declared features', () => {
  it('keeps status.declaredFeatures', () => {
    const features = ['RestartAllContainersOnContainerExits', 'UserNamespacesHostNetworkSupport'];
    const node = trimNode({
      metadata: { name: 'n' },
      status: { declaredFeatures: features, nodeInfo: { kubeletVersion: 'v1.37.2' } },
    });
    expect(node.status).toStrictEqual({ declaredFeatures: features });
  });
});
