// `berth simulate` with topology-constrained PodGroups, through the real command: a gang lands inside one rack, one that fits no rack and one with a malformed annotation wait, saying why.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

const berth = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/berth.js'), ...args], {
    encoding: 'utf8',
    cwd: root,
  });

describe('berth simulate: topology-aware gang placement', () => {
  it('places the rack-constrained gang inside one rack and explains the groups it cannot place', () => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'bin/berth.js'),
        'simulate',
        '--cluster',
        'test/fixtures/gang-topology.yaml',
        '--json',
      ],
      { encoding: 'utf8', cwd: root },
    );
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    const nodes = Object.entries(out.placements as Record<string, string>)
      .filter(([pod]) => pod.startsWith('ml/allreduce-'))
      .map(([, node]) => node);
    expect(nodes).toHaveLength(4);
    // rack-b is b-1 and b-2; rack-a plus the unlabelled free-1 would hold the group too.
    expect(new Set(nodes)).toEqual(new Set(['b-1', 'b-2']));
    const noRack =
      'pod group ml/wide: no domain of topology.kubernetes.io/rack holds all 4 members: 0 of 2 domains tried, 2 too small by summed free capacity';
    expect(out.pending).toEqual({
      'ml/badkey-0':
        'pod group ml/badkey: annotation berth.dev/topology-key "two words" is not a node label key',
      'ml/wide-0': noRack,
      'ml/wide-1': noRack,
      'ml/wide-2': noRack,
      'ml/wide-3': noRack,
    });
  });

  it('explains a member inside its rack, and a group no rack holds by its reason', () => {
    const placed = berth(
      'explain',
      'ml/allreduce-0',
      '--cluster',
      'test/fixtures/gang-topology.yaml',
    );
    expect(placed.stdout).toContain('Recorded: #24 Scheduled on b-1: the recomputed cycle agrees');
    expect(placed.stdout).toContain(
      'TopologyDomain          Success, narrowed to 2 node(s): b-1, b-2',
    );
    const blocked = berth('explain', 'ml/wide-0', '--cluster', 'test/fixtures/gang-topology.yaml');
    expect(blocked.stdout).toContain(
      'Unschedulable: pod group ml/wide: no domain of topology.kubernetes.io/rack holds all 4 members',
    );
  });
});
