// Table tests for NodePorts (filter, PreFilter skip, queueing hint), after kube's TestNodePorts.
import { describe, expect, it } from 'vitest';
import { makeNode, makeNodeWith, makePod } from '../../test/support/builders.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import type { Charge, ClusterChange, HostPort, NodeFacts, PodInfo } from '../cluster/types.ts';
import { success } from '../framework/types.ts';
import {
  ErrReason,
  hostPortsConflict,
  hostPortsReleased,
  name,
  newNodePorts,
  nodePorts,
} from './node-ports.ts';

/** `PROTOCOL/hostIP/port`, as kube's test helper spells a host port; parts may be empty. */
function ports(...specs: string[]): HostPort[] {
  return specs.map((s) => {
    const [protocol = '', hostIP = '', port = ''] = s.split('/');
    return { protocol, hostIP, port: Number(port) };
  });
}

const rejected = { code: 'Unschedulable', reasons: [ErrReason], plugin: name };

describe('NodePorts filter', () => {
  const cases: { name: string; wants: string[]; held: string[][]; fits: boolean }[] = [
    {
      name: 'other port',
      wants: ['UDP/127.0.0.1/8080'],
      held: [['UDP/127.0.0.1/9090']],
      fits: true,
    },
    {
      name: 'same udp port',
      wants: ['UDP/127.0.0.1/8080'],
      held: [['UDP/127.0.0.1/8080']],
      fits: false,
    },
    {
      name: 'same tcp port',
      wants: ['TCP/127.0.0.1/8080'],
      held: [['TCP/127.0.0.1/8080']],
      fits: false,
    },
    {
      name: 'different host ip',
      wants: ['TCP/127.0.0.1/8080'],
      held: [['TCP/127.0.0.2/8080']],
      fits: true,
    },
    {
      name: 'different protocol',
      wants: ['UDP/127.0.0.1/8080'],
      held: [['TCP/127.0.0.1/8080']],
      fits: true,
    },
    {
      name: 'second udp port conflict',
      wants: ['UDP/127.0.0.1/8000', 'UDP/127.0.0.1/8080'],
      held: [['UDP/127.0.0.1/8080']],
      fits: false,
    },
    {
      name: 'first tcp port conflict',
      wants: ['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'],
      held: [['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8081']],
      fits: false,
    },
    {
      name: 'first tcp port conflict due to 0.0.0.0 hostIP',
      wants: ['TCP/0.0.0.0/8001'],
      held: [['TCP/127.0.0.1/8001']],
      fits: false,
    },
    {
      name: 'TCP hostPort conflict due to 0.0.0.0 hostIP',
      wants: ['TCP/10.0.10.10/8001', 'TCP/0.0.0.0/8001'],
      held: [['TCP/127.0.0.1/8001']],
      fits: false,
    },
    {
      name: 'second tcp port conflict to 0.0.0.0 hostIP',
      wants: ['TCP/127.0.0.1/8001'],
      held: [['TCP/0.0.0.0/8001']],
      fits: false,
    },
    {
      name: 'second different protocol',
      wants: ['UDP/127.0.0.1/8001'],
      held: [['TCP/0.0.0.0/8001']],
      fits: true,
    },
    {
      name: 'UDP hostPort conflict due to 0.0.0.0 hostIP',
      wants: ['UDP/127.0.0.1/8001'],
      held: [['TCP/0.0.0.0/8001', 'UDP/0.0.0.0/8001']],
      fits: false,
    },
    {
      name: 'an empty hostIP binds all addresses, on the wanted side',
      wants: ['TCP//8001'],
      held: [['TCP/127.0.0.1/8001']],
      fits: false,
    },
    {
      name: 'an empty hostIP binds all addresses, on the held side',
      wants: ['TCP/127.0.0.1/8001'],
      held: [['TCP//8001']],
      fits: false,
    },
    {
      name: 'an empty protocol is TCP',
      wants: ['/127.0.0.1/8001'],
      held: [['TCP/127.0.0.1/8001']],
      fits: false,
    },
    { name: 'an empty protocol is not UDP', wants: ['//8001'], held: [['UDP//8001']], fits: true },
    {
      name: 'the conflicting port is held by the last of several pods',
      wants: ['TCP/0.0.0.0/443'],
      held: [[], ['TCP/0.0.0.0/80'], [], ['UDP/0.0.0.0/443', 'TCP/10.0.0.7/443']],
      fits: false,
    },
    {
      name: 'pods without host ports hold nothing',
      wants: ['TCP/0.0.0.0/80'],
      held: [[], [], []],
      fits: true,
    },
    { name: 'an empty node', wants: ['TCP/0.0.0.0/80'], held: [], fits: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod({ hostPorts: ports(...c.wants) });
      const node = makeNodeWith(
        {},
        c.held.map((h) => ({ hostPorts: ports(...h) })),
      );
      expect(nodePorts.preFilterSkip(pod)).toBe(false);
      expect(nodePorts.filter(pod, node)).toEqual(c.fits ? success : rejected);
    });
  }

  it('skips a pod that wants no host port (kube: PreFilter returns Skip)', () => {
    const pod = makePod();
    expect(nodePorts.preFilterSkip(pod)).toBe(true);
    // Were it run anyway, it would pass even a node whose ports are all taken.
    const node = makeNodeWith({}, [{ hostPorts: ports('TCP/0.0.0.0/80') }]);
    expect(nodePorts.filter(pod, node)).toBe(success);
  });

  it('returns the shared statuses (no allocation per node)', () => {
    const pod = makePod({ hostPorts: ports('TCP/0.0.0.0/80') });
    expect(nodePorts.filter(pod, makeNode())).toBe(success);
    const full = makeNodeWith({}, [{ hostPorts: ports('TCP/0.0.0.0/80') }]);
    expect(nodePorts.filter(pod, full)).toBe(nodePorts.filter(pod, full));
  });

  it('is what the factory returns', () => {
    expect(newNodePorts()).toBe(nodePorts);
  });
});

