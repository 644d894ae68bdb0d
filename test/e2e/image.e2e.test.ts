// berth's container image: the real Dockerfile built on a local stand-in base; it runs read-only as non-root, schedules pods and stops on SIGTERM.
import { chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listContents, listProcesses, type ProcEntry } from './image/in-container.ts';
import type { BerthRun } from './support/berth.ts';
import { berthCommand } from './support/berth.ts';
import { chartAccess } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import { httpsGet } from './support/https-get.ts';
import { clusterOvercommits } from './support/invariants.ts';
import { freeLoopbackPort } from './support/kube-scheduler.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { repoRoot } from './support/paths.ts';
import {
  ensureBaseImage,
  hostNpmCaFile,
  type ImageInspect,
  Podman,
  runCommand,
  setupPodman,
} from './support/podman.ts';
import { waitFor } from './support/wait.ts';

const ns = 'image';
const nodeNames = ['kwok-image-a', 'kwok-image-b'];
const podCount = 12;
const imageTag = 'localhost/berth:e2e';
const containerName = `berth-e2e-image-${process.pid}`;
/** Packages the build needs and the image must not carry. */
const buildOnly = ['tsx', 'typescript', 'vitest', '@biomejs/biome', 'fast-check'];

const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
};

/** The base image of each of the Dockerfile's stages (its FROM lines), e.g. node:24-bookworm-slim. */
const baseImages = [
  ...readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').matchAll(/^FROM\s+(\S+)/gm),
].map((m) => m[1] ?? '');
const baseImageName = baseImages[0] ?? 'none';

/** How long each step took, printed after the tests. */
const timings: string[] = [];
function timed(step: string, ms: number, note = ''): void {
  const line = `${step.padEnd(34)} ${(ms / 1000).toFixed(1).padStart(6)} s${note ? `  (${note})` : ''}`;
  timings.push(line);
  process.stderr.write(`[e2e image] ${line}\n`);
}

const pemBlock = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;
/** A PEM certificate's base64 body on one line. */
function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
}

