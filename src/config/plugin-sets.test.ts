// A profile's plugins merged with kube's defaults: enabled/disabled/"*", multiPoint, weights, and refusals.
import { describe, expect, it } from 'vitest';
import { type KubeRelease, latestKubeRelease } from '../model/kube-release.ts';
import {
  defaultFilters,
  defaultFiltersOf,
  defaultPreFilters,
  defaultPreFiltersOf,
  defaultScores,
  defaultScoresOf,
} from '../plugins/registry.ts';
import { kubeDefaultMultiPoint, pluginKind } from './kube-plugins.ts';
import { resolvePlugins } from './plugin-sets.ts';

/** A plugin of kube's default profile that berth does not have (yet), whichever it is today. */
const missing =
  kubeDefaultMultiPoint.map((p) => p.name).find((n) => pluginKind(n) === 'kube-only') ??
  'DefaultPreemption';

const path = 'profiles[0].plugins';
const latest: KubeRelease = latestKubeRelease;
const names = (list: { name: string }[]) => list.map((s) => s.name);
const scoresOf = (plugins: unknown) => resolvePlugins(plugins, path, latest).scores;

describe('resolvePlugins: merging with kube’s default profile', () => {
  it('gives the registry’s default lists when nothing is configured', () => {
    const r = resolvePlugins(undefined, path, latest);
    expect(r.preFilters).toEqual([...defaultPreFilters]);
    expect(r.filters).toEqual([...defaultFilters]);
    expect(r.scores).toEqual(defaultScores.map((s) => ({ ...s })));
  });

  it('disables one default score plugin, keeping the others in kube’s order', () => {
    const r = resolvePlugins({ score: { disabled: [{ name: 'ImageLocality' }] } }, path, latest);
    expect(names(r.scores)).toEqual(names([...defaultScores]).filter((n) => n !== 'ImageLocality'));
    expect(r.filters).toEqual([...defaultFilters]);
  });

  it('re-weights a default score plugin in place (score.enabled wins over multiPoint)', () => {
    const scores = scoresOf({ score: { enabled: [{ name: 'NodeResourcesFit', weight: 7 }] } });
    // kube: an override moves to the front of the point's list
    expect(scores[0]).toEqual({ name: 'NodeResourcesFit', weight: 7 });
    expect(scores).toHaveLength(defaultScores.length);
  });

  it('re-weights through multiPoint in place, keeping kube’s order', () => {
    const scores = scoresOf({ multiPoint: { enabled: [{ name: 'ImageLocality', weight: 9 }] } });
    expect(names(scores)).toEqual(names([...defaultScores]));
    expect(scores.at(-1)).toEqual({ name: 'ImageLocality', weight: 9 });
  });

  it('"*" disables every default of a point; the point then holds only its own enabled', () => {
    const r = resolvePlugins(
      {
        score: {
          disabled: [{ name: '*' }],
          enabled: [{ name: 'NodeResourcesFit', weight: 5 }, { name: 'ImageLocality' }],
        },
      },
      path,
      latest,
    );
    expect(r.scores).toEqual([
      { name: 'NodeResourcesFit', weight: 5 },
      { name: 'ImageLocality', weight: 1 },
    ]);
    expect(r.filters).toEqual([...defaultFilters]);
  });

  it('"*" in multiPoint leaves only what multiPoint and the points enable', () => {
    const r = resolvePlugins(
      {
        multiPoint: {
          disabled: [{ name: '*' }],
          enabled: [{ name: 'NodeResourcesFit', weight: 2 }, { name: 'TaintToleration' }],
        },
      },
      path,
      latest,
    );
    expect(r.preFilters).toEqual([]);
    expect(r.filters).toEqual(['NodeResourcesFit', 'TaintToleration']);
    expect(r.scores).toEqual([
      { name: 'NodeResourcesFit', weight: 2 },
      { name: 'TaintToleration', weight: 1 },
    ]);
  });

  it('a weight of 0 means 1, as kube says', () => {
    const scores = scoresOf({
      score: { disabled: [{ name: '*' }], enabled: [{ name: 'ImageLocality', weight: 0 }] },
    });
    expect(scores).toEqual([{ name: 'ImageLocality', weight: 1 }]);
  });

  it('disables a plugin at one point only, leaving its other points', () => {
    const r = resolvePlugins({ filter: { disabled: [{ name: 'TaintToleration' }] } }, path, latest);
    expect(r.filters).not.toContain('TaintToleration');
    expect(names(r.scores)).toContain('TaintToleration');
  });

  it('orders overrides first, then multiPoint’s, then the point’s others (kube’s expansion)', () => {
    const r = resolvePlugins(
      { filter: { enabled: [{ name: 'NodeName' }, { name: 'NodePorts' }] } },
      path,
      latest,
    );
    // both are multiPoint defaults: enabled at the point too, they are overrides
    expect(r.filters.slice(0, 2)).toEqual(['NodeName', 'NodePorts']);
    expect(r.filters).toHaveLength(defaultFilters.length);
  });

  it('accepts a plugin at a point kube gives it and berth folds into another (NodePorts PreFilter)', () => {
    const r = resolvePlugins({ preFilter: { enabled: [{ name: 'NodePorts' }] } }, path, latest);
    expect(r.preFilters).toEqual([...defaultPreFilters]);
  });

  it('drops kube plugins berth lacks from the defaults, and accepts disabling them', () => {
    const r = resolvePlugins(
      {
        multiPoint: { disabled: [{ name: missing }] },
        postFilter: { disabled: [{ name: 'DefaultPreemption' }] },
        preScore: { disabled: [{ name: '*' }] },
      },
      path,
      latest,
    );
    expect(r.filters).toEqual([...defaultFilters]);
  });
});

