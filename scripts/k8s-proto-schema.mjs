// Writes src/adapters/kube/protobuf/schema.generated.ts: the protobuf fields of Pod and Node (and all they reach), read from Kubernetes' own generated.proto and types.go.
//
// Usage: node scripts/k8s-proto-schema.mjs [K8S_MODULES_DIR]
// K8S_MODULES_DIR holds api@vX and apimachinery@vX (default: $(go env GOMODCACHE)/k8s.io).
// The versions are those of the control plane berth is tested against (KUBE_VERSION below).

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KUBE_VERSION = 'v0.37.2';
const modules =
  process.argv[2] ??
  join(execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim(), 'k8s.io');

/** Package directories read, each with the short prefix its messages get in the table. */
const packages = [
  { prefix: 'core', proto: 'k8s.io.api.core.v1', dir: `api@${KUBE_VERSION}/core/v1` },
  {
    prefix: 'meta',
    proto: 'k8s.io.apimachinery.pkg.apis.meta.v1',
    dir: `apimachinery@${KUBE_VERSION}/pkg/apis/meta/v1`,
  },
];

/** Messages whose JSON form is not their fields; the decoder converts them by name. */
const special = {
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'FieldsV1',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'Duration',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
};

const scalars = new Set([
  'string',
  'int32',
  'int64',
  'bool',
  'double',
  'float',
  'bytes',
  'uint32',
  'uint64',
]);

/** Parses `message X { ... }` blocks of a generated.proto into {name: [{label, type, name, number}]}. */
function parseProto(text, pkg) {
  const out = {};
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const open = /^message (\w+) \{$/.exec(line);
    if (open) {
      current = [];
      out[`${pkg}.${open[1]}`] = current;
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (current === undefined) continue;
    const map = /^map<(\w+), ?([\w.]+)> (\w+) = (\d+);$/.exec(line);
    if (map) {
      current.push({
        label: 'map',
        key: map[1],
        type: map[2],
        name: map[3],
        number: Number(map[4]),
      });
      continue;
    }
    const field = /^(optional|repeated|required) ([\w.]+) (\w+) = (\d+);$/.exec(line);
    if (field)
      current.push({ label: field[1], type: field[2], name: field[3], number: Number(field[4]) });
  }
  return out;
}

/** Reads the Go structs of a package: {Struct: {protoNumber: {json, omitEmpty, pointer, inline}}}. */
function parseGo(dir) {
  const out = {};
  for (const file of readdirSync(dir)) {
    if (
      !file.endsWith('.go') ||
      file.endsWith('_test.go') ||
      file.startsWith('zz_') ||
      file === 'generated.pb.go'
    )
      continue;
    let current;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const open = /^type (\w+) struct \{/.exec(line);
      if (open) {
        current = {};
        out[open[1]] = current;
        continue;
      }
      if (/^\}/.test(line)) {
        current = undefined;
        continue;
      }
      if (current === undefined) continue;
      const field = /^\s+([\w.*]+)(?:\s+([^\s`]+))?\s+`([^`]*)`/.exec(line);
      if (!field) continue;
      const tag = field[3];
      const json = /json:"([^"]*)"/.exec(tag)?.[1];
      const proto = /protobuf:"\w+,(\d+),/.exec(tag)?.[1];
      if (json === undefined || proto === undefined) continue;
      const [jsonName, ...opts] = json.split(',');
      const goType = field[2] ?? field[1];
      current[proto] = {
        json: jsonName,
        omitEmpty: opts.includes('omitempty'),
        omitZero: opts.includes('omitzero'),
        // An embedded struct is inlined: tagged `json:",inline"` up to 1.34, `json:""` since.
        inline: opts.includes('inline') || (field[2] === undefined && jsonName === ''),
        pointer: goType.startsWith('*'),
      };
    }
  }
  return out;
}

const protoMessages = {};
const goStructs = {};
for (const p of packages) {
  const dir = join(modules, p.dir);
  Object.assign(
    protoMessages,
    parseProto(readFileSync(join(dir, 'generated.proto'), 'utf8'), p.proto),
  );
  goStructs[p.proto] = parseGo(dir);
}

function qualify(type, pkg) {
  if (scalars.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return `${pkg}.${type}`;
}

function short(name) {
  if (special[name] !== undefined) return `@${special[name]}`;
  for (const p of packages)
    if (name.startsWith(`${p.proto}.`)) return `${p.prefix}.${name.slice(p.proto.length + 1)}`;
  throw new Error(`no package for ${name}`);
}

/** Field flags in the table: a repeated field, a zero value JSON leaves out, an inlined struct. */
const REPEATED = 1;
const OMIT_ZERO = 2;
const INLINE = 4;

const table = {};
const queue = ['k8s.io.api.core.v1.Pod', 'k8s.io.api.core.v1.Node'];
while (queue.length > 0) {
  const name = queue.shift();
  const key = short(name);
  if (key.startsWith('@') || table[key] !== undefined) continue;
  const fields = protoMessages[name];
  if (fields === undefined) throw new Error(`message ${name} not found`);
  const pkg = name.slice(0, name.lastIndexOf('.'));
  const goName = name.slice(pkg.length + 1);
  const go = goStructs[pkg]?.[goName];
  if (go === undefined) throw new Error(`no Go struct for ${name}`);
  table[key] = fields.map((f) => {
    const g = go[f.number];
    if (g === undefined) throw new Error(`${name}.${f.name} (${f.number}) has no Go field`);
    const type = qualify(f.type, pkg);
    if (!scalars.has(type)) queue.push(type);
    const typeKey = scalars.has(type) ? type : short(type);
    let flags = 0;
    if (f.label === 'repeated') flags |= REPEATED;
    // JSON leaves out a zero scalar under omitempty or omitzero. A zero Time (an empty
    // message in protobuf) is left out only under omitzero; omitempty writes it as null.
    const omits = scalars.has(type)
      ? g.omitEmpty || g.omitZero
      : special[type] === 'Time' && g.omitZero;
    if (omits && f.label === 'optional' && !g.pointer) flags |= OMIT_ZERO;
    if (g.inline) flags |= INLINE;
    const typeText =
      f.label === 'map' ? `map:${f.key}:${scalars.has(type) ? type : short(type)}` : typeKey;
    return [f.number, g.inline ? f.name : g.json, typeText, flags];
  });
}

const lines = [
  `// Generated by scripts/k8s-proto-schema.mjs from k8s.io/api and k8s.io/apimachinery ${KUBE_VERSION}: the protobuf fields of Pod and Node and every message they reach. Do not edit.`,
  '',
  "import type { ProtoSchema } from './schema.ts';",
  '',
  '/** Message → its fields as [number, JSON name, type, flags (1 repeated, 2 zero left out, 4 inline)]. */',
  'export const k8sSchema: ProtoSchema = {',
];
for (const key of Object.keys(table).sort()) {
  lines.push(`  '${key}': [`);
  for (const [n, json, type, flags] of table[key])
    lines.push(`    [${n}, '${json}', '${type}', ${flags}],`);
  lines.push('  ],');
}
lines.push('};', '');
const target = new URL('../src/adapters/kube/protobuf/schema.generated.ts', import.meta.url);
writeFileSync(target, lines.join('\n'));
console.log(`wrote ${Object.keys(table).length} messages to ${target.pathname}`);
