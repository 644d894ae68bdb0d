// Tests for the plugin registry, the default profile and profiles built from configuration.
import { describe, expect, it } from 'vitest';
import { chargePod, makeNode, makePod } from '../../test/support/builders.ts';
import { noPodAffinity, type PodAffinityTerms } from '../cluster/pod-affinity.ts';
import { initialState } from '../cluster/reducer.ts';
import { runFilterPlugins } from '../framework/cycle.ts';
import {
  capacityFreed,
  never,
  nodeAdded,
  nodeCordonChanged,
  nodeLabelsChanged,
  nodeTaintsChanged,
} from '../framework/hints.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import { interPodAffinityQueueingHint } from './inter-pod-affinity.ts';
import { defaultFilters, defaultProfile, profileFromConfig, registry } from './registry.ts';

/** Terms of a pod with one preferred affinity term. */
const preferring: PodAffinityTerms = {
  ...noPodAffinity,
  preferredAffinityTerms: [
    {
      namespaces: ['default'],
      namespaceSelector: { nothing: true, requirements: [] },
      selector: { nothing: false, requirements: [] },
      topologyKey: 'zone',
      weight: 1,
    },
  ],
};

describe('registry', () => {
  it('knows every plugin by its kube name', () => {
    expect([...registry.keys()].sort()).toEqual([
      'DefaultPreemption',
      'DynamicResources',
      'ImageLocality',
      'InterPodAffinity',
      'NodeAffinity',
      'NodeDeclaredFeatures',
      'NodeName',
      'NodePorts',
      'NodeResourcesBalancedAllocation',
      'NodeResourcesFit',
      'NodeUnschedulable',
      'NodeVolumeLimits',
      'PodTopologySpread',
      'PodValidity',
      'TaintToleration',
      'UnsupportedConstraints',
      'VolumeBinding',
      'VolumeRestrictions',
      'VolumeZone',
    ]);
  });

  it('every factory returns a plugin carrying its registry name', () => {
    for (const [n, factory] of registry) expect(factory().name).toBe(n);
  });
});

describe('defaultProfile', () => {
  it('has kube 1.34\u2019s default order and weights at 1.34 (what every old log replays with)', () => {
    const p = defaultProfile('1.34');
    expect(p.preFilter.map((x) => x.name)).toEqual([
      'PodValidity',
      'UnsupportedConstraints',
      'NodeAffinity',
      'VolumeRestrictions',
      'NodeVolumeLimits',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
      'DynamicResources',
    ]);
    expect(p.filter.map((x) => x.name)).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeRestrictions',
      'NodeVolumeLimits',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
      'DynamicResources',
    ]);
    expect(p.reserve?.map((x) => x.name)).toEqual(['DynamicResources']);
    expect(p.score.map((s) => [s.plugin.name, s.weight])).toEqual([
      ['TaintToleration', 3],
      ['NodeAffinity', 2],
      ['NodeResourcesFit', 1],
      ['PodTopologySpread', 2],
      ['InterPodAffinity', 2],
      ['NodeResourcesBalancedAllocation', 1],
      ['ImageLocality', 1],
    ]);
  });

  it('keeps the normalising step of the plugins that have one', () => {
    const p = defaultProfile('1.34');
    expect(p.score.map((s) => s.plugin.normalize !== undefined)).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
      false,
    ]);
  });

  it('shares one instance per plugin across extension points', () => {
    const p = defaultProfile();
    const filter = p.filter.find((f) => f.name === 'TaintToleration');
    const score = p.score.find((s) => s.plugin.name === 'TaintToleration')?.plugin;
    expect(filter).toBe(score);
  });
});

