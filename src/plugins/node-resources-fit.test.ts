// Table tests for NodeResourcesFit (filter; LeastAllocated, MostAllocated, RequestedToCapacityRatio scores), after kube's tests.
import { describe, expect, it } from 'vitest';
import {
  chargePod,
  Gi,
  Mi,
  makeNode,
  makeNodeWith,
  makePod,
  type NodeInput,
  type PodInput,
} from '../../test/support/builders.ts';
import { type Status, success } from '../framework/types.ts';
import {
  brokenLinear,
  ErrReasonInvalidNode,
  isScalarResourceName,
  leastRequestedScore,
  mostRequestedScore,
  name,
  newNodeResourcesFit,
  nodeResourcesFit,
} from './node-resources-fit.ts';

const small: NodeInput = {
  allocatable: {
    milliCPU: 10,
    memory: 20,
    ephemeralStorage: 20,
    pods: 32,
    scalar: { 'example.com/aaa': 5 },
  },
};

function unschedulable(...reasons: string[]): Status {
  return { code: 'Unschedulable', reasons, plugin: name };
}
function unresolvable(...reasons: string[]): Status {
  return { code: 'UnschedulableAndUnresolvable', reasons, plugin: name };
}

interface FitCase {
  name: string;
  pod: PodInput;
  existing?: PodInput[];
  node?: NodeInput;
  want: Status;
}

