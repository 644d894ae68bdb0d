// Tests kubeconfig lookup, context selection and the one-line setup errors.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkConnection, KubeSetupError, loadKubeConfig, makeClients } from './config.ts';

let dir: string;

function kubeconfig(
  file: string,
  contexts: string[],
  current: string | undefined,
  server = 'https://10.0.0.1:6443',
) {
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c) => [
      `- name: ${c}-cluster`,
      '  cluster:',
      `    server: ${server}`,
      '    insecure-skip-tls-verify: true',
    ]),
    'users:',
    ...contexts.flatMap((c) => [`- name: ${c}-user`, '  user:', '    token: abc']),
    'contexts:',
    ...contexts.flatMap((c) => [
      `- name: ${c}`,
      '  context:',
      `    cluster: ${c}-cluster`,
      `    user: ${c}-user`,
    ]),
    ...(current === undefined ? [] : [`current-context: ${current}`]),
  ];
  const path = join(dir, file);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function setupError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(KubeSetupError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a KubeSetupError');
}

const savedEnv = new Map<string, string | undefined>();

/** Sets an environment variable for the current test; afterEach puts the old value back. */
function setEnv(name: string, value: string): void {
  if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
  process.env[name] = value;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'berth-kubeconfig-'));
  setEnv('KUBECONFIG', '');
  setEnv('KUBERNETES_SERVICE_HOST', '');
  setEnv('HOME', dir);
});

afterEach(() => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
  rmSync(dir, { recursive: true, force: true });
});

describe('loadKubeConfig', () => {
  it('loads an explicit file and its current context', () => {
    const file = kubeconfig('a.yaml', ['a', 'b'], 'b');
    const kc = loadKubeConfig({ kubeconfig: file });
    expect(kc.getCurrentContext()).toBe('b');
    expect(makeClients(kc).server).toBe('https://10.0.0.1:6443');
  });

  it('selects --context', () => {
    const file = kubeconfig('a.yaml', ['a', 'b'], 'b');
    expect(loadKubeConfig({ kubeconfig: file, context: 'a' }).getCurrentContext()).toBe('a');
  });

  it('names the available contexts when --context does not exist', () => {
    const file = kubeconfig('a.yaml', ['a', 'b'], 'a');
    expect(setupError(() => loadKubeConfig({ kubeconfig: file, context: 'foo' }))).toBe(
      `context "foo" not found in ${file} (have: a, b)`,
    );
  });

  it('reports a missing explicit file as ENOENT', () => {
    expect(setupError(() => loadKubeConfig({ kubeconfig: '/nonexistent/kc' }))).toBe(
      'cannot read kubeconfig /nonexistent/kc: ENOENT',
    );
  });

  it('reports an unparsable file in one line', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'clusters: [\n  {{{\n');
    expect(setupError(() => loadKubeConfig({ kubeconfig: file }))).toMatch(
      new RegExp(`^cannot parse kubeconfig ${file}: `),
    );
  });

  it('refuses a file without a current-context unless --context is given', () => {
    const file = kubeconfig('a.yaml', ['a'], undefined);
    expect(setupError(() => loadKubeConfig({ kubeconfig: file }))).toBe(
      `${file} has no current-context (use --context; have: a)`,
    );
    expect(loadKubeConfig({ kubeconfig: file, context: 'a' }).getCurrentContext()).toBe('a');
  });

  it('merges the files of KUBECONFIG, the first file winning', () => {
    const one = kubeconfig('one.yaml', ['a'], 'a');
    const two = kubeconfig('two.yaml', ['b'], 'b');
    setEnv('KUBECONFIG', `${one}:${two}`);
    const kc = loadKubeConfig({});
    expect(kc.getCurrentContext()).toBe('a');
    expect(loadKubeConfig({ context: 'b' }).getCurrentContext()).toBe('b');
  });

  it('prefers KUBECONFIG over the in-cluster config', () => {
    const one = kubeconfig('one.yaml', ['a'], 'a');
    setEnv('KUBECONFIG', one);
    setEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    expect(loadKubeConfig({}).getCurrentContext()).toBe('a');
  });

  it('uses the in-cluster config when KUBERNETES_SERVICE_HOST is set (and says what is missing)', () => {
    setEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    expect(setupError(() => loadKubeConfig({}))).toBe(
      'in-cluster config: cannot read /var/run/secrets/kubernetes.io/serviceaccount/token: ENOENT',
    );
  });

  it('falls back to ~/.kube/config', () => {
    const kube = join(dir, '.kube');
    mkdirSync(kube);
    const file = kubeconfig('.kube/config', ['home'], 'home');
    expect(file).toBe(join(kube, 'config'));
    expect(loadKubeConfig({}).getCurrentContext()).toBe('home');
  });

  it('says how to fix it when there is no configuration at all', () => {
    expect(setupError(() => loadKubeConfig({}))).toBe(
      'no kubeconfig found (set --kubeconfig or KUBECONFIG)',
    );
  });
});

describe('checkConnection', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body?: unknown } | 'hang' = { status: 200 };
  let acceptEncoding: string | undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      acceptEncoding = req.headers['accept-encoding'];
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '{}' : JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  function clientsFor(server: string) {
    return makeClients(loadKubeConfig({ kubeconfig: kubeconfig('c.yaml', ['c'], 'c', server) }));
  }

  async function connectionError(server: string, timeoutMs?: number): Promise<string> {
    try {
      await checkConnection(clientsFor(server), timeoutMs);
    } catch (error) {
      expect(error).toBeInstanceOf(KubeSetupError);
      expect((error as Error).message).not.toContain('\n');
      return (error as Error).message;
    }
    throw new Error('expected a KubeSetupError');
  }

  it('resolves when the server answers', async () => {
    answer = { status: 200, body: { kind: 'NodeList', items: [], metadata: {} } };
    await expect(checkConnection(clientsFor(url))).resolves.toBeUndefined();
  });

  it('asks for uncompressed answers, as kube-scheduler does', async () => {
    answer = { status: 200, body: { kind: 'NodeList', items: [], metadata: {} } };
    acceptEncoding = undefined;
    await checkConnection(clientsFor(url));
    expect(acceptEncoding).toBe('identity');
  });

  it('explains 401', async () => {
    answer = { status: 401, body: { kind: 'Status', code: 401, message: 'Unauthorized' } };
    expect(await connectionError(url)).toBe(
      'the API server refused the credentials (401 Unauthorized)',
    );
  });

  it('explains 403 with the API message', async () => {
    answer = {
      status: 403,
      body: {
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message: 'nodes is forbidden: User "system:anonymous" cannot list resource "nodes"',
      },
    };
    expect(await connectionError(url)).toBe(
      'forbidden: nodes is forbidden: User "system:anonymous" cannot list resource "nodes" (403)',
    );
  });

  it('explains a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await connectionError(`http://127.0.0.1:${port}`)).toBe(
      `cannot reach the API server at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('gives up after the timeout', async () => {
    answer = 'hang';
    expect(await connectionError(url, 200)).toBe(
      `cannot reach the API server at ${url}: no answer within 200 ms`,
    );
  });
});
