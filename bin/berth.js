#!/usr/bin/env -S node --v8-pool-size=1
// Entry point of the `berth` command: runs the CommonJS bundle dist/berth.cjs, compiled from its V8 code cache when it can.
//
// Node 20 has no code cache for ES modules, so the bundle is CommonJS, compiled here by vm.Script
// with dist/berth.cjs.cache (scripts/code-cache.js makes it at build time) as cachedData: V8
// deserializes the functions instead of parsing and compiling 4 MB of JavaScript. A cache that is
// missing, unreadable, corrupt, made for another bundle, or refused by V8 (another Node, other V8
// flags) is not used: the bundle compiles as it would without. Nothing is written at run time.
//   BERTH_DEBUG_CODE_CACHE=1  one line on stderr: `code cache: accepted|rejected: why|absent|unused`
//   BERTH_WRITE_CODE_CACHE=F  on exit, write to F what a valid cache held plus what this run compiled
//
// The #! line gives node `--v8-pool-size=1`: one V8 worker thread for concurrent marking,
// sweeping and optimising compiles instead of four. Each worker keeps its own malloc arena and
// stack, and a scheduler's one busy thread has work for one helper: on 500 kwok nodes at 40
// pods/s peak RSS went 81 → 75 MiB, and 500 × 3,000 pods ran 743 · 701 → 768 · 755 pods/s.
// Node takes the flag only at start; `node bin/berth.js` without it runs with node's four.
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { constants, Script } from 'node:vm';
import { crc32 } from 'node:zlib';

const started = performance.now();

// V8 doubles the young generation's semi-spaces (1 MiB each at start) whenever a scavenge finds
// them full, and never shrinks them again: loading the bundle and the first lists left them
// at 4 MiB. Growth is held off from here, before the bundle compiles: V8 checks a code cache
// against the flags in force, and the cache is made through this same file. `berth run` sets
// its own factor (`--young-growth-factor`), `simulate` and `replay` give V8's back.
const heldYoungGeneration = '--semi-space-growth-factor=1';
setFlagsFromString(heldYoungGeneration);
const bundlePath = fileURLToPath(new URL('../dist/berth.cjs', import.meta.url));
const writeTo = process.env.BERTH_WRITE_CODE_CACHE || undefined;
const debug = Boolean(process.env.BERTH_DEBUG_CODE_CACHE);

/** A cache file: this magic, the bundle's length and CRC-32, the V8 data's CRC-32, the V8 data. */
const magic = 'berthcc1';
const headerLength = 20;

/** The V8 data of a cache file if it is intact and made for this very bundle, else why not. */
function checkCache(file, bundle) {
  if (file.length < headerLength || file.toString('latin1', 0, 8) !== magic)
    return { why: 'not a berth code cache' };
  // V8 itself checks only the source's length, and crashes on corrupt data.
  const data = file.subarray(headerLength);
  if (file.readUInt32LE(16) !== crc32(data)) return { why: 'corrupt or truncated' };
  if (file.readUInt32LE(8) !== bundle.length || file.readUInt32LE(12) !== crc32(bundle))
    return { why: 'made for another build of the bundle' };
  return { data };
}

/** Writes the cache through a temporary file, so that no reader ever sees half of it. */
function writeCache(path, bundle, data) {
  const header = Buffer.alloc(headerLength);
  header.write(magic, 0, 'latin1');
  header.writeUInt32LE(bundle.length, 8);
  header.writeUInt32LE(crc32(bundle), 12);
  header.writeUInt32LE(crc32(data), 16);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, data]));
  renameSync(temporary, path);
}

/** The file's bytes; undefined if it is missing or unreadable. */
function readIfThere(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The debug line: what became of the cache, and when the bundle's top level was done. */
function report(status) {
  const ms = (t) => `${t.toFixed(1)} ms`;
  const now = performance.now();
  process.stderr.write(
    `code cache: ${status} (top level done ${ms(now - started)} after bin/berth.js started, ` +
      `${ms(now)} after the process started)\n`,
  );
}

/** Compiles the bundle, from the cache if it is valid, and runs it as a CommonJS module. */
function runBundle() {
  const bundle = readFileSync(bundlePath);
  const file = readIfThere(`${bundlePath}.cache`);
  const checked = file === undefined ? {} : checkCache(file, bundle);
  // ASCII decodes several times faster as Latin-1 than as UTF-8.
  const source = isAscii(bundle) ? bundle.toString('latin1') : bundle.toString('utf8');
  // The wrapper has a line to itself, so that stack traces give the file's own line numbers.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
  const script = new Script(wrapper, {
    filename: bundlePath,
    lineOffset: -1,
    cachedData: checked.data,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const dir = dirname(bundlePath);
  const module = { exports: {}, id: bundlePath, filename: bundlePath, path: dir, loaded: false };
  try {
    const run = script.runInThisContext();
    run.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, dir);
    module.loaded = true;
  } finally {
    if (debug) {
      if (file === undefined) report('absent');
      else if (checked.data === undefined) report(`rejected: ${checked.why}`);
      else if (script.cachedDataRejected) report('rejected: by V8 (another Node, other V8 flags)');
      else report('accepted');
    }
  }
  if (writeTo !== undefined)
    process.on('exit', () => {
      // The cache records the V8 flags in force when it is made: those the bundle compiles
      // under, not a command's own (simulate's young generation), or the next run refuses it.
      setFlagsFromString(heldYoungGeneration);
      writeCache(resolve(writeTo), bundle, script.createCachedData());
    });
}

if (process.sourceMapsEnabled && writeTo === undefined) {
  // vm.Script takes no source map in Node 20: Node's CommonJS loader maps the stack traces.
  createRequire(import.meta.url)(bundlePath);
  if (debug) report('unused (source maps are enabled)');
} else {
  runBundle();
}
