// `berth export-machines`: write every machine's config (JSON and code) and Mermaid, or trace one pod's path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportFiles, exportMachines } from '../../machines/export.ts';
import { parseFlags } from './args.ts';
import { CliError, FlagError } from './errors.ts';
import { readRecordKey } from './record-key.ts';
import { tracePodPath } from './trace-path.ts';
import { renderTraceJson, renderTraceMermaid, renderTraceText } from './trace-render.ts';

/** Writes `<name>.json`, `<name>.stately.ts` and `<name>.mmd` per machine into `out`. */
function writeExports(out: string): void {
  try {
    mkdirSync(out, { recursive: true });
    for (const m of exportMachines()) {
      const files = exportFiles(m.name);
      const written: [string, string][] = [
        [files.json, m.json],
        [files.code, m.code],
        [files.mermaid, m.mermaid],
      ];
      for (const [file, text] of written) {
        writeFileSync(join(out, file), text);
        process.stdout.write(`${join(out, file)}\n`);
      }
    }
  } catch (error) {
    throw new CliError(`cannot write to ${out}: ${(error as Error).message}`);
  }
}

/**
 * `berth export-machines [--out DIR]` writes every machine (see the usage text);
 * `--trace NS/POD --log LOG [--json|--mermaid] [--record-key FILE]` prints the path the
 * pod's machine took in the log instead (a table by default).
 */
export function exportMachinesCommand(argv: string[]): void {
  const { values } = parseFlags(argv, {
    out: { type: 'string' },
    trace: { type: 'string' },
    log: { type: 'string' },
    json: { type: 'boolean' },
    mermaid: { type: 'boolean' },
    'record-key': { type: 'string' },
  });
  if (values.trace === undefined) {
    const traceOnly = (['log', 'json', 'mermaid', 'record-key'] as const).find(
      (flag) => values[flag] !== undefined,
    );
    if (traceOnly !== undefined) throw new FlagError(`--${traceOnly} goes with --trace NS/POD`);
    writeExports(values.out ?? 'machines');
    return;
  }
  if (values.out !== undefined) throw new FlagError('--out does not go with --trace');
  if (values.log === undefined) throw new FlagError('--trace needs --log LOG');
  if (values.json === true && values.mermaid === true)
    throw new FlagError('--json and --mermaid: choose one');
  const sealKey =
    values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
  const trace = tracePodPath(values.trace, values.log, sealKey);
  const render =
    values.json === true
      ? renderTraceJson
      : values.mermaid === true
        ? renderTraceMermaid
        : renderTraceText;
  process.stdout.write(render(trace));
}
