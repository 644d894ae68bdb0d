// `berth explain` of DRA pods from a recorded log: DynamicResources' verdict per node, from the restored state.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { explainCommand } from '../../src/cli/explain-command.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `berth explain ARGS` in this process; returns what it printed. */
async function explain(...argv: string[]): Promise<string> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await explainCommand(argv);
    return out;
  } finally {
    spy.mockRestore();
  }
}

describe('berth explain (DRA)', () => {
  it('explains a DRA pod of the demo log: DynamicResources filters each node and allocates on the chosen one', async () => {
    const draLog = join(root, 'test/fixtures/logs/sim-dra-demo.jsonl');
    const doc = JSON.parse(await explain('ml/finetune', '--log', draLog, '--json'));
    expect(doc.recorded.agrees).toBe(true);
    const filters = doc.explanation.filters as { plugin: string; skipped: boolean }[];
    const at = filters.findIndex((f) => f.plugin === 'DynamicResources');
    expect(filters[at]?.skipped).toBe(false);
    const chosen = doc.explanation.nodes.find((n: { node: string }) => n.node === 'node-b');
    expect(chosen.filters[at]).toBe('pass');
  });
});
