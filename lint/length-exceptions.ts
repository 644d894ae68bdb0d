// Regenerates lint/exceptions.jsonc: every file that breaks a length or cycle rule today, listed so lint passes while they burn down.
// Run: npx tsx lint/length-exceptions.ts   (after a merge, or when a file is brought under the limits)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILE = join(ROOT, 'lint', 'exceptions.jsonc');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

/** The rules whose existing breaches are listed, with the group biome files them under. */
const RULES = [
  ['complexity', 'noExcessiveLinesPerFunction', 'functions over 80 lines'],
  ['style', 'noExcessiveLinesPerFile', 'files over 400 lines'],
  ['suspicious', 'noImportCycles', 'files in an import cycle'],
] as const;

interface Diagnostic {
  category: string;
  location: { path: string };
}

/** The files biome reports for each rule, with no exceptions in force. */
function breaches(): Map<string, string[]> {
  writeFileSync(FILE, '{ "overrides": [] }\n');
  // Not `--only`: it would enable the rules where biome.json turns them off (tests, generated code).
  const run = spawnSync(BIOME, ['lint', '--reporter=json', '--max-diagnostics=none', '.'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  const files = new Map<string, Set<string>>();
  for (const d of report.diagnostics) {
    const set = files.get(d.category) ?? new Set<string>();
    set.add(d.location.path);
    files.set(d.category, set);
  }
  return new Map([...files].map(([rule, set]) => [rule, [...set].sort()]));
}

/** The exceptions file: one override per rule turning it off for the listed files. */
function render(found: Map<string, string[]>): string {
  const blocks: string[] = [];
  for (const [group, rule, what] of RULES) {
    const files = found.get(`lint/${group}/${rule}`) ?? [];
    if (files.length === 0) continue;
    const includes = files.map((f) => `        ${JSON.stringify(f)}`).join(',\n');
    blocks.push(
      `    // ${what} (${files.length}): burn down\n` +
        `    {\n      "includes": [\n${includes}\n      ],\n` +
        `      "linter": { "rules": { "${group}": { "${rule}": "off" } } }\n    }`,
    );
  }
  return (
    '// Exceptions to the length and cycle rules of biome.json: burn down, never add by hand.\n' +
    '// Each list holds the files that broke a rule when it was enabled (issue 34). Fix a file,\n' +
    '// then regenerate: npx tsx lint/length-exceptions.ts (biome.json extends this file).\n' +
    `{\n  "overrides": [\n${blocks.join(',\n')}\n  ]\n}\n`
  );
}

writeFileSync(FILE, render(breaches()));
