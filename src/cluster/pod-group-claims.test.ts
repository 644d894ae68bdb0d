// A core PodGroup's spec.resourceClaims and status.resourceClaimStatuses as berth reads them, with the API server's validation messages.
import { describe, expect, it } from 'vitest';
import { parseCorePodGroup } from './core-pod-groups.ts';
import {
  parsePodGroupClaims,
  podGroupClaimsRefusal,
  sharedGroupClaim,
} from './pod-group-claims.ts';

const parse = (claims: unknown, statuses?: unknown) =>
  parsePodGroupClaims(
    { resourceClaims: claims },
    statuses === undefined ? undefined : { resourceClaimStatuses: statuses },
  );

describe('parsePodGroupClaims', () => {
  it('reads a claim entry and a template entry with the name its status records', () => {
    const got = parse(
      [
        { name: 'nic', resourceClaimName: 'fabric' },
        { name: 'gpu', resourceClaimTemplateName: 'gpus' },
        { name: 'none', resourceClaimTemplateName: 'optional' },
      ],
      [{ name: 'gpu', resourceClaimName: 'train-gpu-x7k2p' }, { name: 'none' }],
    );
    expect(got).toEqual({
      entries: [
        { name: 'nic', claimName: 'fabric' },
        { name: 'gpu', templateName: 'gpus', generatedName: 'train-gpu-x7k2p' },
        { name: 'none', templateName: 'optional', generatedName: null },
      ],
      problems: [],
    });
  });

  it('has nothing for a PodGroup without resourceClaims', () => {
    expect(parsePodGroupClaims({}, undefined)).toEqual({ entries: [], problems: [] });
    expect(parse([])).toEqual({ entries: [], problems: [] });
  });

  it.each([
    [
      'five entries',
      [1, 2, 3, 4, 5].map((i) => ({ name: `c${i}`, resourceClaimName: `c${i}` })),
      'spec.resourceClaims: Too many: 5: must have at most 4 items',
    ],
    [
      'an entry without a name',
      [{ resourceClaimName: 'a' }],
      'spec.resourceClaims[0].name: Required value',
    ],
    [
      'neither claim nor template',
      [{ name: 'gpu' }],
      'spec.resourceClaims[0]: Invalid value: "": must specify one of: resourceClaimName, resourceClaimTemplateName',
    ],
    [
      'both claim and template',
      [{ name: 'gpu', resourceClaimName: 'a', resourceClaimTemplateName: 'b' }],
      'spec.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: resourceClaimName, resourceClaimTemplateName',
    ],
    [
      'two entries of one name',
      [
        { name: 'gpu', resourceClaimName: 'a' },
        { name: 'gpu', resourceClaimName: 'b' },
      ],
      'spec.resourceClaims[1]: Duplicate value: {"name":"gpu","resourceClaimName":"b"}',
    ],
    [
      'a name with dots',
      [{ name: 'my.claim', resourceClaimName: 'a' }],
      'spec.resourceClaims[0].name: Invalid value: "my.claim": must not contain dots',
    ],
    [
      'a claim name that is no DNS subdomain',
      [{ name: 'gpu', resourceClaimName: '.foo_bar' }],
      `spec.resourceClaims[0].resourceClaimName: Invalid value: ".foo_bar": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ])('words %s as the API server’s validation does', (_, claims, problem) => {
    expect(parse(claims).problems).toEqual([problem]);
  });

  it('refuses a status that names no spec entry', () => {
    const got = parse(
      [{ name: 'gpu', resourceClaimTemplateName: 't' }],
      [{ name: 'nic', resourceClaimName: 'x' }],
    );
    expect(got.problems).toEqual([
      'status.resourceClaimStatuses[0].name: Invalid value: "nic": must match the name of an entry in `spec.resourceClaims`',
    ]);
    expect(got.entries).toEqual([{ name: 'gpu', templateName: 't' }]);
  });

  it('puts the problems in the PodGroup’s invalid reason', () => {
    const pg = parseCorePodGroup({
      metadata: { name: 'train', namespace: 'ml' },
      spec: { schedulingPolicy: { gang: { minCount: 2 } }, resourceClaims: [{ name: 'gpu' }] },
    });
    if (!('value' in pg)) throw new Error(pg.rejected);
    expect(pg.value.invalid).toBe(
      'spec.resourceClaims[0]: Invalid value: "": must specify one of: resourceClaimName, resourceClaimTemplateName',
    );
    expect(pg.value.resourceClaims?.entries).toEqual([{ name: 'gpu' }]);
  });
});

describe('sharedGroupClaim (kube’s BindTo)', () => {
  const group = parse([
    { name: 'gpu', resourceClaimName: 'shared' },
    { name: 'scratch', resourceClaimTemplateName: 'tmp' },
  ]);
  it.each([
    ['the same name and claim', { name: 'gpu', claimName: 'shared' }, 'gpu'],
    ['the same name and template', { name: 'scratch', templateName: 'tmp' }, 'scratch'],
    ['the same name, another claim', { name: 'gpu', claimName: 'other' }, undefined],
    ['another name, the same claim', { name: 'gpu2', claimName: 'shared' }, undefined],
    [
      'the same name, a template instead of the claim',
      { name: 'gpu', templateName: 'shared' },
      undefined,
    ],
  ])('matches a pod entry with %s: %s', (_, podClaim, want) => {
    expect(sharedGroupClaim(group, podClaim)?.name).toBe(want);
  });

  it('refuses a group only for claims the API server’s validation would refuse', () => {
    expect(podGroupClaimsRefusal('ml/train', group)).toBeUndefined();
    expect(podGroupClaimsRefusal('ml/train', parse([{ name: 'gpu' }]))).toBe(
      'PodGroup ml/train (scheduling.k8s.io/v1beta1) is invalid: spec.resourceClaims[0]: Invalid value: "": must specify one of: resourceClaimName, resourceClaimTemplateName',
    );
  });

  it('keeps the PodGroup’s uid, which the group’s reservations carry', () => {
    expect(
      parsePodGroupClaims({ resourceClaims: [{ name: 'a', resourceClaimName: 'a' }] }, {}, 'pg-1'),
    ).toMatchObject({ podGroupUid: 'pg-1' });
  });
});
