// Proves biome.json's guard rails fail on planted breaches: an import cycle (type imports included), upward folder imports, over-long functions and files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Diagnostic, lint, plantTree, removeTree } from './biome-tree.ts';

const CYCLE = 'lint/suspicious/noImportCycles';
const FUNCTION_LENGTH = 'lint/complexity/noExcessiveLinesPerFunction';
const FILE_LENGTH = 'lint/style/noExcessiveLinesPerFile';

/** A function whose body has `lines` statements. */
const fn = (name: string, lines: number): string =>
  `export function ${name}(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(lines - 2)}  return n;\n}\n`;
/** A file of `lines` one-line declarations. */
const longFile = (lines: number): string =>
  Array.from({ length: lines }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';

/** Imports planted as `[file, specifier, breach?]`: the message a breach must carry, or null when allowed. */
const IMPORTS: [string, string, string | null][] = [
  ['src/events/up.ts', '../cluster/types.ts', 'src/events imports only src/model'],
  [
    'src/events/up-machines.ts',
    '../../machines/pod.machine.ts',
    'src/events imports only src/model',
  ],
  ['src/events/down.ts', '../model/keys.ts', null],
  ['src/model/up.ts', '../events/types.ts', 'src/model is the leaf'],
  ['machines/up.machine.ts', '../src/queue/backoff.ts', 'machines/ imports nothing from src/'],
  ['src/cluster/up.ts', '../framework/types.ts', 'src/cluster imports only'],
  ['src/cluster/down.ts', '../events/types.ts', null],
  ['src/framework/up.ts', '../plugins/registry.ts', 'src/framework imports nothing above it'],
  ['src/queue/up.ts', '../core/scheduler.ts', 'src/queue imports nothing above it'],
  ['src/queue/down.ts', '../../machines/backoff.ts', null],
  ['src/plugins/deep/up.ts', '../../core/config.ts', 'src/plugins imports nothing above it'],
  ['src/core/up.ts', '../config/read.ts', 'src/core imports nothing above it'],
  ['src/config/up.ts', '../adapters/version.ts', 'src/config imports nothing above it'],
  ['src/config/down.ts', '../core/config.ts', null],
  ['src/adapters/kube/up.ts', '../../runtime/live.ts', 'src/adapters never imports src/runtime'],
  ['src/adapters/up-cli.ts', '../cli/main.ts', 'src/adapters never imports src/runtime or src/cli'],
  ['src/runtime/up.ts', '../cli/main.ts', 'src/runtime never imports src/cli'],
  ['src/runtime/down.ts', '../adapters/version.ts', null],
  ['src/cli/down.ts', '../runtime/live.ts', null],
  ['src/events/up.test.ts', '../cluster/types.ts', null],
];

/** The same upward import written four ways: each form must be caught. */
const FORMS: [string, string][] = [
  ['import type', "import type { T } from '../cluster/types.ts';\nexport type U = T;\n"],
  ['export from', "export { podKey } from '../cluster/pod-info.ts';\n"],
  ['export * from', "export * from '../cluster/types.ts';\n"],
  ['dynamic import', "export const load = () => import('../cluster/types.ts');\n"],
];

describe('biome.json guard rails', () => {
  let dir = '';
  let diagnostics: Diagnostic[] = [];
  const files = new Map<string, string>();
  const rulesIn = (path: string) => diagnostics.filter((d) => d.file === path);

  files.set(
    'src/cluster/ring-a.ts',
    "import type { B } from './ring-b.ts';\nexport interface A { b?: B }\n",
  );
  files.set(
    'src/cluster/ring-b.ts',
    "import type { A } from './ring-a.ts';\nexport interface B { a?: A }\n",
  );
  files.set(
    'src/cluster/line-a.ts',
    "import type { B } from './line-b.ts';\nexport interface A { b?: B }\n",
  );
  files.set('src/cluster/line-b.ts', 'export interface B { n: number }\n');
  IMPORTS.forEach(([file, specifier]) => {
    files.set(file, `import { x } from '${specifier}';\nexport const y = x;\n`);
  });
  FORMS.forEach(([, code], i) => {
    files.set(`src/events/form-${i}.ts`, code);
  });
  files.set('src/core/long-function.ts', fn('long', 90));
  files.set('src/core/short-function.ts', fn('short', 70));
  files.set('src/core/long-function.test.ts', fn('long', 90));
  files.set('src/core/long-file.ts', longFile(420));
  files.set('src/core/short-file.ts', longFile(380));

  beforeAll(() => {
    dir = plantTree(files);
    diagnostics = lint(dir);
  });
  afterAll(() => removeTree(dir));

  it('reports both files of a cycle made only of type imports', () => {
    expect(rulesIn('src/cluster/ring-a.ts').map((d) => d.rule)).toContain(CYCLE);
    expect(rulesIn('src/cluster/ring-b.ts').map((d) => d.rule)).toContain(CYCLE);
  });

  it('leaves a one-way type import alone', () => {
    expect(rulesIn('src/cluster/line-a.ts')).toEqual([]);
  });

  it.each(IMPORTS)('%s importing %s: %s', (file, _specifier, says) => {
    const layers = rulesIn(file).filter((d) => d.message.includes('Layers:'));
    if (says === null) expect(layers).toEqual([]);
    else expect(layers.map((d) => d.message).join('\n')).toContain(says);
  });

  it('reports adapters importing the runtime with noRestrictedImports as well', () => {
    const rules = rulesIn('src/adapters/kube/up.ts').map((d) => d.rule);
    expect(rules).toContain('lint/style/noRestrictedImports');
  });

  it.each(FORMS.map(([name], i) => [name, i] as const))('catches an upward %s', (_name, i) => {
    const messages = rulesIn(`src/events/form-${i}.ts`).map((d) => d.message);
    expect(messages.join('\n')).toContain('src/events imports only src/model');
  });

  it('reports a function over 80 lines, not one under, and not in a test file', () => {
    expect(rulesIn('src/core/long-function.ts').map((d) => d.rule)).toContain(FUNCTION_LENGTH);
    expect(rulesIn('src/core/short-function.ts')).toEqual([]);
    expect(rulesIn('src/core/long-function.test.ts').map((d) => d.rule)).not.toContain(
      FUNCTION_LENGTH,
    );
  });

  it('reports a file over 400 lines, not one under', () => {
    expect(rulesIn('src/core/long-file.ts').map((d) => d.rule)).toContain(FILE_LENGTH);
    expect(rulesIn('src/core/short-file.ts')).toEqual([]);
  });
});
