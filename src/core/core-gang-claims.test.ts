// Claims a core PodGroup shares (spec.resourceClaims, DRAWorkloadResourceClaims) and claims gang members share: one allocation, reserved for the PodGroup, members where it is usable.
import { describe, expect, it } from 'vitest';
import { gpuDevices, objectEvent } from '../../test/support/dra-core-events.ts';
import { given, node } from '../../test/support/gang-harness.ts';
import { podObject } from '../../test/support/objects.ts';
import type { InputEvent } from '../events/types.ts';

const object = objectEvent;
/** Class `gpu` and a pool of four GPUs on node n1. */
const devices = gpuDevices('n1', 4);

/** Claim `name`; `group`: made from PodGroup `group`'s template (owned by it). */
const claim = (name: string, group?: string): InputEvent =>
  object('ResourceClaim', {
    metadata: {
      name,
      namespace: 'default',
      uid: `claim-${name}`,
      ...(group === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'scheduling.k8s.io/v1beta1',
                kind: 'PodGroup',
                name: group,
                uid: `${group}-uid`,
                controller: true,
              },
            ],
          }),
    },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
  });

/** Core PodGroup `train` (a gang of `minCount`) with `claims` as its spec.resourceClaims. */
const group = (minCount: number, claims: unknown[]): InputEvent =>
  object('CorePodGroup', {
    metadata: { name: 'train', namespace: 'default', uid: 'train-uid', generation: 1 },
    spec: { schedulingPolicy: { gang: { minCount } }, resourceClaims: claims },
  });

/** A member of `train` with one claim entry. */
function member(name: string, entry: Record<string, string>, created: number) {
  const p = podObject(name, {
    schedulerName: 'berth',
    requests: { cpu: '1' },
    creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, created)).toISOString(),
  });
  p.metadata.uid = `${name}-uid`;
  p.spec.schedulingGroup = { podGroupName: 'train' };
  (p.spec as Record<string, unknown>).resourceClaims = [{ name: 'gpu', ...entry }];
  return p;
}

const pgRef = { name: 'train', uid: 'train-uid' };
const reservations = (h: ReturnType<typeof given>) =>
  h.decisions.flatMap((d) =>
    d.type === 'PodReserved' ? (d.claims ?? []).map((c) => ({ node: d.node, ...c })) : [],
  );

const key = 'default/train (scheduling.k8s.io)';
/** n1 and n2, room for 8 members each, four GPUs each. */
const twoGpuNodes = [node('n1', '8'), node('n2', '8'), ...devices, ...gpuDevices('n2', 4).slice(1)];
const gangOf = (n: number, entry: (i: number) => Record<string, string>) =>
  Array.from({ length: n }, (_, i) => member(`w${i}`, entry(i), i));

