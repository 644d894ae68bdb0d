// Runs the repo's own biome configuration over planted files in a temporary tree laid out like the repo.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

/** One diagnostic: the rule (or `plugin`), the file relative to the tree, the message. */
export interface Diagnostic {
  rule: string;
  file: string;
  message: string;
}

/** Runs biome's linter over `dir` and returns every diagnostic, with paths relative to `dir`. */
export function lint(dir: string): Diagnostic[] {
  const run = spawnSync(
    BIOME,
    ['lint', '--vcs-enabled=false', '--reporter=github', '--max-diagnostics=none', '.'],
    { cwd: dir, encoding: 'utf8' },
  );
  if (run.error) throw run.error;
  const out: Diagnostic[] = [];
  for (const line of run.stdout.split('\n')) {
    const m = /^::\w+ title=([^,]*),file=([^,]*),.*?::(.*)$/.exec(line);
    if (m) out.push({ rule: m[1]!, file: relative(dir, m[2]!), message: m[3]! });
  }
  if (out.length === 0) throw new Error(`biome reported nothing:\n${run.stdout}\n${run.stderr}`);
  return out;
}

/** A temporary tree with biome.json and lint/ copied from the repo and `files` written in it. */
export function plantTree(files: ReadonlyMap<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'berth-lint-'));
  cpSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
  cpSync(join(ROOT, 'lint'), join(dir, 'lint'), { recursive: true });
  for (const [path, code] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), code);
  }
  return dir;
}

/** Removes a tree made by `plantTree` (no-op for ''). */
export function removeTree(dir: string): void {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
}
