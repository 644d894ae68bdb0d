// Proves biome.json keeps the core deterministic: each forbidden use is reported in core folders only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Diagnostic, lint, plantTree, removeTree } from './biome-tree.ts';

const CORE_FOLDERS = [
  'src/model',
  'src/events',
  'src/cluster',
  'src/framework',
  'src/plugins',
  'src/queue',
  'src/core',
  'machines',
];
const DETERMINISM_RULES = new Set([
  'lint/style/noRestrictedGlobals',
  'lint/style/noRestrictedImports',
  'plugin',
]);

/** One forbidden use: the code, the rule that must report it, a text its message must contain. */
interface Case {
  name: string;
  code: string;
  rule: 'lint/style/noRestrictedGlobals' | 'lint/style/noRestrictedImports' | 'plugin';
  says: string;
}

const denied = (name: string, code: string): Case => ({
  name: `global ${name}: ${code}`,
  code: `export const v = ${code};\n`,
  rule: 'lint/style/noRestrictedGlobals',
  says: `global variable ${name}`,
});
const imported = (module: string, code: string): Case => ({
  name: `import from ${module}`,
  code,
  rule: 'lint/style/noRestrictedImports',
  says: 'The core is deterministic',
});
const importing = (module: string, name: string): Case =>
  imported(module, `import { ${name} } from '${module}';\nexport const v = ${name};\n`);
const plugin = (name: string, code: string, says: string): Case => ({
  name,
  code,
  rule: 'plugin',
  says,
});

const CASES: Case[] = [
  denied('Date', 'Date.now()'),
  denied('Date', 'new Date()'),
  denied('Date', "Date.parse('2024-01-02T03:04:05Z')"),
  denied('setTimeout', 'setTimeout(() => {}, 1)'),
  denied('setInterval', 'setInterval(() => {}, 1)'),
  denied('setImmediate', 'setImmediate(() => {})'),
  denied('clearTimeout', 'clearTimeout(undefined)'),
  denied('clearInterval', 'clearInterval(undefined)'),
  denied('clearImmediate', 'clearImmediate(undefined)'),
  denied('queueMicrotask', 'queueMicrotask(() => {})'),
  denied('process', 'process.env.HOME'),
  denied('performance', 'performance.now()'),
  denied('fetch', "fetch('http://example.invalid')"),
  denied('require', "require('node:path')"),
  denied('globalThis', 'globalThis.Date'),
  denied('crypto', 'crypto.randomUUID()'),
  denied('WeakRef', 'new WeakRef({})'),
  denied('FinalizationRegistry', 'new FinalizationRegistry(() => {})'),
  denied('console', "console.log('x')"),
  denied('Intl', 'new Intl.DateTimeFormat()'),
  importing('node:fs', 'readFileSync'),
  importing('fs', 'readFileSync'),
  importing('node:fs/promises', 'readFile'),
  importing('node:net', 'connect'),
  importing('node:http', 'request'),
  importing('node:https', 'request'),
  importing('node:child_process', 'spawn'),
  importing('node:os', 'hostname'),
  importing('node:timers', 'setTimeout'),
  importing('node:timers/promises', 'setTimeout'),
  importing('node:perf_hooks', 'performance'),
  importing('node:worker_threads', 'Worker'),
  importing('node:dgram', 'createSocket'),
  importing('node:dns', 'lookup'),
  importing('node:process', 'env'),
  importing('node:readline', 'createInterface'),
  importing('@kubernetes/client-node', 'KubeConfig'),
  imported('pino', "import pino from 'pino';\nexport const v = pino;\n"),
  importing('node:crypto', 'randomUUID'),
  imported('node:crypto (namespace)', "import * as c from 'node:crypto';\nexport const v = c;\n"),
  imported('node:fs (dynamic)', "export const v = import('node:fs');\n"),
  importing('../adapters/kube/bind.ts', 'bind'),
  importing('../runtime/virtual-clock.ts', 'clock'),
  importing('../cli/args.ts', 'args'),
  plugin('Math.random()', 'export const v = Math.random();\n', 'Math.random'),
  plugin("Math['random']", "export const v = Math['random'];\n", 'Math.random'),
  plugin(
    'Math.random destructured',
    'const { random } = Math;\nexport const v = random;\n',
    'Math.random',
  ),
  plugin('localeCompare', "export const v = 'a'.localeCompare('b');\n", 'locale'),
  plugin('toLocaleString', 'export const v = (1).toLocaleString();\n', 'locale'),
];

