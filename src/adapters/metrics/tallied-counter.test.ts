// Tests TalliedCounter: the counts reach the exposition at every scrape, once, per label set.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter } from './tallied-counter.ts';

function series(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name));
}

describe('TalliedCounter', () => {
  it('shows each label set’s count at every scrape without adding it twice', async () => {
    const registry = new Registry();
    const c = new TalliedCounter({
      name: 't_total',
      help: 'T.',
      labelNames: ['queue', 'event'] as const,
      registers: [registry],
    });
    c.add('active/PodAdd', { queue: 'active', event: 'PodAdd' });
    c.add('active/PodAdd', { queue: 'active', event: 'PodAdd' }, 2);
    c.add('backoff/NodeAdd', { queue: 'backoff', event: 'NodeAdd' });
    const first = series(await registry.metrics(), 't_total');
    expect(first).toEqual([
      't_total{queue="active",event="PodAdd"} 3',
      't_total{queue="backoff",event="NodeAdd"} 1',
    ]);
    expect(series(await registry.metrics(), 't_total')).toEqual(first);
    c.add('active/PodAdd', { queue: 'active', event: 'PodAdd' });
    expect(series(await registry.metrics(), 't_total')[0]).toBe(
      't_total{queue="active",event="PodAdd"} 4',
    );
  });

  it('labels a one-label counter by value', async () => {
    const registry = new Registry();
    const c = new TalliedCounter({
      name: 'u_total',
      help: 'U.',
      labelNames: ['type'] as const,
      registers: [registry],
    });
    for (const type of ['PodAdded', 'NodeAdded', 'PodAdded']) c.addValue(type);
    expect(series(await registry.metrics(), 'u_total')).toEqual([
      'u_total{type="PodAdded"} 2',
      'u_total{type="NodeAdded"} 1',
    ]);
  });
});
