// Tests the DisruptionTarget conditions berth writes and which failures count as refusals.
import { describe, expect, it } from 'vitest';
import type { ApiFailure } from './api-error.ts';
import { disruptionAbandoned, disruptionTarget, refused } from './disruption-target.ts';

const at = new Date('2030-01-02T03:04:05.678Z');
const failure = (code: number | undefined, message = 'x'): ApiFailure => ({
  code,
  reason: undefined,
  message,
  network: code === undefined,
});

describe('refused', () => {
  it.each([
    [400, true],
    [403, true],
    [422, true],
    [429, true],
    [500, false],
    [503, false],
    [undefined, false],
  ] as const)('an answer %s is a refusal: %s', (code, expected) => {
    expect(refused(failure(code))).toBe(expected);
  });
});

describe('DisruptionTarget conditions', () => {
  it('marks a victim as kube 1.34 does, with the generation when known', () => {
    expect(disruptionTarget('berth', at, 3)).toEqual({
      type: 'DisruptionTarget',
      observedGeneration: 3,
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: 'berth: preempting to accommodate a higher priority pod',
      lastTransitionTime: '2030-01-02T03:04:05.678Z',
    });
    expect(disruptionTarget('berth', at, 0)).not.toHaveProperty('observedGeneration');
  });

  it('takes it back with status False and the reason the delete failed', () => {
    expect(disruptionAbandoned('berth', at, failure(403, 'forbidden'))).toEqual({
      type: 'DisruptionTarget',
      status: 'False',
      reason: 'PreemptionAbandoned',
      message: 'berth: not preempted after all: deleting the pod failed: forbidden',
      lastTransitionTime: '2030-01-02T03:04:05.678Z',
    });
  });
});
