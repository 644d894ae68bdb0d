// berth's version (read from its own package.json), written into every log header and User-Agent.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads the version from berth's own package.json, found by walking up from this module:
 * it sits two levels up in a checkout (src/adapters), three in the compiled tree
 * (dist/src/adapters) and one in the bundle (dist/berth.cjs, where esbuild makes `import.meta.url`
 * the bundle's own URL).
 */
function readOwnVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    dir = dirname(dir);
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'berth' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Not here (or unreadable): keep walking up.
    }
  }
  return '0.0.0-unknown';
}

/** The package version of this berth. */
export const berthVersion: string = readOwnVersion();
