// Bad input through the real command: exit code, one `berth: ` line naming the input, no trace.
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/berth.js');
const work = mkdtempSync(join(tmpdir(), 'berth-bad-input-'));
const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;

/** Runs the built command in the work directory; never rejects. */
function berth(
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: work, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `script` in sh with $BERTH set; berth's own exit status is written to ./status. */
function shell(script: string) {
  rmSync(join(work, 'status'), { force: true });
  const r = spawnSync('sh', ['-c', script], {
    encoding: 'utf8',
    cwd: work,
    env: { ...process.env, BERTH: `"${process.execPath}" "${bin}"` },
  });
  const status = Number(readFileSync(join(work, 'status'), 'utf8').trim());
  return { shellCode: r.status, status, stdout: r.stdout, stderr: r.stderr };
}

/** The contract for every bad input: code, one line starting `berth: `, the input named. */
function expectOneLineError(
  r: Awaited<ReturnType<typeof berth>>,
  codes: number | readonly number[],
  says: readonly RegExp[],
) {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.stderr).toMatch(/^berth: [^\n]*\n$/);
  for (const pattern of says) expect(r.stderr).toMatch(pattern);
  expect([codes].flat()).toContain(r.code);
}

// --- fixtures -------------------------------------------------------------------------
const node = (name: string) =>
  `kind: Node\nmetadata: {name: ${name}}\nstatus: {allocatable: {cpu: "2", memory: 2Gi, pods: "10"}}\n`;
const pod = (name: string, spec = '{schedulerName: berth, containers: [{name: c}]}') =>
  `kind: Pod\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
const aliasBomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  .concat(
    'bcdefghi'
      .split('')
      .map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  )
  .join('\n');

function writeFixtures() {
  const files: Record<string, string | Buffer> = {
    'good.yaml': `${node('n1')}---\n${pod('p')}`,
    'empty.yaml': '',
    'comments.yaml': '# nothing here\n---\n# nor here\n',
    'invalid.yaml': 'kind: Pod\nmetadata: {name: [\n',
    'junk.bin': Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919 + 13) % 256)),
    'latin1.yaml': Buffer.from('kind: Pod\nmetadata: {name: caf\xe9}\n', 'latin1'),
    'bomb.yaml': `${aliasBomb}\n`,
    'deep.json': `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
    'deep.yaml': `x: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`,
    'dup.yaml': `${node('n1')}---\n${pod('p')}---\n${pod('p')}`,
    'nocontainers.yaml': `${node('n1')}---\n${pod('p', '{schedulerName: berth, containers: []}')}`,
    'nullcontainers.yaml': `${node('n1')}---\n${pod('p', '{schedulerName: berth, containers: null}')}`,
    'missingcontainers.yaml': `${node('n1')}---\n${pod('p', '{schedulerName: berth}')}`,
    'scalar.yaml': 'just a string\n',
    'badkey.yaml': 'schedulerName: berth\nfrobnicate: 3\n',
    'empty.jsonl': '',
    'not-a-log.json': '{"name": "not a log"}\n',
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(join(work, name), content);
  mkdirSync(join(work, 'adir'));
  writeFileSync(join(work, 'unreadable.yaml'), pod('p'));
  chmodSync(join(work, 'unreadable.yaml'), 0o000);
}

/** Writes `name` as the recorded log with `edit` applied to its lines (line 1 is the header). */
function tamper(name: string, edit: (lines: string[]) => void) {
  const lines = readFileSync(join(work, 'good.jsonl'), 'utf8').trimEnd().split('\n');
  edit(lines);
  writeFileSync(join(work, name), `${lines.join('\n')}\n`);
}

/** Index of the first line (0-based, header is 0) whose text matches `pattern`. */
function lineOf(lines: string[], pattern: RegExp, from = 1): number {
  const i = lines.findIndex((line, n) => n >= from && pattern.test(line));
  if (i < 0) throw new Error(`no line matches ${pattern}`);
  return i;
}

