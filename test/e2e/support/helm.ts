// helm as a child process against a test cluster, plus what the chart tests need around it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { Manifest } from './manifests.ts';
import { repoRoot } from './paths.ts';
import { runProcess } from './process.ts';

/** The chart under test. */
export const chartDir = join(repoRoot, 'helm/berth');

/** What a helm invocation returned. */
export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the cached helm binary with its own home directories and one kubeconfig. */
export class Helm {
  private readonly env: NodeJS.ProcessEnv;

  /**
   * `bin` is the helm binary, `home` a directory for helm's cache/config/data (nothing is
   * read from or written to the user's), `kubeVersion` the `--kube-version` for offline
   * commands (helm lint/template).
   */
  constructor(
    readonly bin: string,
    readonly kubeconfig: string,
    home: string,
    readonly kubeVersion: string,
  ) {
    const dirs = { HELM_CACHE_HOME: 'cache', HELM_CONFIG_HOME: 'config', HELM_DATA_HOME: 'data' };
    this.env = { ...process.env, KUBECONFIG: kubeconfig };
    for (const [key, sub] of Object.entries(dirs)) {
      const dir = join(home, sub);
      mkdirSync(dir, { recursive: true });
      this.env[key] = dir;
    }
  }

  /** Runs `helm ARGS`; throws with stderr on a non-zero exit unless `allowFailure`. */
  async run(
    args: string[],
    opts: { allowFailure?: boolean; timeoutMs?: number } = {},
  ): Promise<HelmResult> {
    const r = await runProcess(this.bin, args, { env: this.env, timeoutMs: opts.timeoutMs });
    const result = { code: r.code ?? 128, stdout: r.stdout, stderr: r.stderr.trim() };
    if (result.code !== 0 && !opts.allowFailure) {
      throw new Error(
        `helm ${args.join(' ')} failed (exit ${r.code ?? r.signal}):\n${result.stderr}\n${result.stdout.slice(0, 2000)}`,
      );
    }
    return result;
  }

  /** `helm template RELEASE chart -n NAMESPACE -f VALUES…` (offline, at `kubeVersion`). */
  template(release: string, namespace: string, valuesFiles: string[] = []) {
    return this.run(
      [
        'template',
        release,
        chartDir,
        '--namespace',
        namespace,
        '--kube-version',
        this.kubeVersion,
        ...valuesFiles.flatMap((f) => ['--values', f]),
      ],
      { allowFailure: true },
    );
  }
}

/** Writes `values` as YAML to DIR/NAME.values.yaml and returns the path. */
export function writeValues(dir: string, name: string, values: Record<string, unknown>): string {
  const path = join(dir, `${name}.values.yaml`);
  writeFileSync(path, stringify(values));
  return path;
}

/** The objects of a multi-document YAML stream (empty documents skipped). */
export function parseObjects(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null && typeof o === 'object');
}

/** `KIND NAME` of an object, e.g. `Deployment berth`. */
export function kindAndName(o: Manifest): string {
  const meta = o.metadata as { name?: string } | undefined;
  return `${String(o.kind)} ${meta?.name ?? '?'}`;
}

/**
 * Writes a kubeconfig next to `adminKubeconfig` that reaches the same API server (same CA)
 * with `token` as its bearer token, and returns its path.
 */
export function tokenKubeconfig(adminKubeconfig: string, token: string, name: string): string {
  const admin = parse(readFileSync(adminKubeconfig, 'utf8')) as {
    clusters: { name: string; cluster: Record<string, unknown> }[];
  };
  const cluster = admin.clusters[0];
  if (cluster === undefined) throw new Error(`${adminKubeconfig} names no cluster`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [cluster],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: cluster.name, user: name } }],
    'current-context': name,
  };
  const path = join(adminKubeconfig, '..', `${name}.kubeconfig`);
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

/**
 * A minimal stand-in for the Prometheus Operator's ServiceMonitor CRD (monitoring.coreos.com/v1):
 * a structural schema holding only the fields the chart renders, under the real CRD's names,
 * so a strict server-side dry run rejects any other field the chart might render.
 */
export function serviceMonitorCrd(): Manifest {
  const str = { type: 'string' };
  const stringMap = { type: 'object', additionalProperties: str };
  const secretKey = { type: 'object', properties: { name: str, key: str } };
  // The Prometheus Operator's duration syntax (the real CRD's pattern).
  const promDuration = {
    type: 'string',
    pattern:
      '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$',
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'servicemonitors.monitoring.coreos.com' },
    spec: {
      group: 'monitoring.coreos.com',
      scope: 'Namespaced',
      names: {
        kind: 'ServiceMonitor',
        listKind: 'ServiceMonitorList',
        plural: 'servicemonitors',
        singular: 'servicemonitor',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: str,
                kind: str,
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['selector'],
                  properties: {
                    selector: { type: 'object', properties: { matchLabels: stringMap } },
                    namespaceSelector: {
                      type: 'object',
                      properties: { matchNames: { type: 'array', items: str } },
                    },
                    endpoints: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          port: str,
                          path: str,
                          scheme: { type: 'string', enum: ['http', 'https'] },
                          interval: promDuration,
                          scrapeTimeout: promDuration,
                          bearerTokenFile: str,
                          authorization: {
                            type: 'object',
                            properties: { type: str, credentials: secretKey },
                          },
                          tlsConfig: {
                            type: 'object',
                            properties: {
                              insecureSkipVerify: { type: 'boolean' },
                              serverName: str,
                              caFile: str,
                              ca: {
                                type: 'object',
                                properties: { secret: secretKey, configMap: secretKey },
                              },
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}
