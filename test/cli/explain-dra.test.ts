// `berth explain` of DRA pods from a recorded log: DynamicResources' verdict per node, from the restored state.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inProcess } from './explain-in-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('berth explain (DRA)', () => {
  it('explains a DRA pod of the demo log: DynamicResources filters each node and allocates on the chosen one', async () => {
    const draLog = join(root, 'test/fixtures/logs/sim-dra-demo.jsonl');
    const doc = JSON.parse((await inProcess('ml/finetune', '--log', draLog, '--json')).out);
    expect(doc.recorded.agrees).toBe(true);
    const filters = doc.explanation.filters as { plugin: string; skipped: boolean }[];
    const at = filters.findIndex((f) => f.plugin === 'DynamicResources');
    expect(filters[at]?.skipped).toBe(false);
    const chosen = doc.explanation.nodes.find((n: { node: string }) => n.node === 'node-b');
    expect(chosen.filters[at]).toBe('pass');
  });
});
