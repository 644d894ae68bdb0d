// A profile's pluginConfig: each plugin's args checked as kube 1.34 checks them, with kube's defaults.
import { describe, expect, it } from 'vitest';
import { registry } from '../plugins/registry.ts';
import { pluginKind } from './kube-plugins.ts';
import { resolvePluginArgs } from './plugin-args.ts';

const path = 'profiles[0].pluginConfig';
const one = (name: string, args: unknown) => resolvePluginArgs([{ name, args }], path);
const errorOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return '(no error)';
};

describe('resolvePluginArgs: what each factory is given', () => {
  it('fills NodeResourcesFit with kube’s defaults', () => {
    expect(one('NodeResourcesFit', {})).toEqual({
      NodeResourcesFit: {
        scoringStrategy: {
          type: 'LeastAllocated',
          resources: [
            { name: 'cpu', weight: 1 },
            { name: 'memory', weight: 1 },
          ],
        },
      },
    });
  });

  it('reads MostAllocated with weights (0 meaning 1) and any resource name', () => {
    const args = one('NodeResourcesFit', {
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'NodeResourcesFitArgs',
      scoringStrategy: {
        type: 'MostAllocated',
        resources: [
          { name: 'cpu', weight: 0 },
          { name: 'nvidia.com/gpu', weight: 5 },
        ],
      },
    });
    expect(args.NodeResourcesFit).toEqual({
      scoringStrategy: {
        type: 'MostAllocated',
        resources: [
          { name: 'cpu', weight: 1 },
          { name: 'nvidia.com/gpu', weight: 5 },
        ],
      },
    });
  });

  it('reads RequestedToCapacityRatio with its shape', () => {
    const shape = [
      { utilization: 0, score: 0 },
      { utilization: 100, score: 10 },
    ];
    const args = one('NodeResourcesFit', {
      scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape } },
    });
    expect(args.NodeResourcesFit).toMatchObject({
      scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape } },
    });
  });

  it('passes PodTopologySpread {defaultConstraints, defaultingType}, System by default', () => {
    expect(one('PodTopologySpread', {})).toEqual({
      PodTopologySpread: { defaultConstraints: [], defaultingType: 'System' },
    });
    const c = {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
    };
    expect(one('PodTopologySpread', { defaultingType: 'List', defaultConstraints: [c] })).toEqual({
      PodTopologySpread: { defaultConstraints: [c], defaultingType: 'List' },
    });
  });

  it('passes InterPodAffinity {hardPodAffinityWeight}, 1 by default', () => {
    expect(one('InterPodAffinity', {})).toEqual({ InterPodAffinity: { hardPodAffinityWeight: 1 } });
    expect(one('InterPodAffinity', { hardPodAffinityWeight: 0 })).toEqual({
      InterPodAffinity: { hardPodAffinityWeight: 0 },
    });
  });

  it('passes InterPodAffinity ignorePreferredTermsOfExistingPods: true on, as kube 1.34 accepts it', () => {
    // kube's ValidateInterPodAffinityArgs checks only hardPodAffinityWeight; the plugin
    // honours the flag (its scoring leaves existing pods' preferred terms out).
    const args = one('InterPodAffinity', { ignorePreferredTermsOfExistingPods: true });
    expect(args).toEqual({
      InterPodAffinity: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: true },
    });
    expect(one('InterPodAffinity', { ignorePreferredTermsOfExistingPods: false })).toEqual({
      InterPodAffinity: { hardPodAffinityWeight: 1 },
    });
    expect(() => registry.get('InterPodAffinity')?.(args.InterPodAffinity)).not.toThrow();
  });

  it('passes NodeAffinity’s addedAffinity as written (checked)', () => {
    const addedAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['a'] }] }],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 5, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } },
      ],
    };
    expect(one('NodeAffinity', { addedAffinity })).toEqual({ NodeAffinity: { addedAffinity } });
    expect(one('NodeAffinity', {})).toEqual({});
  });

  it('accepts cpu+memory BalancedAllocation args and args of kube plugins berth does not run', () => {
    const got = resolvePluginArgs(
      [
        {
          name: 'NodeResourcesBalancedAllocation',
          args: { resources: [{ name: 'memory' }, { name: 'cpu', weight: 1 }] },
        },
        { name: 'TaintToleration' },
      ],
      path,
    );
    expect(got).toEqual({});
  });

  it('reads DynamicResourcesArgs’ timeouts and refuses a bindingTimeout under 1 s, as kube does', () => {
    expect(one('DynamicResources', { filterTimeout: '5s', bindingTimeout: '2m' })).toEqual({
      DynamicResources: { filterTimeout: '5s', bindingTimeout: '2m' },
    });
    expect(one('DynamicResources', {})).toEqual({});
    expect(errorOf(() => one('DynamicResources', { bindingTimeout: '500ms' }))).toBe(
      `config ${path}[0].args: bindingTimeout: must be at least 1 second`,
    );
    expect(errorOf(() => one('DynamicResources', { filterTimeout: 'soon' }))).toContain(
      'filterTimeout: must be a duration',
    );
  });

  it('passes other plugins’ args as written, and puts a factory’s refusal after the path', () => {
    // A registry plugin without a reader of its own: its factory checks its args.
    const name = [...registry.keys()].find(
      (n) =>
        pluginKind(n) === 'berth' &&
        ![
          'NodeResourcesFit',
          'NodeResourcesBalancedAllocation',
          'PodTopologySpread',
          'InterPodAffinity',
          'NodeAffinity',
          'NodeUnschedulable',
          'NodeName',
          'TaintToleration',
          'NodePorts',
          'ImageLocality',
          'VolumeRestrictions',
          'VolumeZone',
          'NodeVolumeLimits',
        ].includes(n),
    );
    if (name === undefined) return; // none today
    const args = { kind: `${name}Args`, someSetting: 3 };
    let refused: string | undefined;
    try {
      registry.get(name)?.({ someSetting: 3 });
    } catch (error) {
      refused = (error as Error).message;
    }
    if (refused === undefined) expect(one(name, args)).toEqual({ [name]: { someSetting: 3 } });
    else expect(errorOf(() => one(name, args))).toBe(`config ${path}[0].args: ${refused}`);
  });

  it('gives args every factory of the registry accepts', () => {
    const all = resolvePluginArgs(
      [
        { name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } },
        { name: 'PodTopologySpread', args: { defaultingType: 'List' } },
        { name: 'InterPodAffinity', args: { hardPodAffinityWeight: 5 } },
        {
          name: 'NodeAffinity',
          args: {
            addedAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
            },
          },
        },
      ],
      path,
    );
    for (const [name, args] of Object.entries(all)) {
      const factory = registry.get(name);
      if (factory === undefined) continue;
      expect(() => factory(args), name).not.toThrow();
    }
  });
});