/**
 * kube's HostPortInfo written out as the oracle: a set of host IP → protocol/port entries,
 * both sides sanitised (empty IP → 0.0.0.0, empty protocol → TCP); a 0.0.0.0 query looks
 * under every IP, any other under 0.0.0.0 and its own IP.
 */
function kubeCheckConflict(held: HostPort, wanted: HostPort): boolean {
  const used = new Map<string, Set<string>>();
  const ip = (p: HostPort) => p.hostIP || '0.0.0.0';
  const key = (p: HostPort) => `${p.protocol || 'TCP'}/${p.port}`;
  if (held.port > 0) used.set(ip(held), new Set([key(held)]));
  if (wanted.port <= 0) return false;
  if (ip(wanted) === '0.0.0.0') return [...used.values()].some((s) => s.has(key(wanted)));
  return ['0.0.0.0', ip(wanted)].some((k) => used.get(k)?.has(key(wanted)) === true);
}

describe('hostPortsConflict', () => {
  it('agrees with kube’s HostPortInfo on every pair of a small domain', () => {
    const all: HostPort[] = [];
    for (const hostIP of ['', '0.0.0.0', '10.0.0.1', '10.0.0.2'])
      for (const protocol of ['', 'TCP', 'UDP', 'SCTP'])
        for (const port of [0, 80, 81]) all.push({ hostIP, protocol, port });
    let conflicts = 0;
    for (const held of all)
      for (const wanted of all) {
        const want = kubeCheckConflict(held, wanted);
        expect(hostPortsConflict(wanted, held), JSON.stringify({ wanted, held })).toBe(want);
        if (want) conflicts++;
      }
    // The domain exercises both answers, not only one.
    expect(conflicts).toBeGreaterThan(0);
    expect(conflicts).toBeLessThan(all.length * all.length);
  });
});

describe('NodePorts on parsed pods (kube 1.34 counts sidecar init containers)', () => {
  function parsed(name: string, spec: Record<string, unknown>): PodInfo {
    const r = podInfoFromObject({ metadata: { name, uid: name }, spec });
    if ('rejected' in r) throw new Error(r.rejected);
    return r;
  }
  const port80 = { ports: [{ containerPort: 80, hostPort: 80 }] };
  const cases: {
    name: string;
    wanting: Record<string, unknown>;
    holding: Record<string, unknown>;
    fits: boolean;
  }[] = [
    {
      name: 'a sidecar’s host port on the node blocks an app container’s',
      wanting: { containers: [port80] },
      holding: { initContainers: [{ ...port80, restartPolicy: 'Always' }], containers: [{}] },
      fits: false,
    },
    {
      name: 'a sidecar’s wanted host port is blocked by an app container’s',
      wanting: { initContainers: [{ ...port80, restartPolicy: 'Always' }], containers: [{}] },
      holding: { containers: [port80] },
      fits: false,
    },
    {
      name: 'an ordinary init container’s host port is not held once it has run',
      wanting: { containers: [port80] },
      holding: { initContainers: [port80], containers: [{}] },
      fits: true,
    },
    {
      name: 'an ordinary init container’s host port is not wanted',
      wanting: { initContainers: [port80], containers: [{}] },
      holding: { containers: [port80] },
      fits: true,
    },
    {
      name: 'with hostNetwork a container port is a host port',
      wanting: { hostNetwork: true, containers: [{ ports: [{ containerPort: 80 }] }] },
      holding: { hostNetwork: true, containers: [{ ports: [{ containerPort: 80 }] }] },
      fits: false,
    },
    {
      name: 'without hostNetwork a container port alone takes no host port',
      wanting: { containers: [port80] },
      holding: { containers: [{ ports: [{ containerPort: 80 }] }] },
      fits: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = parsed('wanting', c.wanting);
      const node = makeNode();
      const holder = parsed('holding', c.holding);
      node.pods.set(holder.uid, holder);
      const skipped = nodePorts.preFilterSkip(pod);
      const fits = skipped || nodePorts.filter(pod, node) === success;
      expect(fits).toBe(c.fits);
    });
  }
});