/** Code the core may contain: none of it may be reported by the determinism rules. */
const ALLOWED = `import { createHash, type Hash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
export const hash: Hash = createHash('sha256');
export const toPath = fileURLToPath;
export function f(process: number, performance: number): number {
  return process + performance;
}
export const m = Math.max(1, 2) + Math.floor(1.5) + Math.imul(3, 4);
export const o = { Date: 1, process: 2, random: 3 };
export const sorted = ['b', 'a'].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
`;

describe('biome.json forbids nondeterminism in the core folders', () => {
  let dir = '';
  let diagnostics: Diagnostic[] = [];
  const files = new Map<string, string>();
  const put = (path: string, code: string) => files.set(path, code);
  const reportedIn = (path: string) =>
    diagnostics.filter(
      // The layers plugin (test/lint/layers.test.ts) reports under `plugin` too.
      (d) => d.file === path && DETERMINISM_RULES.has(d.rule) && !d.message.includes('Layers:'),
    );

  CASES.forEach((c, i) => {
    put(`src/core/case-${i}.ts`, c.code);
    put(`src/runtime/case-${i}.ts`, c.code);
  });
  for (const folder of CORE_FOLDERS) {
    put(`${folder}/clock.ts`, 'export const v = Date.now();\n');
    put(`${folder}/nested/deep/clock.ts`, 'export const v = Date.now();\n');
    put(`${folder}/clock.test.ts`, 'export const v = Date.now() + Math.random();\n');
    put(`${folder}/clock.prop.test.ts`, 'export const v = Date.now() + Math.random();\n');
    put(`${folder}/allowed.ts`, ALLOWED);
  }
  for (const folder of ['src/runtime', 'src/adapters', 'src/cli', 'test', 'bench']) {
    put(`${folder}/clock.ts`, 'export const v = Date.now() + Math.random();\n');
  }

  beforeAll(() => {
    // A copy of the repo's own lint configuration, in a tree laid out like the repo.
    dir = plantTree(files);
    diagnostics = lint(dir);
  });
  afterAll(() => {
    removeTree(dir);
  });

  it.each(CASES.map((c, i) => [c.name, i, c] as const))('reports %s in src/core', (_name, i, c) => {
    const found = reportedIn(`src/core/case-${i}.ts`);
    expect(found.map((d) => d.rule)).toContain(c.rule);
    expect(found.find((d) => d.rule === c.rule)?.message).toContain(c.says);
  });

  it.each(CASES.map((c, i) => [c.name, i] as const))('allows %s in src/runtime', (_name, i) => {
    expect(reportedIn(`src/runtime/case-${i}.ts`)).toEqual([]);
  });

  it.each(CORE_FOLDERS)('covers every file under %s, however deep', (folder) => {
    expect(reportedIn(`${folder}/clock.ts`)).not.toEqual([]);
    expect(reportedIn(`${folder}/nested/deep/clock.ts`)).not.toEqual([]);
  });

  it.each(CORE_FOLDERS)('exempts tests beside the code in %s', (folder) => {
    expect(reportedIn(`${folder}/clock.test.ts`)).toEqual([]);
    expect(reportedIn(`${folder}/clock.prop.test.ts`)).toEqual([]);
  });

  it.each(CORE_FOLDERS)('allows digests, pure Math and shadowing names in %s', (folder) => {
    expect(reportedIn(`${folder}/allowed.ts`)).toEqual([]);
  });

  it.each(['src/runtime', 'src/adapters', 'src/cli', 'test', 'bench'])(
    'leaves %s alone',
    (folder) => {
      expect(reportedIn(`${folder}/clock.ts`)).toEqual([]);
    },
  );
});