describe('resolvePluginArgs: refusals name the path', () => {
  const strategyOf = (scoringStrategy: unknown) => [
    { name: 'NodeResourcesFit', args: { scoringStrategy } },
  ];
  const spread = (args: unknown) => [{ name: 'PodTopologySpread', args }];
  const affinity = (term: unknown) => [
    {
      name: 'NodeAffinity',
      args: {
        addedAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] },
        },
      },
    },
  ];
  const p = 'config profiles[0].pluginConfig[0]';
  const nsPath = `${p}.args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]`;
  const cases: { name: string; config: unknown; error: string }[] = [
    {
      name: 'an unknown plugin',
      config: [{ name: 'Foo' }],
      error: `${p}.name: unknown plugin "Foo"`,
    },
    {
      name: 'a plugin configured twice',
      config: [{ name: 'NodeAffinity' }, { name: 'NodeAffinity' }],
      error:
        'config profiles[0].pluginConfig[1].name: duplicate pluginConfig for plugin "NodeAffinity"',
    },
    {
      name: 'an unknown args field',
      config: [{ name: 'NodeResourcesFit', args: { scoringStrategyy: {} } }],
      error: `${p}.args.scoringStrategyy: unknown field`,
    },
    {
      name: 'args of another kind',
      config: [{ name: 'NodeResourcesFit', args: { kind: 'NodeAffinityArgs' } }],
      error: `${p}.args.kind: must be NodeResourcesFitArgs`,
    },
    {
      name: 'a strategy without a type',
      config: strategyOf({ resources: [{ name: 'cpu', weight: 1 }] }),
      error: `${p}.args.scoringStrategy.type: is required`,
    },
    {
      name: 'an unknown strategy type',
      config: strategyOf({ type: 'Balanced' }),
      error: `${p}.args.scoringStrategy.type: unsupported value "Balanced"`,
    },
    {
      name: 'a resource weight over 100',
      config: strategyOf({ type: 'MostAllocated', resources: [{ name: 'cpu', weight: 101 }] }),
      error: `${p}.args.scoringStrategy.resources[0].weight: 101 not in valid range (0, 100] for resource cpu`,
    },
    {
      name: 'RequestedToCapacityRatio without a shape',
      config: strategyOf({ type: 'RequestedToCapacityRatio' }),
      error: `${p}.args.scoringStrategy.requestedToCapacityRatio.shape: is required for RequestedToCapacityRatio`,
    },
    {
      name: 'an empty shape',
      config: strategyOf({
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: { shape: [] },
      }),
      error: `${p}.args.scoringStrategy.requestedToCapacityRatio.shape: at least one point must be specified`,
    },
    {
      name: 'a shape out of order',
      config: strategyOf({
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: {
          shape: [
            { utilization: 50, score: 1 },
            { utilization: 50, score: 2 },
          ],
        },
      }),
      error: `${p}.args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: values must be sorted in increasing order`,
    },
    {
      name: 'a shape score over 10',
      config: strategyOf({
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: { shape: [{ utilization: 0, score: 11 }] },
      }),
      error: `${p}.args.scoringStrategy.requestedToCapacityRatio.shape[0].score: 11 not in valid range [0, 10]`,
    },
    {
      name: 'ignoredResources',
      config: [{ name: 'NodeResourcesFit', args: { ignoredResources: ['example.com/x'] } }],
      error: `${p}.args.ignoredResources: is not supported by berth`,
    },
    {
      name: 'System defaulting with constraints',
      config: spread({
        defaultConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      }),
      error: `${p}.args.defaultingType: must be List when .defaultConstraints are not empty`,
    },
    {
      name: 'an unknown defaultingType',
      config: spread({ defaultingType: 'Auto' }),
      error: `${p}.args.defaultingType: unsupported value "Auto"`,
    },
    {
      name: 'a default constraint with a selector',
      config: spread({
        defaultingType: 'List',
        defaultConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: {},
          },
        ],
      }),
      error: `${p}.args.defaultConstraints[0].labelSelector: forbidden`,
    },
    {
      name: 'a default constraint with maxSkew 0',
      config: spread({
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      }),
      error: `${p}.args.defaultConstraints[0].maxSkew: 0 not in valid range (0, inf)`,
    },
    {
      name: 'a default constraint with a bad topology key',
      config: spread({
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 1, topologyKey: 'a b', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      }),
      error: `${p}.args.defaultConstraints[0].topologyKey: "a b" must start and end`,
    },
    {
      name: 'a default constraint repeated',
      config: spread({
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
          { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      }),
      error: `${p}.args.defaultConstraints[1]: duplicate value {zone, DoNotSchedule}`,
    },
    {
      name: 'a default constraint with minDomains (not applied by berth yet)',
      config: spread({
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 },
        ],
      }),
      error: `${p}.args.defaultConstraints[0].minDomains: is not supported`,
    },
    {
      name: 'ignorePreferredTermsOfExistingPods not a boolean',
      config: [{ name: 'InterPodAffinity', args: { ignorePreferredTermsOfExistingPods: 'yes' } }],
      error: `${p}.args.ignorePreferredTermsOfExistingPods: must be true or false, got "yes"`,
    },
    {
      name: 'an InterPodAffinity field kube does not have',
      config: [{ name: 'InterPodAffinity', args: { hardPodAfinityWeight: 2 } }],
      error: `${p}.args.hardPodAfinityWeight: unknown field (known: hardPodAffinityWeight, ignorePreferredTermsOfExistingPods)`,
    },
    {
      name: 'hardPodAffinityWeight over 100',
      config: [{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: 101 } }],
      error: `${p}.args.hardPodAffinityWeight: 101 not in valid range [0, 100]`,
    },
    {
      name: 'an added affinity operator kube does not know',
      config: affinity({ matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }] }),
      error: `${nsPath}.matchExpressions[0].operator: unsupported value "Near"`,
    },
    {
      name: 'In without values',
      config: affinity({ matchExpressions: [{ key: 'zone', operator: 'In' }] }),
      error: `${nsPath}.matchExpressions[0].values: must be specified when operator is In`,
    },
    {
      name: 'Exists with values',
      config: affinity({ matchExpressions: [{ key: 'zone', operator: 'Exists', values: ['a'] }] }),
      error: `${nsPath}.matchExpressions[0].values: may not be specified when operator is Exists`,
    },
    {
      name: 'Gt with a value that is not an integer',
      config: affinity({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['many'] }] }),
      error: `${nsPath}.matchExpressions[0].values[0]: "many" must be an integer for Gt`,
    },
    {
      name: 'a key that is not a label name',
      config: affinity({ matchExpressions: [{ key: 'invalid key', operator: 'Exists' }] }),
      error: `${nsPath}.matchExpressions[0].key: "invalid key" must start and end`,
    },
    {
      name: 'a field requirement with two values',
      config: affinity({
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }],
      }),
      error: `${nsPath}.matchFields[0].values: must have one element`,
    },
    {
      name: 'BalancedAllocation over a resource berth does not balance',
      config: [
        {
          name: 'NodeResourcesBalancedAllocation',
          args: { resources: [{ name: 'nvidia.com/gpu' }] },
        },
      ],
      error: `${p}.args.resources[0].name: "nvidia.com/gpu" is not supported`,
    },
    {
      name: 'args for a plugin kube gives none',
      config: [{ name: 'TaintToleration', args: { weight: 3 } }],
      error: `${p}.args.weight: unknown field`,
    },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const message = errorOf(() => resolvePluginArgs(c.config, path));
      expect(message.startsWith(c.error), message).toBe(true);
    });
  }
});
