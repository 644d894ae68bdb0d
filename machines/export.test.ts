// Keeps the committed machine exports (JSON for Stately, Mermaid) identical to the code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportMachines } from './export.ts';
import { podMachine } from './pod.machine.ts';

describe('machine exports', () => {
  for (const exported of exportMachines()) {
    it(`machines/${exported.name}.json and .mmd match the ${exported.name} machine (run: npm run --silent berth -- export-machines --out machines)`, () => {
      const dir = fileURLToPath(new URL('.', import.meta.url));
      expect(readFileSync(`${dir}${exported.name}.json`, 'utf8')).toBe(exported.json);
      expect(readFileSync(`${dir}${exported.name}.mmd`, 'utf8')).toBe(exported.mermaid);
    });
  }

  it('draws every state of the pod machine with its description, and ends only bound and deleted', () => {
    const pod = exportMachines().find((m) => m.name === 'pod');
    const lines = pod?.mermaid.split('\n') ?? [];
    for (const [key, state] of Object.entries(podMachine.root.states)) {
      expect(lines).toContain(`  ${key} : ${state.description}`);
    }
    expect(lines.filter((l) => l.endsWith('--> [*]')).sort()).toEqual([
      '  bound --> [*]',
      '  deleted --> [*]',
    ]);
    expect(lines).toContain('  binding --> boundUnconfirmed : BIND_SUCCEEDED');
  });

  it('draws the way into and out of gated (PreEnqueue)', () => {
    const pod = exportMachines().find((m) => m.name === 'pod');
    const lines = pod?.mermaid.split('\n') ?? [];
    expect(lines).toContain('  pending --> gated : GATED');
    expect(lines).toContain('  gated --> pending : UNGATED');
    expect(lines).toContain('  filtering --> waiting : RESERVED [permitWaits]');
    expect(lines).toContain('  filtering --> binding : RESERVED');
  });
});