describe('resolvePlugins: refusals name the path', () => {
  const cases: { name: string; plugins: unknown; error: string }[] = [
    {
      name: 'an unknown plugin',
      plugins: { score: { enabled: [{ name: 'Foo' }] } },
      error: 'config profiles[0].plugins.score.enabled[0].name: unknown plugin "Foo"',
    },
    {
      name: 'an unknown plugin disabled',
      plugins: { filter: { disabled: [{ name: 'Fooo' }] } },
      error: 'config profiles[0].plugins.filter.disabled[0].name: unknown plugin "Fooo"',
    },
    {
      name: 'a kube plugin berth does not implement, enabled',
      plugins: { multiPoint: { enabled: [{ name: missing }] } },
      error: `config profiles[0].plugins.multiPoint.enabled[0].name: berth does not implement plugin "${missing}" yet`,
    },
    {
      name: 'a plugin removed from the v1 API',
      plugins: { filter: { enabled: [{ name: 'EBSLimits' }] } },
      error: 'config profiles[0].plugins.filter.enabled[0].name: plugin "EBSLimits" was removed',
    },
    {
      name: 'berth’s built-in PreFilter',
      plugins: { preFilter: { disabled: [{ name: 'PodValidity' }] } },
      error:
        'config profiles[0].plugins.preFilter.disabled[0].name: "PodValidity" is built into berth',
    },
    {
      name: '"*" enabled',
      plugins: { score: { enabled: [{ name: '*' }] } },
      error: 'config profiles[0].plugins.score.enabled[0].name: "*" may only be disabled',
    },
    {
      name: 'a plugin at a point it lacks',
      plugins: { filter: { enabled: [{ name: 'ImageLocality' }] } },
      error:
        'config profiles[0].plugins.filter.enabled[0].name: plugin "ImageLocality" has no filter extension point',
    },
    {
      name: 'a plugin enabled twice at one point',
      plugins: {
        score: {
          disabled: [{ name: '*' }],
          enabled: [{ name: 'ImageLocality' }, { name: 'ImageLocality' }],
        },
      },
      error:
        'config profiles[0].plugins.score.enabled[1].name: plugin "ImageLocality" is enabled twice',
    },
    {
      name: 'a plugin enabled twice in multiPoint',
      plugins: { multiPoint: { enabled: [{ name: 'ImageLocality' }, { name: 'ImageLocality' }] } },
      error:
        'config profiles[0].plugins.multiPoint.enabled[1].name: plugin "ImageLocality" is enabled twice',
    },
    {
      name: 'an enabled plugin at a point berth does not configure',
      plugins: { postFilter: { enabled: [{ name: 'NodeName' }] } },
      error:
        'config profiles[0].plugins.postFilter.enabled[0].name: plugin "NodeName" has no postFilter extension point',
    },
    {
      name: 'a weight beyond berth’s 100',
      plugins: { score: { enabled: [{ name: 'ImageLocality', weight: 101 }] } },
      error:
        'config profiles[0].plugins.score.enabled[0].weight: 101 not in berth’s range [1, 100]',
    },
    {
      name: 'a negative weight',
      plugins: { multiPoint: { enabled: [{ name: 'ImageLocality', weight: -1 }] } },
      error: 'config profiles[0].plugins.multiPoint.enabled[0].weight: -1 not in berth’s range',
    },
    {
      name: 'a fractional weight',
      plugins: { score: { enabled: [{ name: 'ImageLocality', weight: 1.5 }] } },
      error: 'config profiles[0].plugins.score.enabled[0].weight: must be an integer, got 1.5',
    },
    {
      name: 'an unknown extension point',
      plugins: { scores: {} },
      error: 'config profiles[0].plugins.scores: unknown field',
    },
    {
      name: 'an unknown field in a plugin entry',
      plugins: { score: { enabled: [{ name: 'ImageLocality', wieght: 2 }] } },
      error: 'config profiles[0].plugins.score.enabled[0].wieght: unknown field',
    },
    {
      name: 'an entry without a name',
      plugins: { filter: { disabled: [{}] } },
      error: 'config profiles[0].plugins.filter.disabled[0].name: is required',
    },
    {
      name: 'enabled that is not a list',
      plugins: { filter: { enabled: { name: 'NodeName' } } },
      error: 'config profiles[0].plugins.filter.enabled: must be a list',
    },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      let message = '';
      try {
        resolvePlugins(c.plugins, path, latest);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message.startsWith(c.error.replace('berth’s', "berth's")), message).toBe(true);
    });
  }
});