describe('NodeResourcesFit filter', () => {
  const cases: FitCase[] = [
    {
      name: 'no resources requested always fits',
      pod: {},
      existing: [{ requests: { milliCPU: 10, memory: 20 } }],
      want: success,
    },
    {
      name: 'too many resources fails',
      pod: { requests: { milliCPU: 1, memory: 1 } },
      existing: [{ requests: { milliCPU: 10, memory: 20 } }],
      want: unschedulable('Insufficient cpu', 'Insufficient memory'),
    },
    {
      name: 'both resources fit',
      pod: { requests: { milliCPU: 1, memory: 1 } },
      existing: [{ requests: { milliCPU: 5, memory: 5 } }],
      want: success,
    },
    {
      name: 'one resource memory fits',
      pod: { requests: { milliCPU: 2, memory: 1 } },
      existing: [{ requests: { milliCPU: 9, memory: 5 } }],
      want: unschedulable('Insufficient cpu'),
    },
    {
      name: 'one resource cpu fits',
      pod: { requests: { milliCPU: 1, memory: 2 } },
      existing: [{ requests: { milliCPU: 5, memory: 19 } }],
      want: unschedulable('Insufficient memory'),
    },
    {
      name: 'equal edge case',
      pod: { requests: { milliCPU: 5, memory: 1 } },
      existing: [{ requests: { milliCPU: 5, memory: 19 } }],
      want: success,
    },
    {
      name: 'a resource the pod requests none of is not checked, even on an overcommitted node',
      pod: { requests: { memory: 1 } },
      existing: [{ requests: { milliCPU: 15, memory: 1 } }],
      want: success,
    },
    {
      name: 'storage ephemeral local storage request exceeds allocatable',
      pod: { requests: { milliCPU: 1, memory: 1, ephemeralStorage: 25 } },
      want: unresolvable('Insufficient ephemeral-storage'),
    },
    {
      name: 'ephemeral local storage is sufficient',
      pod: { requests: { ephemeralStorage: 10 } },
      existing: [{ requests: { ephemeralStorage: 10 } }],
      want: success,
    },
    {
      name: 'ephemeral local storage is used up',
      pod: { requests: { ephemeralStorage: 11 } },
      existing: [{ requests: { ephemeralStorage: 10 } }],
      want: unschedulable('Insufficient ephemeral-storage'),
    },
    {
      name: 'extended resource fits',
      pod: { requests: { scalar: { 'example.com/aaa': 1 } } },
      want: success,
    },
    {
      name: 'extended resource capacity enforced',
      pod: { requests: { scalar: { 'example.com/aaa': 3 } } },
      existing: [{ requests: { scalar: { 'example.com/aaa': 3 } } }],
      want: unschedulable('Insufficient example.com/aaa'),
    },
    {
      name: 'extended resource allocatable enforced for unknown resource',
      pod: { requests: { scalar: { 'example.com/bbb': 1 } } },
      want: unresolvable('Insufficient example.com/bbb'),
    },
    {
      name: 'a scalar requested at zero is skipped',
      pod: { requests: { scalar: { 'example.com/bbb': 0 } } },
      want: success,
    },
    {
      name: 'hugepages are checked like any scalar',
      pod: { requests: { scalar: { 'hugepages-2Mi': 4 } } },
      node: { allocatable: { scalar: { 'hugepages-2Mi': 6 } } },
      existing: [{ requests: { scalar: { 'hugepages-2Mi': 3 } } }],
      want: unschedulable('Insufficient hugepages-2Mi'),
    },
    {
      name: 'even for a pod requesting nothing, the node\u2019s pod limit applies',
      pod: {},
      node: { allocatable: { pods: 1 } },
      existing: [{}],
      want: unschedulable('Too many pods'),
    },
    {
      name: 'the pod that fills the last pod slot fits',
      pod: {},
      node: { allocatable: { pods: 2 } },
      existing: [{}],
      want: success,
    },
    {
      name: 'a node with zero allowed pods never fits',
      pod: {},
      node: { allocatable: { pods: 0 } },
      want: unschedulable('Too many pods'),
    },
    {
      name: 'all failures are reported, in kube\u2019s order',
      pod: {
        requests: { milliCPU: 2, memory: 2, ephemeralStorage: 2, scalar: { 'example.com/aaa': 1 } },
      },
      node: {
        allocatable: {
          milliCPU: 10,
          memory: 20,
          ephemeralStorage: 20,
          pods: 1,
          scalar: { 'example.com/aaa': 5 },
        },
      },
      existing: [
        {
          requests: {
            milliCPU: 9,
            memory: 19,
            ephemeralStorage: 19,
            scalar: { 'example.com/aaa': 5 },
          },
        },
      ],
      want: unschedulable(
        'Too many pods',
        'Insufficient cpu',
        'Insufficient memory',
        'Insufficient ephemeral-storage',
        'Insufficient example.com/aaa',
      ),
    },
    {
      name: 'a request larger than the whole node is unresolvable (preemption cannot help)',
      pod: { requests: { milliCPU: 11, memory: 1 } },
      want: unresolvable('Insufficient cpu'),
    },
    {
      name: 'one unresolvable failure makes the whole status unresolvable',
      pod: { requests: { milliCPU: 2, memory: 21 } },
      existing: [{ requests: { milliCPU: 9 } }],
      want: unresolvable('Insufficient cpu', 'Insufficient memory'),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = makeNodeWith(c.node ?? small, c.existing ?? []);
      const got = nodeResourcesFit.filter(makePod(c.pod), node);
      if (c.want === success) expect(got).toBe(success);
      else expect(got).toEqual(c.want);
    });
  }

  it('rejects a node whose object could not be parsed, whatever the pod asks', () => {
    const node = makeNode({ invalid: 'status.allocatable.cpu: unparsable quantity "x"' });
    expect(nodeResourcesFit.filter(makePod(), node)).toEqual(unresolvable(ErrReasonInvalidNode));
  });
});

describe('leastRequestedScore and mostRequestedScore', () => {
  const cases = [
    { name: 'empty node', requested: 0, capacity: 4000, least: 100, most: 0 },
    { name: 'a quarter used', requested: 1000, capacity: 4000, least: 75, most: 25 },
    { name: 'integer division truncates', requested: 1, capacity: 3, least: 66, most: 33 },
    { name: 'full', requested: 4000, capacity: 4000, least: 0, most: 100 },
    { name: 'over capacity', requested: 5000, capacity: 4000, least: 0, most: 100 },
    { name: 'no capacity', requested: 0, capacity: 0, least: 0, most: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(leastRequestedScore(c.requested, c.capacity)).toBe(c.least);
      expect(mostRequestedScore(c.requested, c.capacity)).toBe(c.most);
    });
  }
});