describe('defaultProfile by release', () => {
  const filters = (r: KubeRelease) => defaultProfile(r).filter.map((f) => f.name);
  const scores = (r: KubeRelease) =>
    defaultProfile(r).score.map((s) => `${s.plugin.name}×${s.weight}`);

  it('runs NodeName before NodeUnschedulable from 1.37 only', () => {
    expect(filters('1.36').slice(0, 2)).toEqual(['NodeUnschedulable', 'NodeName']);
    expect(filters('1.37').slice(0, 2)).toEqual(['NodeName', 'NodeUnschedulable']);
  });

  it('filters with NodeDeclaredFeatures last from 1.36 (gate beta on), not at 1.35', () => {
    expect(filters('1.35')).not.toContain('NodeDeclaredFeatures');
    expect(filters('1.36').at(-1)).toBe('NodeDeclaredFeatures');
    expect(filters('1.37')).toEqual([...defaultFilters]);
    expect(filters('1.37').at(-1)).toBe('NodeDeclaredFeatures');
  });

  it('scores with DynamicResources ×2 from 1.35, after InterPodAffinity as kube lists it', () => {
    expect(scores('1.34')).not.toContain('DynamicResources×2');
    for (const r of ['1.35', '1.36', '1.37'] as const)
      expect(scores(r)).toEqual([
        'TaintToleration×3',
        'NodeAffinity×2',
        'NodeResourcesFit×1',
        'PodTopologySpread×2',
        'InterPodAffinity×2',
        'DynamicResources×2',
        'NodeResourcesBalancedAllocation×1',
        'ImageLocality×1',
      ]);
  });

  it('keeps the PreFilters and PostFilters of 1.34 in every release', () => {
    for (const r of ['1.35', '1.36', '1.37'] as const) {
      expect(defaultProfile(r).preFilter.map((x) => x.name)).toEqual(
        defaultProfile('1.34').preFilter.map((x) => x.name),
      );
      expect(defaultProfile(r).postFilter?.map((x) => x.name)).toEqual([
        'DynamicResources',
        'DefaultPreemption',
      ]);
    }
  });

  it('counts a node failing NodeName and NodeUnschedulable under the first one the release runs', () => {
    const pod = makePod({ nodeName: 'elsewhere' });
    const cordoned = makeNode({ name: 'cordoned', unschedulable: true });
    const reason = (r: KubeRelease) =>
      runFilterPlugins(defaultProfile(r).filter, pod, cordoned, new Map()).reasons;
    expect(reason('1.34')).toEqual(['node(s) were unschedulable']);
    expect(reason('1.36')).toEqual(['node(s) were unschedulable']);
    expect(reason('1.37')).toEqual(["node(s) didn't match the requested node name"]);
  });
});

