// Keeps the committed machine exports (JSON for Stately, Mermaid) identical to the code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportMachines } from './export.ts';

describe('machine exports', () => {
  for (const exported of exportMachines()) {
    it(`machines/${exported.name}.json and .mmd match the ${exported.name} machine (run: npm run --silent berth -- export-machines --out machines)`, () => {
      const dir = fileURLToPath(new URL('.', import.meta.url));
      expect(readFileSync(`${dir}${exported.name}.json`, 'utf8')).toBe(exported.json);
      expect(readFileSync(`${dir}${exported.name}.mmd`, 'utf8')).toBe(exported.mermaid);
    });
  }
});