describe('NodeResourcesFit score (LeastAllocated by default)', () => {
  const cases: {
    name: string;
    pod: PodInput;
    node: NodeInput;
    existing?: PodInput[];
    want: number;
  }[] = [
    {
      name: 'nothing scheduled, nothing requested: the pod\u2019s non-zero defaults count',
      pod: {},
      node: { allocatable: { milliCPU: 4000, memory: 10000 * Mi } },
      // cpu (4000-100)*100/4000 = 97; memory (10000-200)*100/10000 = 98; mean 97
      want: 97,
    },
    {
      name: 'nothing scheduled, resources requested, differently sized nodes (node 1)',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      // cpu 25, memory 50: (25+50)/2 = 37
      want: 37,
    },
    {
      name: 'nothing scheduled, resources requested, differently sized nodes (node 2)',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 6000, memory: 10000 } },
      want: 50,
    },
    {
      name: 'resources requested, pods scheduled with resources',
      pod: { requests: { milliCPU: 1000, memory: 2 * Gi } },
      node: { allocatable: { milliCPU: 4000, memory: 8 * Gi } },
      existing: [{ requests: { milliCPU: 1000, memory: 2 * Gi } }],
      want: 50,
    },
    {
      name: 'existing pods without requests count with their non-zero defaults',
      pod: { requests: { milliCPU: 1000, memory: 1 * Gi } },
      node: { allocatable: { milliCPU: 4000, memory: 4 * Gi } },
      existing: [{}, {}],
      // cpu (4000-1200)*100/4000 = 70; memory (4Gi-1Gi-400Mi)*100/4Gi = 65; mean 67
      want: 67,
    },
    {
      name: 'requested resources exceed node capacity score 0 on that resource',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      existing: [{ requests: { milliCPU: 3000, memory: 0 }, nonZeroRequests: { memory: 0 } }],
      // cpu over capacity 0; memory 50 → 25
      want: 25,
    },
    {
      name: 'zero node resources, pods scheduled with resources',
      pod: { requests: { milliCPU: 1000, memory: 2000 } },
      node: { allocatable: { milliCPU: 0, memory: 0 } },
      want: 0,
    },
    {
      name: 'a resource with zero allocatable is left out of the weighted mean',
      pod: { requests: { milliCPU: 1000, memory: 5000 } },
      node: { allocatable: { milliCPU: 0, memory: 10000 } },
      want: 50,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = makeNodeWith(c.node, c.existing ?? []);
      expect(nodeResourcesFit.score(makePod(c.pod), node)).toBe(c.want);
    });
  }

  it('prefers the emptier of two equal nodes', () => {
    const pod = makePod({ requests: { milliCPU: 500, memory: 1 * Gi } });
    const busy = makeNodeWith({}, [{ requests: { milliCPU: 2000, memory: 8 * Gi } }]);
    const idle = makeNode();
    expect(nodeResourcesFit.score(pod, idle)).toBeGreaterThan(nodeResourcesFit.score(pod, busy));
  });

  it('applies per-resource weights', () => {
    const fit = newNodeResourcesFit({
      scoringStrategy: {
        resources: [
          { name: 'cpu', weight: 3 },
          { name: 'memory', weight: 1 },
        ],
      },
    });
    const pod = makePod({ requests: { milliCPU: 3000, memory: 5000 } });
    const node = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    // (25*3 + 50*1) / 4 = 31
    expect(fit.score(pod, node)).toBe(31);
  });

  it('scores MostAllocated as kube does, packing onto fuller nodes', () => {
    const fit = newNodeResourcesFit({ scoringStrategy: { type: 'MostAllocated' } });
    const pod = makePod({ requests: { milliCPU: 3000, memory: 5000 } });
    // cpu 3000/4000 = 75, memory 5000/10000 = 50 → 62
    expect(fit.score(pod, makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } }))).toBe(62);
    const node = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    chargePod(node, makePod({ requests: { milliCPU: 4000, memory: 10000 } }));
    // both over capacity: capped at 100
    expect(fit.score(pod, node)).toBe(100);
  });

  const badArgs: { name: string; args: unknown; message: RegExp }[] = [
    {
      name: 'args that are not an object',
      args: 'LeastAllocated',
      message: /args must be an object/,
    },
    {
      name: 'an unknown strategy type',
      args: { scoringStrategy: { type: 'Balanced' } },
      message: /unknown scoringStrategy.type/,
    },
    {
      name: 'RequestedToCapacityRatio without a shape',
      args: { scoringStrategy: { type: 'RequestedToCapacityRatio' } },
      message: /needs a non-empty requestedToCapacityRatio.shape/,
    },
    {
      name: 'a weight of 0',
      args: { scoringStrategy: { resources: [{ name: 'cpu', weight: 0 }] } },
      message: /integer 1–100/,
    },
  ];
  for (const c of badArgs) {
    it(`rejects ${c.name}`, () => {
      expect(() => newNodeResourcesFit(c.args)).toThrow(c.message);
    });
  }
});

