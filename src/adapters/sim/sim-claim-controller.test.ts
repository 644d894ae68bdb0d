// Pins the sim's resourceclaim controller making claims: a pod's template becomes its claim and status entry, deterministically named; a missing template leaves the pod waiting.
import { describe, expect, it } from 'vitest';
import {
  allocation,
  claimPod,
  claimSpec,
  fromTemplate,
  lines,
  sharedClaim,
  started,
  template,
} from '../../../test/support/sim-dra.ts';
import type { InputEvent } from '../../events/types.ts';
import type { JsonRecord } from '../../model/record.ts';
import { generateNameFor } from './sim-claim-names.ts';

describe('SimClaimController: claims from templates', () => {
  it("after the latency, creates the pod's claim from the template, then names it in the pod's status", () => {
    const t = started([claimPod('trainer', [fromTemplate()])]);
    t.advance(4);
    expect(t.seen).toEqual([]);
    t.advance(1);
    const claim = t.claimOf('trainer') as JsonRecord;
    const name = t.nameOf(claim) as string;
    expect(name).toMatch(/^trainer-accel-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(lines(t.seen)).toEqual([`ResourceClaim ${name}`, 'Pod trainer']);
    expect(claim).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: {
        name,
        generateName: 'trainer-accel-',
        namespace: 'ml',
        uid: expect.any(String),
        resourceVersion: '1',
        creationTimestamp: '1970-01-01T00:16:40Z',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: 'trainer',
            uid: t.uidOf('trainer'),
            controller: true,
          },
        ],
        annotations: {
          'example.com/note': 'copied',
          'resource.kubernetes.io/pod-claim-name': 'accel',
        },
        labels: { 'example.com/claim-of': 'two-gpus' },
      },
      spec: claimSpec,
    });
    expect(t.sim.podObjects()[0]?.status?.resourceClaimStatuses).toEqual([
      { name: 'accel', resourceClaimName: name },
    ]);
    // The claim the core reads: its pod, by owner and annotation.
    const event = t.seen[0] as Extract<InputEvent, { type: 'ObjectUpserted' }>;
    expect(event.object.metadata).toMatchObject({
      ownerReferences: [{ kind: 'Pod', uid: t.uidOf('trainer'), controller: true }],
      annotations: { 'resource.kubernetes.io/pod-claim-name': 'accel' },
    });
    t.advance(100);
    expect(t.seen).toHaveLength(2);
  });

  it.each([
    {
      name: 'a pod whose template does not exist waits: no claim, no status',
      claims: [fromTemplate('accel', 'missing')],
      created: [],
      statuses: undefined,
    },
    {
      name: 'a pod that shares an existing claim gets nothing made',
      claims: [{ name: 'shared', resourceClaimName: 'shared' }],
      created: [],
      statuses: undefined,
    },
    {
      name: 'two template entries: claims in spec order, statuses sorted by name',
      claims: [fromTemplate('zeta'), fromTemplate('alpha')],
      created: ['p-zeta-', 'p-alpha-'],
      statuses: ['alpha', 'zeta'],
    },
    {
      name: 'a missing template stops the sync: earlier claims stay made, the status unwritten',
      claims: [fromTemplate('first'), fromTemplate('second', 'missing')],
      created: ['p-first-'],
      statuses: undefined,
    },
  ])('$name', ({ claims, created, statuses }) => {
    const t = started([claimPod('p', claims)], [template, sharedClaim('shared')]);
    t.advance(50);
    const made = t.sim
      .claimObjects()
      .map((c) => (c.metadata as JsonRecord).generateName)
      .filter((g) => g !== undefined);
    expect(made).toEqual(created);
    const list = t.sim.podObjects()[0]?.status?.resourceClaimStatuses as JsonRecord[] | undefined;
    expect(list?.map((s) => s.name)).toEqual(statuses);
  });

  it('finds the claim it made when the status is lost, and names it again without a second one', () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p'));
    t.sim.updatePod(claimPod('p', [fromTemplate()])); // no status
    t.seen.length = 0;
    t.advance(5);
    expect(lines(t.seen)).toEqual(['Pod p']);
    expect(t.sim.claimObjects()).toHaveLength(1);
    expect(t.sim.podObjects()[0]?.status?.resourceClaimStatuses).toEqual([
      { name: 'accel', resourceClaimName: name },
    ]);
  });

  it.each([
    ['trainer', 'accel', 'trainer-accel-'],
    ['a'.repeat(50), 'b'.repeat(20), `${'a'.repeat(39)}-${'b'.repeat(15)}`],
    ['p'.repeat(63), 'c', `${'p'.repeat(54)}-`],
  ])('generateName of pod %s and claim %s is %s', (pod, claim, expected) => {
    expect(generateNameFor(pod, claim)).toBe(expected);
  });

  it('makes the same names from the same inputs, and other names for another pod', () => {
    const pods = () => [claimPod('a', [fromTemplate()]), claimPod('b', [fromTemplate()])];
    const names = () => {
      const t = started(pods());
      t.advance(5);
      return t.sim.claimObjects().map((c) => (c.metadata as JsonRecord).name as string);
    };
    const first = names();
    expect(names()).toEqual(first);
    expect(first.map((n) => n.slice(-5))).not.toEqual([first[0]?.slice(-5), first[0]?.slice(-5)]);
  });

  it('gives a recreated pod (a new uid) a claim of its own', () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const old = t.nameOf(t.claimOf('p'));
    t.sim.createPod(claimPod('p', [fromTemplate()]));
    t.advance(5);
    expect(t.sim.claimObjects().map((c) => t.nameOf(c))).toEqual([t.nameOf(t.claimOf('p'))]);
    expect(t.nameOf(t.claimOf('p'))).not.toBe(old);
  });
  it('reserves an allocated claim for a pod bound without the scheduler, once', () => {
    const bound = claimPod('p', [{ name: 'gpu', resourceClaimName: 'shared' }]);
    bound.spec.nodeName = 'n1';
    const shared = sharedClaim('shared');
    shared.object.status = { allocation };
    const t = started([bound], [shared]);
    t.advance(5);
    t.sim.updatePod(bound);
    t.advance(5);
    expect(lines(t.seen)).toEqual(['ResourceClaim shared', 'Pod p']);
    expect((t.claim('shared') as JsonRecord).status).toEqual({
      allocation,
      reservedFor: [{ resource: 'pods', name: 'p', uid: t.uidOf('p') }],
    });
  });
});
