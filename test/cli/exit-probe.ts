// A node preload for the CLI tests: when the process exits, it evaluates a snippet and prints the value on stderr for the test to read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A preload script written by `exitProbe`, the environment that loads it, and its reader. */
export interface ExitProbe {
  /** process.env with NODE_OPTIONS preloading the probe; reaches node started by a #! line too. */
  env: NodeJS.ProcessEnv;
  /** The value the probe printed on `stderr`; throws if it printed none. */
  read(stderr: string): unknown;
}

/**
 * Writes `dir`/probe.cjs: at the process's exit it runs `bodyAtExit` (a function body, CommonJS,
 * ending in `return value`) and writes `probe <value as JSON>` on stderr.
 */
export function exitProbe(dir: string, bodyAtExit: string): ExitProbe {
  const path = join(dir, 'probe.cjs');
  writeFileSync(
    path,
    `process.on('exit', () => {\n  const value = (() => {\n${bodyAtExit}\n  })();\n` +
      `  process.stderr.write('probe ' + JSON.stringify(value) + '\\n');\n});\n`,
  );
  return {
    env: { ...process.env, NODE_OPTIONS: `--require ${path}` },
    read(stderr) {
      const line = /^probe (.*)$/m.exec(stderr);
      if (line === null) throw new Error(`no probe output: ${stderr}`);
      return JSON.parse(line[1] as string);
    },
  };
}
