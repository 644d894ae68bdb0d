// Pins which pod constraints berth refuses until a plugin checks them, and the field each reason names.
import { describe, expect, it } from 'vitest';
import { unsupportedConstraint } from './unsupported.ts';

const term = {
  labelSelector: { matchLabels: { app: 'db' } },
  topologyKey: 'kubernetes.io/hostname',
};
const app = (ports?: unknown[]) => ({ name: 'app', ...(ports === undefined ? {} : { ports }) });

describe('unsupportedConstraint', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['A plain pod is supported', { containers: [app()] }, undefined],
    [
      'Required pod affinity is refused',
      { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } },
      'berth does not support spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution yet',
    ],
    [
      'Required pod anti-affinity is refused',
      { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } },
      'berth does not support spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution yet',
    ],
    [
      'Required affinity is named before required anti-affinity',
      {
        affinity: {
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] },
        },
      },
      'berth does not support spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution yet',
    ],
    [
      'Preferred pod affinity and anti-affinity only score, so they pass',
      {
        affinity: {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term }],
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term }],
            requiredDuringSchedulingIgnoredDuringExecution: [],
          },
        },
      },
      undefined,
    ],
    [
      'An empty or null required list is no constraint',
      { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: null } } },
      undefined,
    ],
    [
      'Required node affinity is checked by NodeAffinity, so it passes',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }],
            },
          },
        },
      },
      undefined,
    ],
    [
      'A DoNotSchedule spread constraint is checked by PodTopologySpread, not refused',
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone' }] },
      undefined,
    ],
    [
      'ScheduleAnyway spread only scores, so it passes',
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      },
      undefined,
    ],
    [
      'A host port is checked by NodePorts, not refused',
      { containers: [app([{ containerPort: 9090, hostPort: 9090 }])], hostNetwork: true },
      undefined,
    ],
    [
      'Required anti-affinity is refused whatever else the pod has',
      {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone' }],
        containers: [app([{ hostPort: 1 }])],
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } },
      },
      'berth does not support spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution yet',
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => expect(unsupportedConstraint(spec)).toBe(want));
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
    for (const spec of odd) expect(() => unsupportedConstraint(spec)).not.toThrow();
    expect(unsupportedConstraint(null)).toBeUndefined();
  });
});