describe(`berth container image (podman, stand-in ${baseImageName})`, () => {
  const cluster = useCluster('image');
  let podman: Podman;
  let image: ImageInspect;
  let baseImageId: string;
  let berth: BerthRun | undefined;
  let caFile: string | undefined;

  beforeAll(async () => {
    const setup = await setupPodman();
    timed('setup-podman.sh', setup.durationMs);
    podman = new Podman(setup.env);

    const base = await ensureBaseImage(setup.env);
    timed(`base image (${base.source})`, base.durationMs, base.tarball);
    baseImageId = (await podman.inspectImage(base.image)).Id;

    const ca = await hostNpmCaFile();
    caFile = ca;
    const head = await runCommand('git', ['rev-parse', 'HEAD'], { timeoutMs: 30_000 });
    const revision = head.code === 0 ? head.stdout.trim() : 'unknown';
    const build = await podman.must(
      [
        'build',
        '--pull=never',
        '--file',
        join(repoRoot, 'Dockerfile'),
        '--tag',
        imageTag,
        '--build-arg',
        `VERSION=${packageJson.version}`,
        '--build-arg',
        `REVISION=${revision}`,
        ...(ca === undefined ? [] : ['--secret', `id=npm-ca,src=${ca}`]),
        repoRoot,
      ],
      1_200_000,
    );
    image = await podman.inspectImage(imageTag);
    timed(
      'podman build',
      build.durationMs,
      `${Math.round(image.Size / 1e6)} MB; ${ca === undefined ? 'no npm CA' : `npm CA secret ${ca}`}`,
    );
  }, 2_400_000);

  afterAll(async () => {
    if (berth !== undefined && berth.exitStatus === undefined) {
      await podman.run(['rm', '--force', '--time', '0', containerName]);
      berth.kill();
    }
    process.stderr.write(`[e2e image] timings:\n  ${timings.join('\n  ')}\n`);
  }, 120_000);

  it('sets podman up and loads the stand-in base idempotently: a second run changes nothing', async () => {
    const setup = await setupPodman();
    timed('setup-podman.sh (again)', setup.durationMs);
    const base = await ensureBaseImage(setup.env);
    timed(`base image (again: ${base.source})`, base.durationMs);
    expect(base.source).toBe('present');
    expect((await podman.inspectImage(base.image)).Id).toBe(baseImageId);
  });

  it('runs as a numeric non-root user, tini then berth, `run` by default, port 10259, OCI labels', () => {
    const user = image.Config.User ?? '';
    expect(user, 'USER must be numeric uid:gid').toMatch(/^\d+:\d+$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    expect(image.Config.Entrypoint).toEqual(['/usr/bin/tini', '--', 'berth']);
    expect(image.Config.Cmd).toEqual(['run']);
    expect(Object.keys(image.Config.ExposedPorts ?? {})).toEqual(['10259/tcp']);
    const labels = image.Config.Labels ?? {};
    for (const key of ['title', 'description', 'licenses', 'source', 'revision'])
      expect(labels[`org.opencontainers.image.${key}`], key).toMatch(/\S/);
    expect(labels['org.opencontainers.image.title']).toBe('berth');
    expect(labels['org.opencontainers.image.licenses']).toBe('Apache-2.0');
    expect(labels['org.opencontainers.image.version']).toBe(packageJson.version);
    // The npm CA secret is mounted for `npm ci` only: nothing of it in the configuration.
    expect(JSON.stringify(image.Config.Env)).not.toMatch(/cafile|npm-ca|secret/i);
  });

  /** `podman run` of a throw-away container with a read-only root and no network. */
  const offlineRun = ['run', '--rm', '--read-only', '--network', 'none'];

  it('holds compiled JavaScript and exactly the production dependencies of package-lock.json', async () => {
    const r = await podman.must([
      ...offlineRun,
      '--entrypoint',
      'node',
      imageTag,
      '-e',
      listContents,
    ]);
    const contents = JSON.parse(r.stdout) as {
      packages: string[];
      tsFiles: string[];
      top: string[];
    };
    expect(contents.top).toEqual(['bin', 'dist', 'node_modules', 'package.json']);
    expect(contents.tsFiles, 'TypeScript sources in the image').toEqual([]);
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([key]) => key !== '');
    const devOnly = entries.filter(([, p]) => p.dev === true).map(([key]) => key);
    const production = entries
      .filter(([, p]) => !p.dev && !p.optional && !p.devOptional)
      .map(([key]) => key);
    const present = new Set(contents.packages);
    expect(
      devOnly.filter((key) => present.has(key)),
      'dev-only packages in the image',
    ).toEqual([]);
    expect(
      production.filter((key) => !present.has(key)),
      'production packages missing from the image',
    ).toEqual([]);
    for (const name of buildOnly) expect(present.has(`node_modules/${name}`), name).toBe(false);
  });

  it('carries none of the npm CA secret in any layer', async (ctx) => {
    if (caFile === undefined) ctx.skip();
    // Certificates node trusts anyway are in its binary; look for the others (the proxy's).
    const bundled = new Set(tls.rootCertificates.map(pemBody));
    const own = (readFileSync(caFile ?? '', 'utf8').match(pemBlock) ?? [])
      .map(pemBody)
      .filter((body) => !bundled.has(body));
    expect(own.length, `certificates of ${caFile} that node does not bundle`).toBeGreaterThan(0);
    const archive = join(cluster().dir, 'image.tar');
    await podman.must(['save', '--format', 'docker-archive', '--output', archive, imageTag]);
    const bytes = readFileSync(archive);
    rmSync(archive);
    // A 64-character run from the middle of each certificate: unique, and on one PEM line.
    const found = own.filter((body) => bytes.includes(body.slice(64, 128)));
    expect(found.length, 'certificates of the build secret found in the saved image').toBe(0);
  });

  it('berth simulate in the image prints the summary, with the same digest as the checkout', async () => {
    const inImage = await podman.must([
      'run',
      '--rm',
      '--read-only',
      '--read-only-tmpfs=false',
      '--network',
      'none',
      imageTag,
      'simulate',
    ]);
    timed('podman run … simulate', inImage.durationMs);
    expect(inImage.stdout).toMatch(/^berth simulate — the demo cluster/);
    expect(inImage.stdout).toMatch(/^\s+scheduled\s+\d+$/m);
    const local = await berthCommand(['simulate']);
    expect(local.code, local.stderr).toBe(0);
    const digest = (s: string) => /^\s+digest\s+([0-9a-f]{64})$/m.exec(s)?.[1];
    expect(digest(inImage.stdout)).toBeDefined();
    expect(digest(inImage.stdout)).toBe(digest(local.stdout));
  });

  it("runs on the Node.js major of the Dockerfile's base, the same in every stage", async () => {
    const major = /^node:(\d+)-/.exec(baseImageName)?.[1];
    expect(major, `FROM ${baseImageName}`).toBeDefined();
    expect(baseImages, 'every stage builds on the one base').toEqual(
      baseImages.map(() => baseImageName),
    );
    const r = await podman.must([...offlineRun, '--entrypoint', 'node', imageTag, '--version']);
    expect(r.stdout.trim()).toMatch(new RegExp(`^v${major}\\.\\d+\\.\\d+$`));
  });

  it('compiles the bundle from the code cache made in the build stage', async () => {
    const r = await podman.must([
      ...offlineRun,
      '--env',
      'BERTH_DEBUG_CODE_CACHE=1',
      imageTag,
      '--version',
    ]);
    expect(r.stdout).toMatch(/^berth \d+\.\d+\.\d+/);
    expect(r.stderr).toMatch(/^code cache: accepted /);
  });

  it('schedules pods on the control plane from a read-only root filesystem as its own uid', async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        ...nodeNames.map((n) => kwokNode(n, { cpu: '2', memory: '4Gi', pods: 110 })),
      ]),
    );
    // berth in the image runs as the chart's ServiceAccount, as installed. Its kubeconfig is
    // 0600 root; the container's user needs to read its copy.
    const kubeconfig = join(cluster().dir, 'image-kubeconfig');
    copyFileSync((await chartAccess(cluster())).kubeconfig, kubeconfig);
    chmodSync(kubeconfig, 0o644);
    berth = podman.startContainer({
      name: containerName,
      image: imageTag,
      runArgs: [
        '--read-only',
        '--read-only-tmpfs=false',
        '--network',
        'host',
        '--volume',
        `${kubeconfig}:/kube/config:ro`,
      ],
      command: [
        'run',
        '--kubeconfig',
        '/kube/config',
        '--leader-elect=false',
        // Host network: the HTTPS server on a free loopback port, not the machine's 10259.
        '--bind-address',
        '127.0.0.1',
        '--secure-port',
        String(await freeLoopbackPort()),
      ],
      dir: cluster().dir,
    });
    const started = Date.now();
    const run = berth;
    await run.waitForLog('"msg":"scheduling"', (e) => e.msg === 'scheduling', 120_000);
    timed('container start to "scheduling"', Date.now() - started);
    await k.create(toYaml(pods('img', ns, podCount, { cpu: '250m', memory: '256Mi' })));
    const unbound = await waitFor(
      `${podCount} pods bound by the containerised berth`,
      async () => {
        run.checkAlive();
        const pending = (await k.pods(ns)).filter((p) => !p.spec.nodeName);
        return { ok: pending.length === 0, seen: pending.map((p) => p.metadata.name) };
      },
      { timeoutMs: 90_000 },
    );
    expect(unbound).toEqual([]);
    const placed = await k.pods(ns);
    expect(placed).toHaveLength(podCount);
    for (const p of placed) expect(nodeNames).toContain(p.spec.nodeName);
    expect(await clusterOvercommits(k)).toEqual([]);

    const listening = await run.waitForLog(
      '"msg":"status server listening"',
      (e) => e.msg === 'status server listening',
    );
    const url = (listening as { url?: unknown }).url;
    expect(typeof url, JSON.stringify(listening)).toBe('string');
    expect(url).toMatch(/^https:/);
    const ready = await httpsGet(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await httpsGet(`${url}/metrics`)).status).toBe(401);
    expect(run.stderr).toBe('');
  });

  it('has tini as PID 1, running berth (node --v8-pool-size=1) as uid 65532 and reaping orphaned processes', async () => {
    const run = berth;
    expect(run, 'the scheduling test starts the container').toBeDefined();
    run?.checkAlive();
    const procs = async () =>
      JSON.parse(
        (await podman.must(['exec', containerName, 'node', '-e', listProcesses])).stdout,
      ) as ProcEntry[];
    const before = await procs();
    const init = before.find((p) => p.pid === 1);
    expect(init?.cmdline.slice(0, 3)).toEqual(['/usr/bin/tini', '--', 'berth']);
    // Exec'd processes have their parent outside the container: PID 1's only child is berth.
    const children = before.filter((p) => p.ppid === 1);
    expect(children, JSON.stringify(before)).toHaveLength(1);
    const [node] = children;
    expect(node?.cmdline[0]).toMatch(/(^|\/)node$/);
    // bin/berth.js's #! line, through the image's /usr/bin/env: one V8 worker thread.
    expect(node?.cmdline[1]).toBe('--v8-pool-size=1');
    expect(node?.cmdline).toContain('/kube/config');
    expect(node?.uid).toBe(65532);

    // A shell starts `sleep` in the background and exits: the orphan is re-parented to PID 1,
    // which must reap it when it ends (node as PID 1 would leave a zombie forever).
    const spawned = await podman.must(['exec', containerName, 'sh', '-c', 'sleep 2 & echo $!']);
    const orphan = Number(spawned.stdout.trim());
    expect(orphan).toBeGreaterThan(1);
    const seen = await waitFor(
      `orphan ${orphan} re-parented to PID 1 and reaped`,
      async () => {
        const p = (await procs()).find((q) => q.pid === orphan);
        return { ok: p === undefined, seen: p };
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(seen).toBeUndefined();
  });

  it('stops promptly with exit code 0 on `podman stop` (SIGTERM reaches berth through tini)', async () => {
    const run = berth;
    expect(run, 'the scheduling test starts the container').toBeDefined();
    if (run === undefined) return;
    run.checkAlive();
    const stop = await podman.must(['stop', '--time', '30', containerName], 60_000);
    const exit = await run.exited;
    timed('podman stop', stop.durationMs);
    expect(exit, run.tail()).toEqual({ code: 0, signal: null });
    expect(
      stop.durationMs,
      'SIGTERM was not acted on (podman waited for its SIGKILL)',
    ).toBeLessThan(15_000);
    const stopping = run.logs().find((e) => e.msg === 'stopping');
    expect(stopping, run.tail()).toMatchObject({ signal: 'SIGTERM' });
    expect(run.stderr).toBe('');
  });
});
