// podman for the image e2e test: set-up script, stand-in base image, builds, inspection and containers.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BerthRun } from './berth.ts';
import { repoRoot } from './paths.ts';
import { type CommandResult, type ProcessOptions, runProcess } from './process.ts';

/** test/e2e/image: setup-podman.sh, base-image.sh, versions.env. */
export const imageScripts = join(repoRoot, 'test/e2e/image');

/** How a command ended and what it printed. */
export type CommandOutcome = CommandResult;

/** Runs `command ARGS` to completion; never throws for a non-zero exit (see `mustSucceed`). */
export const runCommand = (command: string, args: string[], opts: ProcessOptions = {}) =>
  runProcess(command, args, opts);

function lastLines(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Returns `outcome` if it exited 0, else throws naming `what` with the tail of its output. */
export function mustSucceed(what: string, outcome: CommandOutcome): CommandOutcome {
  if (outcome.code === 0) return outcome;
  const how = outcome.signal === null ? `exit ${outcome.code}` : `signal ${outcome.signal}`;
  throw new Error(
    `${what} failed (${how}, after ${Math.round(outcome.durationMs / 1000)} s)\n` +
      `--- stderr (last lines)\n${lastLines(outcome.stderr, 40)}\n` +
      `--- stdout (last lines)\n${lastLines(outcome.stdout, 20)}`,
  );
}

/** `KEY=VALUE` lines (as the scripts print on stdout) as a record. */
export function keyValues(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) values[m[1]] = m[2];
  }
  return values;
}

function required(values: Record<string, string>, key: string, from: string): string {
  const v = values[key];
  if (v === undefined || v === '') throw new Error(`${from} printed no ${key}=…`);
  return v;
}

/** The environment podman needs here: the process env plus CONTAINERS_CONF. */
export interface PodmanSetup {
  env: NodeJS.ProcessEnv;
  containersConf: string;
  durationMs: number;
}

/** Runs setup-podman.sh (installs podman and friends when missing, writes containers.conf). */
export async function setupPodman(): Promise<PodmanSetup> {
  const outcome = mustSucceed(
    'test/e2e/image/setup-podman.sh',
    await runCommand('bash', [join(imageScripts, 'setup-podman.sh')], { timeoutMs: 600_000 }),
  );
  const containersConf = required(keyValues(outcome.stdout), 'CONTAINERS_CONF', 'setup-podman.sh');
  return {
    env: { ...process.env, CONTAINERS_CONF: containersConf },
    containersConf,
    durationMs: outcome.durationMs,
  };
}

/** Where the stand-in base image came from this time. */
export type BaseImageSource = 'present' | 'loaded' | 'built';

/** The stand-in for the Dockerfile's base image, ready in podman's storage. */
export interface BaseImage {
  image: string;
  tarball: string;
  source: BaseImageSource;
  durationMs: number;
}

/** Runs base-image.sh: builds the stand-in once (cached tarball), loads and tags it. */
export async function ensureBaseImage(env: NodeJS.ProcessEnv): Promise<BaseImage> {
  const outcome = mustSucceed(
    'test/e2e/image/base-image.sh',
    await runCommand('bash', [join(imageScripts, 'base-image.sh')], { env, timeoutMs: 900_000 }),
  );
  const values = keyValues(outcome.stdout);
  const source = required(values, 'BASE_SOURCE', 'base-image.sh');
  if (source !== 'present' && source !== 'loaded' && source !== 'built')
    throw new Error(`base-image.sh printed BASE_SOURCE=${source}`);
  return {
    image: required(values, 'BASE_IMAGE', 'base-image.sh'),
    tarball: required(values, 'BASE_TARBALL', 'base-image.sh'),
    source,
    durationMs: outcome.durationMs,
  };
}

/**
 * The CA bundle the host's npm trusts, if it has one of its own (`npm config get cafile`, else
 * NODE_EXTRA_CA_CERTS): behind a TLS-intercepting proxy the image build needs it as a secret.
 */
export async function hostNpmCaFile(): Promise<string | undefined> {
  const r = await runCommand('npm', ['config', 'get', 'cafile'], { timeoutMs: 30_000 });
  const cafile = r.code === 0 ? r.stdout.trim() : '';
  for (const candidate of [cafile, process.env.NODE_EXTRA_CA_CERTS ?? '']) {
    if (candidate !== '' && candidate !== 'null' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The parts of `podman image inspect` the test reads. */
export interface ImageInspect {
  Id: string;
  Size: number;
  Config: {
    User?: string;
    Entrypoint?: string[];
    Cmd?: string[];
    Env?: string[];
    ExposedPorts?: Record<string, unknown>;
    Labels?: Record<string, string>;
  };
}

/** podman with this machine's containers.conf. */
export class Podman {
  constructor(readonly env: NodeJS.ProcessEnv) {}

  /** `podman ARGS`, whatever its exit code. */
  run(args: string[], timeoutMs = 120_000): Promise<CommandOutcome> {
    return runCommand('podman', args, { env: this.env, timeoutMs });
  }

  /** `podman ARGS`; throws with its output unless it exits 0. */
  async must(args: string[], timeoutMs = 120_000): Promise<CommandOutcome> {
    return mustSucceed(`podman ${args.join(' ')}`, await this.run(args, timeoutMs));
  }

  /** `podman image inspect REF`, parsed. */
  async inspectImage(ref: string): Promise<ImageInspect> {
    const r = await this.must(['image', 'inspect', ref]);
    const [image] = JSON.parse(r.stdout) as ImageInspect[];
    if (image === undefined) throw new Error(`podman image inspect ${ref} returned nothing`);
    return image;
  }

  /**
   * Starts `podman run --rm --name NAME ...runArgs IMAGE ...command` attached, its output going
   * to files in `dir` (as a berth process's would). The BerthRun's exit is the container's.
   */
  startContainer(opts: {
    name: string;
    image: string;
    runArgs: string[];
    command: string[];
    dir: string;
  }): BerthRun {
    const child: ChildProcess = spawn(
      'podman',
      ['run', '--rm', '--name', opts.name, ...opts.runArgs, opts.image, ...opts.command],
      { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return new BerthRun(child, opts.dir, opts.name);
  }
}