describe('NodePorts queueing hint', () => {
  const withPorts = makePod({ name: 'holder', hostPorts: ports('TCP/0.0.0.0/80') });
  const noPorts = makePod({ name: 'plain' });
  const nominated = makePod({
    name: 'nominee',
    hostPorts: ports('TCP/0.0.0.0/80'),
    nominatedNodeName: 'n',
  });
  const none: Charge = { kind: 'none' };
  const boundN: Charge = { kind: 'bound', node: 'n' };
  const boundM: Charge = { kind: 'bound', node: 'm' };
  const assumedN: Charge = { kind: 'assumed', node: 'n', attempt: 1 };
  const facts: NodeFacts = {
    labels: {},
    taints: [],
    unschedulable: false,
    allocatable: makeNode().allocatable,
  };
  const podChange = (
    info: PodInfo,
    before: Charge | undefined,
    after: Charge | undefined,
    replaced?: Charge,
  ): ClusterChange => {
    const rec = (charge: Charge | undefined) =>
      charge === undefined ? undefined : { info, charge };
    return {
      kind: 'pod',
      uid: info.uid,
      before: rec(before),
      after: rec(after),
      replaced: rec(replaced),
    };
  };

  it.each<[string, ClusterChange, boolean]>([
    ['a node added', { kind: 'node', name: 'n', before: undefined, after: makeNode() }, true],
    [
      'a node updated (frees no port)',
      { kind: 'node', name: 'n', before: facts, after: makeNode() },
      false,
    ],
    ['a node deleted', { kind: 'node', name: 'n', before: facts, after: undefined }, false],
    ['a bound pod with host ports deleted', podChange(withPorts, boundN, undefined), true],
    ['an assumed pod with host ports deleted', podChange(withPorts, assumedN, undefined), true],
    ['a bound pod without host ports deleted', podChange(noPorts, boundN, undefined), false],
    ['an unscheduled pod with host ports deleted', podChange(withPorts, none, undefined), false],
    ['a nominated pod with host ports deleted', podChange(nominated, none, undefined), true],
    ['a nominated pod with host ports updated', podChange(nominated, none, none), false],
    ['a pod with host ports finishing', podChange(withPorts, boundN, none), true],
    ['a pod with host ports moved to another node', podChange(withPorts, boundN, boundM), true],
    [
      'a pod with host ports bound where it was assumed',
      podChange(withPorts, assumedN, boundN),
      false,
    ],
    ['a pod with host ports added', podChange(withPorts, undefined, boundN), false],
    [
      'a bound pod without host ports replaced by a new pod of its name',
      podChange(noPorts, undefined, none, boundN),
      false,
    ],
    [
      'a bound pod with host ports replaced by a new pod of its name',
      {
        kind: 'pod',
        uid: 'new',
        before: undefined,
        after: { info: noPorts, charge: none },
        replaced: { info: withPorts, charge: boundN },
      },
      true,
    ],
    ['a reservation released', { kind: 'charge', uid: 'u', before: assumedN, after: none }, true],
    ['a reservation made', { kind: 'charge', uid: 'u', before: none, after: assumedN }, false],
    [
      'a relist removing a bound pod with host ports',
      { kind: 'resync', removedNodes: [], removedPods: [{ info: withPorts, charge: boundN }] },
      true,
    ],
    [
      'a relist removing only pods without host ports',
      { kind: 'resync', removedNodes: ['n'], removedPods: [{ info: noPorts, charge: boundN }] },
      false,
    ],
    ['nothing', { kind: 'none' }, false],
  ])('%s → %s', (_name, change, expected) => {
    expect(hostPortsReleased(change)).toBe(expected);
  });

  it('is the plugin’s hint', () => {
    expect(nodePorts.queueingHint).toBe(hostPortsReleased);
  });
});