function writeTamperedLogs() {
  tamper('deleted-bind.jsonl', (l) => l.splice(lineOf(l, /"BindSucceeded"/), 1));
  tamper('bind-flipped.jsonl', (l) => {
    const i = lineOf(l, /"BindSucceeded"/);
    l[i] = (l[i] as string).replace(
      /"BindSucceeded"(.*)\}\}$/,
      '"BindFailed"$1,"reason":"Error","message":"edited"}}',
    );
  });
  tamper('seq-jump.jsonl', (l) => {
    for (let i = 40; i < l.length - 1; i++)
      l[i] = (l[i] as string).replace(/^\{"seq":(\d+)/, (_, n) => `{"seq":${Number(n) + 5}`);
  });
  tamper('seq-swapped.jsonl', (l) => {
    const i = lineOf(l, /"PodUpserted"/);
    [l[i], l[i + 1]] = [l[i + 1] as string, l[i] as string];
  });
  tamper('time-backwards.jsonl', (l) => {
    const i = lineOf(l, /"time":[1-9]\d{3,}/);
    l[i] = (l[i] as string).replace(/"time":\d+/, '"time":1');
  });
  tamper('pod-null.jsonl', (l) => {
    const i = lineOf(l, /"PodUpserted"/);
    l[i] = (l[i] as string).replace(/"pod":\{.*\}\}$/, '"pod":null}}');
  });
  tamper('no-key.jsonl', (l) => {
    const i = lineOf(l, /"BindSucceeded"/);
    l[i] = (l[i] as string).replace(/"key":"[^"]+",/, '');
  });
  tamper('unrequested-bind.jsonl', (l) => {
    const i = lineOf(l, /"BindSucceeded"/);
    l[i] = (l[i] as string).replace(/"attempt":\d+/, '"attempt":97');
  });
  tamper('digest-count.jsonl', (l) => {
    const last = l.length - 1;
    l[last] = (l[last] as string).replace(/"decisions":(\d+)/, (_, n) => `"decisions":${n - 1}`);
  });
  tamper('edited-decision.jsonl', (l) => {
    const i = lineOf(l, /"PodReserved"/);
    l[i] = (l[i] as string).replace(/"node":"[^"]+"/, '"node":"node-x"');
  });
  tamper('header-config.jsonl', (l) => {
    l[0] = (l[0] as string).replace(
      /"percentageOfNodesToScore":\d+/,
      '"percentageOfNodesToScore":"lots"',
    );
  });
  tamper('header-config-null.jsonl', (l) => {
    l[0] = (l[0] as string).replace(/"config":\{.*\}\}$/, '"config":null}');
  });
  tamper('bad-json-line.jsonl', (l) => {
    l[5] = '{"seq": oops';
  });
}