describe('claims shared by a core PodGroup', () => {
  it('places a gang of 4 sharing the PodGroup’s claim on one node, with one allocation reserved for the PodGroup', () => {
    const h = given().events(...twoGpuNodes);
    h.events(claim('shared'), group(4, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    h.pods(...gangOf(4, () => ({ resourceClaimName: 'shared' }))).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    const got = reservations(h);
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.node)).size).toBe(1);
    expect(new Set(got.map((r) => JSON.stringify(r.allocation))).size).toBe(1);
    expect(got.every((r) => r.key === 'default/shared' && r.podGroup?.uid === pgRef.uid)).toBe(
      true,
    );
    // The binds write the claim for the PodGroup.
    const written = h.effects.binds.flatMap((b) => b.claims ?? []).map((c) => c.podGroup);
    expect(written).toEqual([pgRef, pgRef, pgRef, pgRef]);
    expect(h.broken).toEqual([]);
  });

  it('places none when the PodGroup claim’s allocation is not usable on a member’s node', () => {
    // The claim was allocated on n1 (room for 2 members); n2 has room and no GPU.
    const h = given().events(node('n1', '2'), node('n2', '8'), ...devices);
    const onN1 = { key: 'metadata.name', operator: 'In', values: ['n1'] };
    const result = { request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' };
    h.events(
      object('ResourceClaim', {
        metadata: { name: 'shared', namespace: 'default', uid: 'claim-shared' },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
        status: {
          allocation: {
            devices: { results: [result] },
            nodeSelector: { nodeSelectorTerms: [{ matchFields: [onN1] }] },
          },
          reservedFor: [{ apiGroup: 'scheduling.k8s.io', resource: 'podgroups', ...pgRef }],
        },
      }),
      group(4, [{ name: 'gpu', resourceClaimName: 'shared' }]),
    );
    h.pods(...gangOf(4, () => ({ resourceClaimName: 'shared' }))).drain();
    expect(h.reserved()).toEqual([]);
    // kube's words: the members that fitted carry the condition, the others their own reason.
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group is unschedulable, minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor',
    );
    expect(h.effects.unschedulable.get('default/w2')).toBe(
      '0/2 nodes are available: 1 Insufficient cpu, 1 resourceclaim not available on the node.',
    );
  });

  it('lets members sharing a template claim wait for the controller, as kube does, then places them', () => {
    const h = given().events(node('n1', '8'), ...devices);
    h.events(group(2, [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }]));
    const members = gangOf(2, () => ({ resourceClaimTemplateName: 'gpu-template' }));
    h.pods(...members).drain();
    // No claim named in the pods' status yet: kube's PreEnqueue holds them, nothing is decided.
    expect(h.decisions).toEqual([]);
    // The controller made the group's claim and named it in the members' status.
    h.events(claim('train-gpu-x7k2p', 'train'));
    for (const p of members)
      (p as { status?: unknown }).status = {
        resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'train-gpu-x7k2p' }],
      };
    h.pods(...members).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1']);
    expect(reservations(h).map((r) => r.podGroup)).toEqual([pgRef, pgRef]);
  });

  it('leaves a member’s claim that does not match the PodGroup’s exactly its own, as kube does, and places the gang', () => {
    const h = given().events(node('n1', '8'), ...devices, claim('shared'));
    for (let i = 0; i < 2; i++) h.events(claim(`own-${i}`));
    // Same entry name, another claim: kube's BindTo reserves it for the pod.
    h.events(group(2, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    h.pods(...gangOf(2, (i) => ({ resourceClaimName: `own-${i}` }))).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1']);
    const reserved = reservations(h);
    expect(reserved.map((c) => c.key).sort()).toEqual(['default/own-0', 'default/own-1']);
    expect(reserved.every((c) => c.allocation !== undefined && c.podGroup === undefined)).toBe(
      true,
    );
    expect(h.broken).toEqual([]);
  });

  it('places a gang whose PodGroup lists claims no member uses', () => {
    const h = given().events(node('n1', '8'), claim('shared'));
    h.events(group(2, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    const plain = [0, 1].map((i) => {
      const p = member(`w${i}`, {}, i);
      delete (p.spec as Record<string, unknown>).resourceClaims;
      return p;
    });
    h.pods(...plain).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1']);
  });

  it('refuses a group whose spec.resourceClaims the API server’s validation would refuse, in its words', () => {
    const h = given().events(node('n1', '8'), ...devices, claim('a'));
    h.events(group(1, [{ name: 'gpu', resourceClaimName: 'a', resourceClaimTemplateName: 'b' }]));
    h.pods(member('w0', { resourceClaimName: 'a' }, 0)).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      `pod group ${key}: PodGroup default/train (scheduling.k8s.io/v1beta1) is invalid: spec.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: resourceClaimName, resourceClaimTemplateName`,
    );
  });
});

describe('a claim the members of a gang share (kube 1.37’s pending allocations of a PodGroup cycle)', () => {
  /** A member whose entry `gpu` names the claim `shared` (its own entry: the PodGroup lists none). */
  const sharing = (n: number) => gangOf(n, () => ({ resourceClaimName: 'shared' }));
  it('places a gang of 4 sharing one claim on the node of its one allocation', () => {
    const h = given().events(...twoGpuNodes);
    h.events(claim('shared'), group(4, []));
    h.pods(...sharing(4)).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    const got = reservations(h);
    expect(new Set(got.map((a) => a.node)).size).toBe(1);
    expect(new Set(got.map((a) => JSON.stringify(a.allocation))).size).toBe(1);
    expect(got[0]?.allocation?.devices.results).toHaveLength(1);
    expect(got.every((a) => a.podGroup === undefined)).toBe(true);
    expect(h.broken).toEqual([]);
  });

  it('places none when the allocation’s node cannot hold every member, with kube’s reason on the others', () => {
    // n1 has the GPUs but room for 2 members; n2 has room and no GPU.
    const h = given().events(node('n1', '2'), node('n2', '8'), ...devices);
    h.events(claim('shared'), group(4, []));
    h.pods(...sharing(4)).drain();
    expect(h.reserved()).toEqual([]);
    // kube's words: the members that fitted carry the condition, the others their own reason.
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group is unschedulable, minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor',
    );
    expect(h.effects.unschedulable.get('default/w2')).toBe(
      '0/2 nodes are available: 1 Insufficient cpu, 1 resourceclaim not available on the node.',
    );
    expect(h.broken).toEqual([]);
  });
});
