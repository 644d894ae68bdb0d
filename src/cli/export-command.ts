// `berth export-machines`: write every machine as XState JSON and Mermaid.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportMachines } from '../../machines/export.ts';
import { parseFlags } from './args.ts';
import { CliError } from './errors.ts';

/** Writes `<name>.json` and `<name>.mmd` per machine into --out (default ./machines). */
export function exportMachinesCommand(argv: string[]): void {
  const { values } = parseFlags(argv, { out: { type: 'string' } });
  const out = values.out ?? 'machines';
  try {
    mkdirSync(out, { recursive: true });
    for (const m of exportMachines()) {
      writeFileSync(join(out, `${m.name}.json`), m.json);
      writeFileSync(join(out, `${m.name}.mmd`), m.mermaid);
      process.stdout.write(`${join(out, `${m.name}.json`)}\n${join(out, `${m.name}.mmd`)}\n`);
    }
  } catch (error) {
    throw new CliError(`cannot write to ${out}: ${(error as Error).message}`);
  }
}
