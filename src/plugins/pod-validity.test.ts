// Table tests for PodValidity (berth's PreFilter for pods the reducer could not parse).
import { describe, expect, it } from 'vitest';
import { makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import { ErrReasonInvalidPod, name, podValidity } from './pod-validity.ts';

describe('PodValidity', () => {
  const cases = [
    { name: 'A valid pod passes', invalid: undefined, want: success },
    {
      name: 'An invalid pod is rejected with its own text as the reason',
      invalid: 'spec.containers[0].resources.requests.cpu: unparsable quantity "lots"',
      want: {
        code: 'UnschedulableAndUnresolvable',
        reasons: ['spec.containers[0].resources.requests.cpu: unparsable quantity "lots"'],
        plugin: name,
      },
    },
    {
      name: 'An invalid pod with an empty text still gets a reason',
      invalid: '',
      want: { code: 'UnschedulableAndUnresolvable', reasons: [ErrReasonInvalidPod], plugin: name },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(podValidity.preFilter(makePod({ invalid: c.invalid }))).toEqual(c.want);
    });
  }
});