describe('NodeResourcesFit score over other resources (kube 1.34)', () => {
  const gpu = 'nvidia.com/gpu';
  const node: NodeInput = {
    allocatable: { milliCPU: 4000, memory: 10000, ephemeralStorage: 1000, scalar: { [gpu]: 8 } },
  };
  const most = (resources: { name: string; weight: number }[]) =>
    newNodeResourcesFit({ scoringStrategy: { type: 'MostAllocated', resources } });

  it('scores an extended resource the pod requests, on the node’s requested plus the pod’s', () => {
    const pod = makePod({ requests: { milliCPU: 1000, memory: 1000, scalar: { [gpu]: 2 } } });
    const n = makeNodeWith(node, [{ requests: { scalar: { [gpu]: 2 } } }]);
    // cpu (100 + 1000)/4000 → 27 (the existing pod counts 100m), gpu 4/8 → 50: (27 + 50×3)/4 = 44
    expect(
      most([
        { name: 'cpu', weight: 1 },
        { name: gpu, weight: 3 },
      ]).score(pod, n),
    ).toBe(44);
  });

  it('leaves an extended resource out when the pod does not request it (kube: (0, 0))', () => {
    const pod = makePod({ requests: { milliCPU: 1000, memory: 1000 } });
    const n = makeNodeWith(node, []);
    // gpu is skipped, so only cpu counts: 1000/4000 → 25
    expect(
      most([
        { name: 'cpu', weight: 1 },
        { name: gpu, weight: 3 },
      ]).score(pod, n),
    ).toBe(25);
  });

  it('leaves out a resource the node does not have, and a name no resource can have', () => {
    const pod = makePod({ requests: { milliCPU: 1000, scalar: { 'example.com/fpga': 1 } } });
    const n = makeNodeWith(node, []);
    const fit = most([
      { name: 'cpu', weight: 1 },
      { name: 'example.com/fpga', weight: 5 },
      { name: 'pods', weight: 5 },
    ]);
    expect(fit.score(pod, n)).toBe(25);
  });

  it('scores ephemeral-storage on plain requests (no non-zero default)', () => {
    const pod = makePod({ requests: { ephemeralStorage: 300 } });
    const n = makeNodeWith(node, [{ requests: { ephemeralStorage: 200 } }]);
    expect(most([{ name: 'ephemeral-storage', weight: 1 }]).score(pod, n)).toBe(50);
  });

  it('tells kube’s scalar resource names from others', () => {
    expect(isScalarResourceName(gpu)).toBe(true);
    expect(isScalarResourceName('hugepages-2Mi')).toBe(true);
    expect(isScalarResourceName('attachable-volumes-aws-ebs')).toBe(true);
    expect(isScalarResourceName('kubernetes.io/batch')).toBe(true);
    expect(isScalarResourceName('pods')).toBe(false);
    expect(isScalarResourceName('storage')).toBe(false);
  });
});