beforeAll(async () => {
  writeFixtures();
  for (const [log, pods] of [
    ['good.jsonl', '20'],
    ['big.jsonl', '3000'],
  ] as const) {
    const rec = await berth(
      'simulate',
      ...['--nodes', '10', '--pods', pods, '--seed', '2', '--bind-failure-rate', '0.3'],
      ...['--record', log, '--json'],
    );
    expect(rec.code).toBe(0);
  }
  writeTamperedLogs();
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

// --- flags ----------------------------------------------------------------------------
type Row = [name: string, args: string[], code: number | number[], says: RegExp[]];

const range = (flag: string, value: string) =>
  new RegExp(`--${flag} must be an? (integer|number) from [\\d.]+ to [\\d.]+, got "${value}"`);

/** Negative, not-a-number and huge values for each numeric flag; each names the flag. */
function numericRows(command: string, flags: string[], huge: string, extra: string[] = []): Row[] {
  return flags.flatMap((flag) =>
    ['-1', 'NaN', huge].map(
      (value): Row => [
        `${command} --${flag} ${value}`,
        [command, `--${flag}`, value, ...(flag === 'nodes' || flag === 'pods' ? extra : [])],
        2,
        [range(flag, value)],
      ],
    ),
  );
}

const flagRows: Row[] = [
  ...numericRows('simulate', ['nodes'], '99999999999', ['--pods', '3']),
  ...numericRows('simulate', ['pods'], '99999999999', ['--nodes', '3']),
  ...numericRows(
    'simulate',
    ['seed', 'bind-latency-ms', 'bind-failure-rate'],
    '99999999999999999999',
  ),
  ...numericRows(
    'run',
    ['qps', 'burst', 'events-qps', 'events-burst', 'seed', 'heap-growth-percent'],
    '1e400',
  ),
  [
    'simulate --bind-failure-rate -0.1',
    ['simulate', '--bind-failure-rate', '-0.1'],
    2,
    [range('bind-failure-rate', '-0.1')],
  ],
  [
    'simulate --bind-failure-rate 1.5',
    ['simulate', '--bind-failure-rate', '1.5'],
    2,
    [range('bind-failure-rate', '1.5')],
  ],
  [
    'simulate --nodes=-1 (attached)',
    ['simulate', '--nodes=-1', '--pods', '3'],
    2,
    [range('nodes', '-1')],
  ],
  [
    'simulate --nodes= (empty value)',
    ['simulate', '--nodes=', '--pods', '3'],
    2,
    [range('nodes', '')],
  ],
  [
    'simulate --nodes 2.5',
    ['simulate', '--nodes', '2.5', '--pods', '3'],
    2,
    [range('nodes', '2.5')],
  ],
  [
    'simulate --seed -Infinity',
    ['simulate', '--seed', '-Infinity'],
    2,
    [range('seed', '-Infinity')],
  ],
  [
    'simulate --horizon -5m',
    ['simulate', '--horizon', '-5m'],
    2,
    [/--horizon must be a duration .*got "-5m"/],
  ],
  ['simulate --horizon NaN', ['simulate', '--horizon', 'NaN'], 2, [/--horizon .*got "NaN"/]],
  [
    'simulate --horizon 0s',
    ['simulate', '--horizon', '0s'],
    2,
    [/--horizon must be from .*got "0s"/],
  ],
  [
    'simulate --horizon 99999h',
    ['simulate', '--horizon', '99999h'],
    2,
    [/--horizon must be from .*got "99999h"/],
  ],
  ['run --qps -0.5', ['run', '--qps', '-0.5'], 2, [range('qps', '-0.5')]],
  [
    'run --heap-growth-percent -5',
    ['run', '--heap-growth-percent', '-5'],
    2,
    [range('heap-growth-percent', '-5')],
  ],
  [
    'run --leader-elect-lease-duration -5s',
    ['run', '--leader-elect-lease-duration', '-5s'],
    2,
    [/--leader-elect-lease-duration must be a duration .*got "-5s"/],
  ],
  ['run --log-level loud', ['run', '--log-level', 'loud'], 2, [/--log-level must be one of/]],
  [
    'simulate --nodes without --pods',
    ['simulate', '--nodes', '3'],
    2,
    [/--nodes and --pods go together/],
  ],
  ['simulate --frob', ['simulate', '--frob'], 2, [/--frob/, /berth simulate --help/]],
  ['simulate -x', ['simulate', '-x'], 2, [/'-x'/]],
  ['run --frob', ['run', '--frob'], 2, [/--frob/, /berth run --help/]],
  ['replay LOG --frob', ['replay', 'good.jsonl', '--frob'], 2, [/--frob/, /berth replay --help/]],
  ['export-machines --frob', ['export-machines', '--frob'], 2, [/--frob/]],
  ['an unknown command', ['frobnicate'], 2, [/unknown command "frobnicate"/]],
  ['help for an unknown command', ['help', 'frobnicate'], 2, [/unknown command "frobnicate"/]],
  ['simulate --cluster with no value', ['simulate', '--cluster'], 2, [/--cluster needs a value/]],
  ['simulate --record with no value', ['simulate', '--record'], 2, [/--record needs a value/]],
  ['run --kubeconfig with no value', ['run', '--kubeconfig'], 2, [/--kubeconfig needs a value/]],
  [
    'simulate --seed followed by a flag',
    ['simulate', '--seed', '--json'],
    2,
    [/--seed needs a value, got the flag --json/],
  ],
  [
    'simulate --cluster -x.yaml (dash value)',
    ['simulate', '--cluster', '-x.yaml'],
    2,
    [/--cluster needs a value, got "-x.yaml"/, /--cluster=-x.yaml/],
  ],
  ['simulate --json=yes', ['simulate', '--json=yes'], 2, [/--json takes no value/]],
  ['simulate with a stray argument', ['simulate', 'extra'], 2, [/unexpected argument "extra"/]],
  [
    'replay with two logs',
    ['replay', 'good.jsonl', 'other.jsonl'],
    2,
    [/unexpected argument "other.jsonl"/],
  ],
  ['replay without a log', ['replay', '--json'], 2, [/replay needs a LOG file/]],
];

describe('berth rejects bad flags with one line naming the flag', () => {
  it.concurrent.each(flagRows)('%s', async (_name, args, code, says) => {
    expectOneLineError(await berth(...args), code, says);
  });
});

// --- files ----------------------------------------------------------------------------
const fileRows: Row[] = [
  [
    '--cluster that does not exist',
    ['simulate', '--cluster', 'missing.yaml'],
    1,
    [/missing\.yaml: ENOENT/],
  ],
  ['--cluster that is a directory', ['simulate', '--cluster', 'adir'], 1, [/adir: EISDIR/]],
  [
    'a second --cluster that does not exist',
    ['simulate', '--cluster', 'good.yaml', '--cluster', 'missing.yaml'],
    1,
    [/missing\.yaml: ENOENT/],
  ],
  [
    '--cluster of binary junk',
    ['simulate', '--cluster', 'junk.bin'],
    1,
    [/junk\.bin is not a text file/],
  ],
  [
    '--cluster not in UTF-8',
    ['simulate', '--cluster', 'latin1.yaml'],
    1,
    [/latin1\.yaml is not UTF-8/],
  ],
  [
    '--cluster with invalid YAML',
    ['simulate', '--cluster', 'invalid.yaml'],
    1,
    [/invalid\.yaml/, /invalid YAML/],
  ],
  [
    '--cluster holding a bare string',
    ['simulate', '--cluster', 'scalar.yaml'],
    1,
    [/scalar\.yaml/],
  ],
  [
    '--cluster with a YAML alias bomb',
    ['simulate', '--cluster', 'bomb.yaml'],
    1,
    [/bomb\.yaml/, /alias/i],
  ],
  [
    '--cluster with a 200k-deep JSON array',
    ['simulate', '--cluster', 'deep.json'],
    1,
    [/deep\.json/, /deep|nest/i],
  ],
  [
    '--cluster with a 200k-deep YAML sequence',
    ['simulate', '--cluster', 'deep.yaml'],
    1,
    [/deep\.yaml/, /deep|nest/i],
  ],
  [
    '--cluster with a duplicate pod name',
    ['simulate', '--cluster', 'dup.yaml', '--json'],
    [0, 1],
    [/dup\.yaml/, /duplicate|more than once|twice/i, /default\/p\b|"p"/],
  ],
  [
    'an empty --cluster file',
    ['simulate', '--cluster', 'empty.yaml', '--json'],
    [0, 1],
    [/empty\.yaml/, /empty|no (Kubernetes )?(objects|nodes|pods)/i],
  ],
  [
    'a --cluster file of comments only',
    ['simulate', '--cluster', 'comments.yaml', '--json'],
    [0, 1],
    [/comments\.yaml/, /empty|no (Kubernetes )?(objects|nodes|pods)/i],
  ],
  [
    '--record into a directory',
    ['simulate', '--nodes', '1', '--pods', '1', '--record', 'adir'],
    1,
    [/adir/, /EISDIR/],
  ],
  [
    '--record under a missing directory',
    ['simulate', '--nodes', '1', '--pods', '1', '--record', 'nodir/x.jsonl'],
    1,
    [/nodir\/x\.jsonl/, /ENOENT/],
  ],
  [
    'run --config that does not exist',
    ['run', '--config', 'missing.yaml'],
    1,
    [/config missing\.yaml: ENOENT/],
  ],
  ['run --config that is a directory', ['run', '--config', 'adir'], 1, [/config adir: EISDIR/]],
  [
    'run --config of invalid YAML',
    ['run', '--config', 'invalid.yaml'],
    1,
    [/config invalid\.yaml is not valid YAML/],
  ],
  [
    'run --config with an unknown key',
    ['run', '--config', 'badkey.yaml'],
    1,
    [/unknown key "frobnicate"/],
  ],
  [
    'run --kubeconfig that does not exist',
    ['run', '--kubeconfig', 'missing-kubeconfig'],
    1,
    [/missing-kubeconfig/, /ENOENT/],
  ],
  [
    'export-machines --out under a file',
    ['export-machines', '--out', 'good.yaml/x'],
    1,
    [/good\.yaml\/x/, /ENOTDIR/],
  ],
  [
    'replay of a log that does not exist',
    ['replay', 'missing.jsonl'],
    1,
    [/missing\.jsonl: ENOENT/],
  ],
  [
    'replay of a directory without segments',
    ['replay', 'adir'],
    1,
    [/adir/, /holds no \*\.jsonl log segments/],
  ],
  ['replay of an empty file', ['replay', 'empty.jsonl'], 1, [/empty\.jsonl/, /empty/]],
  ['replay of binary junk', ['replay', 'junk.bin'], 1, [/junk\.bin/]],
  [
    'replay of a file that is not a log',
    ['replay', 'not-a-log.json'],
    1,
    [/not-a-log\.json: line 1/],
  ],
  ['replay of a manifest', ['replay', 'good.yaml'], 1, [/good\.yaml: line 1/]],
  [
    'replay of a log with an unparsable line',
    ['replay', 'bad-json-line.jsonl'],
    1,
    [/bad-json-line\.jsonl: line 6/],
  ],
];

describe('berth rejects unusable files with one line naming the file', () => {
  it.concurrent.each(fileRows)('%s', async (_name, args, code, says) => {
    expectOneLineError(await berth(...args), code, says);
  });

  it.skipIf(process.getuid?.() === 0)(
    'an unreadable --cluster file (skipped as root: root reads mode-000 files)',
    async () => {
      expectOneLineError(await berth('simulate', '--cluster', 'unreadable.yaml'), 1, [
        /unreadable\.yaml: EACCES/,
      ]);
    },
  );

  it.each([
    ['[]', 'nocontainers.yaml'],
    ['null', 'nullcontainers.yaml'],
    ['missing', 'missingcontainers.yaml'],
  ])('refuses a pod whose containers are %s, naming spec.containers', async (_what, file) => {
    const r = await berth('simulate', '--cluster', file, '--json');
    if (r.code === 0) {
      // Kept going, as for a bad quantity: the pod must be pending with the field named.
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(JSON.parse(r.stdout).pending).toHaveProperty(
        ['default/p'],
        expect.stringMatching(/spec\.containers/),
      );
    } else expectOneLineError(r, 1, [new RegExp(file.replace('.', '\\.')), /spec\.containers/]);
  });
});

// --- recorded logs --------------------------------------------------------------------
const logRows: Row[] = [
  [
    'a deleted BindSucceeded line',
    ['replay', 'deleted-bind.jsonl'],
    1,
    [/deleted-bind\.jsonl/, /line \d+/],
  ],
  [
    'a BindSucceeded edited into BindFailed',
    ['replay', 'bind-flipped.jsonl'],
    1,
    [/bind-flipped\.jsonl/, /line \d+/],
  ],
  ['a seq that jumps', ['replay', 'seq-jump.jsonl'], 1, [/seq-jump\.jsonl/, /line 41\b/, /seq/]],
  [
    'two lines swapped',
    ['replay', 'seq-swapped.jsonl'],
    1,
    [/seq-swapped\.jsonl/, /line \d+/, /seq/],
  ],
  [
    'time going backwards',
    ['replay', 'time-backwards.jsonl'],
    1,
    [/time-backwards\.jsonl/, /line \d+/, /time/],
  ],
  [
    'a PodUpserted with pod: null',
    ['replay', 'pod-null.jsonl'],
    1,
    [/pod-null\.jsonl/, /line \d+/, /pod/],
  ],
  [
    'a BindSucceeded without key',
    ['replay', 'no-key.jsonl'],
    1,
    [/no-key\.jsonl/, /line \d+/, /key/],
  ],
  [
    'a bind result no request asked for',
    ['replay', 'unrequested-bind.jsonl'],
    1,
    [/unrequested-bind\.jsonl/, /line \d+/, /attempt|request/],
  ],
  [
    'a digest with the wrong decision count',
    ['replay', 'digest-count.jsonl'],
    1,
    [/digest-count\.jsonl/, /line \d+/, /decisions/],
  ],
  [
    'a hand-edited decision',
    ['replay', 'edited-decision.jsonl'],
    1,
    [/edited-decision\.jsonl/, /line \d+|seq \d+/, /node-x/],
  ],
  [
    'a header config of the wrong type',
    ['replay', 'header-config.jsonl'],
    1,
    [/header-config\.jsonl/, /line 1\b/, /percentageOfNodesToScore/],
  ],
  [
    'a header config of null',
    ['replay', 'header-config-null.jsonl'],
    1,
    [/header-config-null\.jsonl/, /line 1\b/, /config/],
  ],
];

describe('berth replay rejects a tampered log, naming the file and line', () => {
  it.concurrent.each(logRows)('%s', async (_name, args, code, says) => {
    expectOneLineError(await berth(...args), code, says);
  });
});

// --- help and version -----------------------------------------------------------------
describe('berth prints help and its version, exit 0', () => {
  it.each([
    [['--help'], /berth simulate \[--cluster FILE\]/],
    [['-h'], /berth replay LOG/],
    [['help'], /berth run \[--kubeconfig PATH\]/],
    [[], /berth export-machines/],
    [
      ['help', 'replay'],
      /^berth replay LOG\|DIR \[--record-key FILE\] \[--allow-unsealed\] \[--json\]/,
    ],
    [['simulate', '--help'], /^berth simulate \[--cluster FILE\].*\n[\s\S]*--bind-failure-rate P/],
    [['simulate', '--nodes', '-1', '-h'], /^berth simulate /],
    [['run', '--help'], /^berth run \[--kubeconfig PATH\][\s\S]*--metrics-bind-address/],
    [['replay', '--help'], /^berth replay LOG/],
    [['export-machines', '--help'], /^berth export-machines \[--out DIR\]/],
    [['--version'], new RegExp(`^berth ${version.replaceAll('.', '\\.')}\n$`)],
    [['-v'], new RegExp(`^berth ${version.replaceAll('.', '\\.')}\n$`)],
    [['version'], new RegExp(`^berth ${version.replaceAll('.', '\\.')}\n$`)],
    [['simulate', '--version'], new RegExp(`^berth ${version.replaceAll('.', '\\.')}\n$`)],
  ])('berth %j', async (args, stdout) => {
    const r = await berth(...args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(stdout);
  });
});

// --- broken pipes and full disks ------------------------------------------------------
describe('berth ends quietly when its reader goes away', () => {
  // A reader that leaves early is a race: berth may finish writing first (0) or meet the
  // closed pipe (141, as a shell reports a tool killed by SIGPIPE). Never a trace.
  it.each([
    [
      'replay LOG | head -1',
      '(eval "$BERTH replay good.jsonl --allow-unsealed"; echo $? > status) | head -1',
    ],
    [
      'replay LOG --json | true',
      '(eval "$BERTH replay good.jsonl --json --allow-unsealed"; echo $? > status) | true',
    ],
    ['simulate | true', '(eval "$BERTH simulate"; echo $? > status) | true'],
    ['simulate | head -1', '(eval "$BERTH simulate"; echo $? > status) | head -1'],
    ['help | true', '(eval "$BERTH help"; echo $? > status) | true'],
    ['simulate --help | true', '(eval "$BERTH simulate --help"; echo $? > status) | true'],
  ])('%s', (_name, script) => {
    const r = shell(script);
    expect(r.stderr).toBe('');
    expect([0, 141]).toContain(r.status);
  });

  it.each([
    ['replay of a 3000-pod log --json | head -c 1', 'replay big.jsonl --json --allow-unsealed'],
    ['simulate of 3000 pods --json | head -c 1', 'simulate --nodes 10 --pods 3000 --json'],
  ])('%s: more than a pipe holds, so the pipe surely breaks: 141', (_name, args) => {
    const r = shell(`(eval "$BERTH ${args}"; echo $? > status) | head -c 1`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(141);
  });

  it('keeps the exit code and message of a failure when stdout is gone too', () => {
    const r = shell('(eval "$BERTH replay edited-decision.jsonl"; echo $? > status) | head -c 1');
    expect(r.status).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^berth: .*node-x/);
  });

  it('stays quiet when stderr is the broken pipe', () => {
    const r = shell('(eval "$BERTH simulate --frob" 2>&1 >/dev/null; echo $? > status) | true');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(2);
  });

  it.skipIf(!existsSync('/dev/full'))('says so in one line when stdout is a full disk', () => {
    const r = shell('eval "$BERTH --help" > /dev/full; echo $? > status');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('berth: cannot write the output: ENOSPC (no space left on device)\n');
  });
});