describe('resolvePlugins: the emulated release’s defaults', () => {
  const releases: KubeRelease[] = ['1.34', '1.35', '1.36', '1.37'];

  it('gives each release’s registry default lists when nothing is configured', () => {
    for (const r of releases) {
      const got = resolvePlugins(undefined, path, r);
      expect(got.preFilters, r).toEqual([...defaultPreFiltersOf(r)]);
      expect(got.filters, r).toEqual([...defaultFiltersOf(r)]);
      expect(got.scores, r).toEqual(defaultScoresOf(r).map((s) => ({ ...s })));
    }
  });

  it('merges a file the same way against 1.34 and 1.37 defaults, each in its order', () => {
    const plugins = { filter: { disabled: [{ name: 'TaintToleration' }] } };
    expect(resolvePlugins(plugins, path, '1.34').filters.slice(0, 3)).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'NodeAffinity',
    ]);
    expect(resolvePlugins(plugins, path, '1.37').filters.slice(0, 3)).toEqual([
      'NodeName',
      'NodeUnschedulable',
      'NodeAffinity',
    ]);
  });

  it('disables NodeDeclaredFeatures through multiPoint at 1.37', () => {
    const r = resolvePlugins(
      { multiPoint: { disabled: [{ name: 'NodeDeclaredFeatures' }] } },
      path,
      '1.37',
    );
    expect(r.filters).not.toContain('NodeDeclaredFeatures');
    expect(r.filters).toHaveLength(defaultFiltersOf('1.37').length - 1);
  });

  it('re-weights DynamicResources from 1.35 and refuses it as a score plugin at 1.34', () => {
    const plugins = { score: { enabled: [{ name: 'DynamicResources', weight: 4 }] } };
    expect(resolvePlugins(plugins, path, '1.35').scores[0]).toEqual({
      name: 'DynamicResources',
      weight: 4,
    });
    expect(() => resolvePlugins(plugins, path, '1.34')).toThrow(
      'config profiles[0].plugins.score.enabled[0].name: plugin "DynamicResources" has no score extension point',
    );
  });

  it('knows NodeDeclaredFeatures from 1.35 (kube 1.34 has no such plugin)', () => {
    const plugins = { filter: { enabled: [{ name: 'NodeDeclaredFeatures' }] } };
    expect(() => resolvePlugins(plugins, path, '1.34')).toThrow(
      'config profiles[0].plugins.filter.enabled[0].name: unknown plugin "NodeDeclaredFeatures" in kube-scheduler 1.34',
    );
    // 1.35: kube has the plugin (gate off, it passes every pod); enabling it is accepted.
    expect(resolvePlugins(plugins, path, '1.35').filters.at(-1)).toBe('NodeDeclaredFeatures');
  });
});
