// Pins that no placement constraint berth reads is refused any more: each has a plugin.
import { describe, expect, it } from 'vitest';
import { unsupportedConstraint, unsupportedReason } from './unsupported.ts';

const term = {
  labelSelector: { matchLabels: { app: 'db' } },
  topologyKey: 'kubernetes.io/hostname',
};
const app = (ports?: unknown[]) => ({ name: 'app', ...(ports === undefined ? {} : { ports }) });

describe('unsupportedConstraint', () => {
  const cases: [string, unknown][] = [
    ['A plain pod is supported', { containers: [app()] }],
    [
      'Required pod affinity is checked by InterPodAffinity, not refused',
      { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } },
    ],
    [
      'Required pod anti-affinity is checked by InterPodAffinity, not refused',
      { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } },
    ],
    [
      'Preferred pod affinity and anti-affinity are scored by InterPodAffinity',
      {
        affinity: {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term }],
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term }],
          },
        },
      },
    ],
    [
      'Required node affinity is checked by NodeAffinity',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }],
            },
          },
        },
      },
    ],
    [
      'A DoNotSchedule spread constraint is checked by PodTopologySpread',
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone' }] },
    ],
    [
      'A host port is checked by NodePorts',
      { containers: [app([{ containerPort: 9090, hostPort: 9090 }])], hostNetwork: true },
    ],
    [
      'All of them together are still supported',
      {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone' }],
        containers: [app([{ hostPort: 1 }])],
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
        },
      },
    ],
  ];
  for (const [name, spec] of cases) {
    it(name, () => expect(unsupportedConstraint(spec)).toBeUndefined());
  }

  it('never throws on odd shapes', () => {
    const odd: unknown[] = [
      undefined,
      null,
      7,
      'spec',
      [],
      { affinity: 'x' },
      { affinity: { podAffinity: [] } },
      { topologySpreadConstraints: null },
      { containers: 'x', initContainers: [null, 3, { ports: 'x' }, { ports: [null, 'p'] }] },
    ];
    for (const spec of odd) expect(unsupportedConstraint(spec)).toBeUndefined();
  });

  it('words the reason for a field berth cannot honour', () => {
    expect(unsupportedReason('spec.x')).toBe('berth does not support spec.x yet');
  });
});