describe('NodeResourcesFit RequestedToCapacityRatio (kube’s broken linear shape)', () => {
  // kube's shape points have scores 0–10, scaled ×10.
  const binPacking = [
    { utilization: 0, score: 0 },
    { utilization: 100, score: 10 },
  ];
  const spreading = [
    { utilization: 0, score: 10 },
    { utilization: 100, score: 0 },
  ];
  const rtc = (shape: { utilization: number; score: number }[], resources?: unknown) =>
    newNodeResourcesFit({
      scoringStrategy: {
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: { shape },
        ...(resources === undefined ? {} : { resources }),
      },
    });

  it('interpolates between points with Go’s integer division', () => {
    const f = brokenLinear([
      { utilization: 10, score: 20 },
      { utilization: 40, score: 80 },
      { utilization: 100, score: 0 },
    ]);
    expect(f(0)).toBe(20); // before the first point: its score
    expect(f(10)).toBe(20);
    expect(f(25)).toBe(50); // 20 + 60×15/30
    expect(f(41)).toBe(79); // 80 − 80×1/60 = 78.67, truncated toward zero → 80 − 1
    expect(f(100)).toBe(0);
    expect(f(150)).toBe(0); // after the last point: its score
  });

  it('bin-packs: a fuller node scores higher, and the mean is rounded', () => {
    const pod = makePod({ requests: { milliCPU: 1000, memory: 3000 } });
    const empty = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    // cpu 25% → 25, memory 30% → 30: round(55/2) = round(27.5) = 28
    expect(rtc(binPacking).score(pod, empty)).toBe(28);
    const fuller = makeNodeWith({ allocatable: { milliCPU: 4000, memory: 10000 } }, [
      { requests: { milliCPU: 2000, memory: 5000 } },
    ]);
    expect(rtc(binPacking).score(pod, fuller)).toBeGreaterThan(rtc(binPacking).score(pod, empty));
  });

  it('counts only resources scoring above 0 in the mean (unlike the other strategies)', () => {
    // memory at 0% utilization scores 0 on the bin-packing shape and drops out: cpu 50 alone.
    const pod = makePod({
      requests: { milliCPU: 2000, memory: 1 },
      nonZeroRequests: { memory: 0 },
    });
    const node = makeNode({ allocatable: { milliCPU: 4000, memory: 100 * Gi } });
    expect(rtc(binPacking).score(pod, node)).toBe(50);
  });

  it('scores a resource over capacity as utilization 100', () => {
    const pod = makePod({ requests: { milliCPU: 5000, memory: 5000 } });
    const node = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    // cpu over capacity → f(100) = 0 (dropped); memory 50% → 50
    expect(rtc(spreading).score(pod, node)).toBe(50);
  });

  // kube's TestRequestedToCapacityRatioScoringStrategy: spreading shape, default resources.
  it.each([
    { node: { milliCPU: 4000, memory: 10000 }, want: 38 },
    { node: { milliCPU: 6000, memory: 10000 }, want: 50 },
  ])('scores $want on a $node.milliCPU m node as kube’s own test expects', ({ node, want }) => {
    const pod = makePod({ requests: { milliCPU: 3000, memory: 5000 } });
    expect(rtc(spreading).score(pod, makeNode({ allocatable: node }))).toBe(want);
  });

  it('uses the strategy’s resource weights', () => {
    const pod = makePod({ requests: { milliCPU: 1000, memory: 5000 } });
    const node = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    const weights = [
      { name: 'cpu', weight: 3 },
      { name: 'memory', weight: 1 },
    ];
    // (25×3 + 50×1)/4 = 31.25 → 31
    expect(rtc(binPacking, weights).score(pod, node)).toBe(31);
  });
});