describe('profileFromConfig', () => {
  it('builds a profile from names and weights', () => {
    const p = profileFromConfig({
      filters: ['NodeResourcesFit'],
      scores: [{ name: 'NodeResourcesFit', weight: 5 }],
    });
    expect(p.filter.map((f) => f.name)).toEqual(['NodeResourcesFit']);
    expect(p.score.map((s) => [s.plugin.name, s.weight])).toEqual([['NodeResourcesFit', 5]]);
  });

  it('always runs PodValidity and UnsupportedConstraints first, once', () => {
    const p = profileFromConfig({
      preFilters: ['UnsupportedConstraints', 'PodValidity'],
      filters: [],
    });
    expect(p.preFilter.map((x) => x.name)).toEqual(['PodValidity', 'UnsupportedConstraints']);
    expect(profileFromConfig({ filters: [] }).preFilter.map((x) => x.name)).toEqual([
      'PodValidity',
      'UnsupportedConstraints',
    ]);
  });

  it('collects the queueing hint of every plugin it instantiates, by name', () => {
    const p = defaultProfile();
    expect([...p.queueingHints.keys()].sort()).toEqual([
      'DefaultPreemption',
      'InterPodAffinity',
      'NodeAffinity',
      'NodeDeclaredFeatures',
      'NodeName',
      'NodePorts',
      'NodeResourcesFit',
      'NodeUnschedulable',
      'NodeVolumeLimits',
      'PodTopologySpread',
      'PodValidity',
      'TaintToleration',
      'UnsupportedConstraints',
      'VolumeBinding',
      'VolumeRestrictions',
      'VolumeZone',
    ]);
    expect(p.queueingHints.get('NodeAffinity')).toBe(nodeLabelsChanged);
    expect(p.queueingHints.get('NodeName')).toBe(nodeAdded);
    expect(p.queueingHints.get('NodeResourcesFit')).toBe(capacityFreed);
    expect(p.queueingHints.get('NodeUnschedulable')).toBe(nodeCordonChanged);
    expect(p.queueingHints.get('TaintToleration')).toBe(nodeTaintsChanged);
    expect(p.queueingHints.get('InterPodAffinity')).toBe(interPodAffinityQueueingHint);
    expect(p.queueingHints.get('PodValidity')).toBe(never);
    expect(p.queueingHints.get('UnsupportedConstraints')).toBe(never);
    const onlyFit = profileFromConfig({ filters: ['NodeResourcesFit'], scores: [] });
    expect([...onlyFit.queueingHints.keys()].sort()).toEqual([
      'DefaultPreemption',
      'NodeResourcesFit',
      'PodValidity',
      'UnsupportedConstraints',
    ]);
  });

  it('defaults a missing weight to 1 and missing lists to the default profile', () => {
    const p = profileFromConfig({ scores: [{ name: 'NodeAffinity' }] });
    expect(p.score.map((s) => s.weight)).toEqual([1]);
    expect(p.filter).toHaveLength(14);
    expect(profileFromConfig({ release: '1.35' }).filter).toHaveLength(13);
  });

  it('passes InterPodAffinity its arguments', () => {
    const p = profileFromConfig({
      pluginArgs: { InterPodAffinity: { ignorePreferredTermsOfExistingPods: true } },
    });
    const ipa = p.score.find((s) => s.plugin.name === 'InterPodAffinity')?.plugin;
    // A node holding a pod with a preferred term: only the argument can skip scoring.
    const node = makeNode();
    const snapshot = initialState();
    snapshot.nodes.set(node.name, node);
    snapshot.nodeOrder.push(node);
    chargePod(node, makePod({ podAffinity: preferring }));
    expect(ipa?.preScoreSkip?.(makePod(), new Map(), snapshot)).toBe(true);
    const byDefault = defaultProfile().score.find((s) => s.plugin.name === 'InterPodAffinity');
    expect(byDefault?.plugin.preScoreSkip?.(makePod(), new Map(), snapshot)).toBe(false);
  });

  it('passes plugin arguments to the factory', () => {
    const p = profileFromConfig({
      filters: [],
      scores: [{ name: 'NodeResourcesFit', weight: 1 }],
      pluginArgs: { NodeResourcesFit: { scoringStrategy: { type: 'MostAllocated' } } },
    });
    const fit = p.score[0]?.plugin;
    const pod = makePod({ requests: { milliCPU: 2000, memory: 8 * 1024 ** 3 } });
    // MostAllocated on the default 4 cpu / 16Gi node: 50 and 50
    expect(fit?.score(pod, makeNode(), new Map())).toBe(50);
  });

  const errors: {
    name: string;
    config: Parameters<typeof profileFromConfig>[0];
    message: RegExp;
  }[] = [
    {
      name: 'an unknown plugin, listing the known ones',
      config: { filters: ['PrioritySort'] },
      message:
        /unknown plugin "PrioritySort" in filters; known plugins: DefaultPreemption, DynamicResources, ImageLocality, InterPodAffinity, NodeAffinity, NodeDeclaredFeatures, NodeName/,
    },
    {
      name: 'a score-only plugin listed as a filter',
      config: { filters: ['NodeResourcesBalancedAllocation'] },
      message: /plugin "NodeResourcesBalancedAllocation" has no Filter extension point/,
    },
    {
      name: 'a filter-only plugin listed as a score',
      config: { scores: [{ name: 'NodeName', weight: 1 }] },
      message: /plugin "NodeName" has no Score extension point/,
    },
    {
      name: 'a filter listed as a PreFilter',
      config: { preFilters: ['NodeName'] },
      message: /plugin "NodeName" has no PreFilter extension point/,
    },
    {
      name: 'a duplicate',
      config: { filters: ['NodeName', 'NodeName'] },
      message: /plugin "NodeName" is listed twice in filters/,
    },
    {
      name: 'a weight out of range',
      config: { scores: [{ name: 'NodeAffinity', weight: 0 }] },
      message: /integer weight 1–100, got 0/,
    },
    {
      name: 'a fractional weight',
      config: { scores: [{ name: 'NodeAffinity', weight: 1.5 }] },
      message: /integer weight 1–100, got 1.5/,
    },
    {
      name: 'a hardPodAffinityWeight out of kube’s range',
      config: { pluginArgs: { InterPodAffinity: { hardPodAffinityWeight: 101 } } },
      message: /InterPodAffinity: hardPodAffinityWeight: 101 not in valid range \[0, 100\]/,
    },
    {
      name: 'bad plugin arguments',
      config: { pluginArgs: { NodeResourcesFit: { scoringStrategy: { type: 'Nope' } } } },
      message: /NodeResourcesFit: unknown scoringStrategy.type "Nope"/,
    },
  ];
  for (const c of errors) {
    it(`rejects ${c.name}`, () => {
      expect(() => profileFromConfig(c.config)).toThrow(c.message);
    });
  }
});
