// Proves client-node stays out of berth's start-up: only types are imported from it, and its one user is imported lazily.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The one module that may load client-node, and only through `import()`. */
const LAZY = 'src/adapters/kube/client-node-access.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each static import statement of `text` (possibly over several lines) that names `from`. */
function importsOf(text: string, from: string): string[] {
  const statements = text.match(/^import\s[^;]*?from\s+'[^']+';/gms) ?? [];
  return statements.filter((s) => s.endsWith(`'${from}';`) || s.includes(`/${from}';`));
}

const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'machines'))].map((path) => ({
  name: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

describe('client-node is loaded only when a kubeconfig needs it', () => {
  it('is imported for types only, outside its one lazy user', () => {
    const valueImports = files
      .filter((f) => f.name !== LAZY)
      .flatMap((f) =>
        importsOf(f.text, '@kubernetes/client-node')
          .filter((s) => !s.startsWith('import type '))
          .map((s) => `${f.name}: ${s.replace(/\s+/g, ' ')}`),
      );
    expect(valueImports).toEqual([]);
  });

  it('has its lazy user imported with import() and nowhere statically', () => {
    const statically = files.filter((f) => importsOf(f.text, 'client-node-access.ts').length > 0);
    expect(statically.map((f) => f.name)).toEqual([]);
    const lazily = files.filter((f) => f.text.includes("import('./client-node-access.ts')"));
    expect(lazily.map((f) => f.name)).toEqual(['src/adapters/kube/kubeconfig.ts']);
  });

  it('sees a value import when there is one (the check itself works)', () => {
    const text = "import {\n  type A,\n  KubeConfig,\n} from '@kubernetes/client-node';\n";
    expect(importsOf(text, '@kubernetes/client-node')).toHaveLength(1);
    expect(
      importsOf("import type { A } from '@kubernetes/client-node';", '@kubernetes/client-node')[0],
    ).toMatch(/^import type /);
  });
});
