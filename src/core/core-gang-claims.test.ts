// Claims a core PodGroup shares (spec.resourceClaims, DRAWorkloadResourceClaims): berth refuses a group whose members use one, and leaves members' own claims as kube does.
import { describe, expect, it } from 'vitest';
import { gpuDevices, objectEvent } from '../../test/support/dra-core-events.ts';
import { given, node } from '../../test/support/gang-harness.ts';
import { podObject } from '../../test/support/objects.ts';
import { sharedClaimsNotSupported } from '../cluster/pod-group-claims.ts';
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

const key = 'default/train (scheduling.k8s.io)';
const gangOf = (n: number, entry: (i: number) => Record<string, string>) =>
  Array.from({ length: n }, (_, i) => member(`w${i}`, entry(i), i));

describe('claims shared by a core PodGroup', () => {
  it('refuses a gang of 4 whose members share the PodGroup’s claim, placing none and saying why', () => {
    const h = given().events(node('n1', '8'), ...devices, claim('shared'));
    h.events(group(4, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    h.pods(...gangOf(4, () => ({ resourceClaimName: 'shared' }))).drain();
    expect(h.reserved()).toEqual([]);
    const said = `pod group ${key}: ${sharedClaimsNotSupported}: pod default/w0 uses spec.resourceClaims "gpu" of PodGroup default/train`;
    for (let i = 0; i < 4; i++) expect(h.effects.unschedulable.get(`default/w${i}`)).toBe(said);
    expect(h.broken).toEqual([]);
  });

  it('lets members sharing a template claim wait for the controller, as kube does, then refuses the group', () => {
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
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w1')).toBe(
      `pod group ${key}: ${sharedClaimsNotSupported}: pod default/w0 uses spec.resourceClaims "gpu" of PodGroup default/train`,
    );
  });

  it('leaves a member’s claim that does not match the PodGroup’s exactly its own, as kube does, and places the gang', () => {
    const h = given().events(node('n1', '8'), ...devices, claim('shared'));
    for (let i = 0; i < 2; i++) h.events(claim(`own-${i}`));
    // Same entry name, another claim: kube's BindTo reserves it for the pod.
    h.events(group(2, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    h.pods(...gangOf(2, (i) => ({ resourceClaimName: `own-${i}` }))).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1']);
    const reserved = h.decisions.flatMap((d) => (d.type === 'PodReserved' ? (d.claims ?? []) : []));
    expect(reserved.map((c) => c.key).sort()).toEqual(['default/own-0', 'default/own-1']);
    expect(reserved.every((c) => c.allocation !== undefined)).toBe(true);
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
  const allocations = (h: ReturnType<typeof given>) =>
    h.decisions.flatMap((d) =>
      d.type === 'PodReserved'
        ? (d.claims ?? []).map((c) => ({
            pod: d.key,
            node: d.node,
            devices: c.allocation?.devices.results.map((r) => r.device),
          }))
        : [],
    );

  it('places a gang of 4 sharing one claim on the node of its one allocation', () => {
    const h = given().events(
      node('n1', '8'),
      node('n2', '8'),
      ...devices,
      ...gpuDevices('n2', 4).slice(1),
    );
    h.events(claim('shared'), group(4, []));
    h.pods(...sharing(4)).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    const got = allocations(h);
    expect(new Set(got.map((a) => a.node)).size).toBe(1);
    expect(new Set(got.map((a) => JSON.stringify(a.devices))).size).toBe(1);
    expect(got[0]?.devices).toHaveLength(1);
    expect(h.broken).toEqual([]);
  });

  it('places none when the allocation’s node cannot hold every member, with kube’s reason on the others', () => {
    // n1 has the GPUs but room for 2 members; n2 has room and no GPU.
    const h = given().events(node('n1', '2'), node('n2', '8'), ...devices);
    h.events(claim('shared'), group(4, []));
    h.pods(...sharing(4)).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      `pod group ${key}: 2 of 4 members fit; 0/2 nodes are available for default/w2: 1 Insufficient cpu, 1 resourceclaim not available on the node.`,
    );
    expect(h.broken).toEqual([]);
  });
});
