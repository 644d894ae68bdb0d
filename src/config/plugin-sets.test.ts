// A profile's plugins merged with kube's defaults: enabled/disabled/"*", multiPoint, weights, and refusals.
import { describe, expect, it } from 'vitest';
import { defaultFilters, defaultPreFilters, defaultScores } from '../plugins/registry.ts';
import { kubeDefaultMultiPoint, pluginKind } from './kube-plugins.ts';
import { resolvePlugins } from './plugin-sets.ts';

/** A plugin of kube's default profile that berth does not have (yet), whichever it is today. */
const missing =
  kubeDefaultMultiPoint.map((p) => p.name).find((n) => pluginKind(n) === 'kube-only') ??
  'DefaultPreemption';

const path = 'profiles[0].plugins';
const names = (list: { name: string }[]) => list.map((s) => s.name);
const scoresOf = (plugins: unknown) => resolvePlugins(plugins, path).scores;

describe('resolvePlugins: merging with kube’s default profile', () => {
  it('gives the registry’s default lists when nothing is configured', () => {
    const r = resolvePlugins(undefined, path);
    expect(r.preFilters).toEqual([...defaultPreFilters]);
    expect(r.filters).toEqual([...defaultFilters]);
    expect(r.scores).toEqual(defaultScores.map((s) => ({ ...s })));
  });

  it('disables one default score plugin, keeping the others in kube’s order', () => {
    const r = resolvePlugins({ score: { disabled: [{ name: 'ImageLocality' }] } }, path);
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
    const r = resolvePlugins({ filter: { disabled: [{ name: 'TaintToleration' }] } }, path);
    expect(r.filters).not.toContain('TaintToleration');
    expect(names(r.scores)).toContain('TaintToleration');
  });

  it('orders overrides first, then multiPoint’s, then the point’s others (kube’s expansion)', () => {
    const r = resolvePlugins(
      { filter: { enabled: [{ name: 'NodeName' }, { name: 'NodePorts' }] } },
      path,
    );
    // both are multiPoint defaults: enabled at the point too, they are overrides
    expect(r.filters.slice(0, 2)).toEqual(['NodeName', 'NodePorts']);
    expect(r.filters).toHaveLength(defaultFilters.length);
  });

  it('accepts a plugin at a point kube gives it and berth folds into another (NodePorts PreFilter)', () => {
    const r = resolvePlugins({ preFilter: { enabled: [{ name: 'NodePorts' }] } }, path);
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
        resolvePlugins(c.plugins, path);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message.startsWith(c.error.replace('berth’s', "berth's")), message).toBe(true);
    });
  }
});
