// Tests berth's kubeconfig reader: entries and merging, its errors, and the credentials it sends over real TLS.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, createServer, type RequestOptions, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSigned, signedBy } from '../../../test/support/tls-certs.ts';
import { DirectHttp } from './direct-http.ts';
import { Kubeconfig, KubeconfigFormatError } from './kubeconfig.ts';

let dir: string;

/** A CA, a server certificate for 127.0.0.1 and a client certificate for CN=berth-test. */
function makeCertificates(): void {
  selfSigned(dir, 'ca', '/CN=berth-test-ca');
  signedBy(dir, 'ca', 'server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1');
  signedBy(dir, 'ca', 'client', '/CN=berth-test', 'extendedKeyUsage=clientAuth');
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'berth-kubeconfig-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Kubeconfig entries', () => {
  it('reads clusters, users and contexts, making paths absolute against their own file', () => {
    const kc = new Kubeconfig();
    kc.addFile(
      write(
        'sub/one.yaml',
        [
          'clusters:',
          '- name: c',
          '  cluster:',
          '    server: https://10.0.0.1:6443/',
          '    certificate-authority: certs/ca.crt',
          '    tls-server-name: api.internal',
          'users:',
          '- name: u',
          '  user:',
          '    client-certificate: /abs/client.crt',
          '    client-key: keys/client.key',
          '    tokenFile: token',
          'contexts:',
          '- name: x',
          '  context: {cluster: c, user: u, namespace: ns}',
          'current-context: x',
        ].join('\n'),
      ),
    );
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://10.0.0.1:6443',
      caFile: join(dir, 'sub/certs/ca.crt'),
      tlsServerName: 'api.internal',
      skipTLSVerify: false,
    });
    expect(kc.getCurrentUser()).toMatchObject({
      certFile: '/abs/client.crt',
      keyFile: join(dir, 'sub/keys/client.key'),
      tokenFile: join(dir, 'sub/token'),
    });
    expect(kc.getContextObject('x')).toEqual({
      name: 'x',
      cluster: 'c',
      user: 'u',
      namespace: 'ns',
    });
    expect(kc.needsClientNode()).toBe(false);
  });

  it('keeps the first file’s entry and current-context when files name the same ones', () => {
    const kc = new Kubeconfig();
    const file = (n: string, server: string) =>
      `clusters: [{name: c, cluster: {server: '${server}'}}]\n` +
      `contexts: [{name: ${n}, context: {cluster: c, user: u}}, {name: shared, context: {cluster: ${n}}}]\n` +
      `current-context: ${n}\n`;
    kc.addText(file('a', 'https://first'), dir);
    kc.addText(file('b', 'https://second'), dir);
    expect(kc.getCurrentContext()).toBe('a');
    expect(kc.getCurrentCluster()?.server).toBe('https://first');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['a', 'shared', 'b']);
    expect(kc.getContextObject('shared')?.cluster).toBe('a');
  });

  it('refuses malformed files with one line naming the entry', () => {
    const error = (source: string) => {
      try {
        new Kubeconfig().addText(source, dir);
      } catch (e) {
        expect(e).toBeInstanceOf(KubeconfigFormatError);
        expect((e as Error).message).not.toContain('\n');
        return (e as Error).message;
      }
      throw new Error('expected a KubeconfigFormatError');
    };
    expect(error('clusters: {a: 1}')).toBe('clusters is not a list');
    expect(error('clusters: [{cluster: {server: x}}]')).toBe('clusters[0].name is missing');
    expect(error('clusters: [{name: a, cluster: {server: x}}, {name: b, cluster: {}}]')).toBe(
      'clusters[1].cluster.server is missing',
    );
    expect(error('users: [{name: u, user: [1]}]')).toBe('users[0].user is not a mapping');
    expect(error('- just\n- a list')).toBe('the file is not a mapping');
    expect(error('clusters: [\n  {name: a')).toMatch(/^\S.*$/);
  });

  it('makes the in-cluster config from the service account and the service address', () => {
    const kc = Kubeconfig.inCluster(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
      '/sa',
    );
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://[fd00::1]:6443',
      caFile: '/sa/ca.crt',
    });
    expect(kc.getCurrentUser()?.tokenFile).toBe('/sa/token');
  });

  it('leaves exec plugins, auth providers and proxies to client-node', () => {
    const needs = (user: string, cluster = '') => {
      const kc = new Kubeconfig();
      kc.addText(
        `clusters: [{name: c, cluster: {server: 'https://h'${cluster}}}]\n` +
          `users: [{name: u, user: ${user}}]\n` +
          'contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
        dir,
      );
      return kc.needsClientNode();
    };
    expect(needs('{token: t}')).toBe(false);
    expect(needs('{exec: {command: x}}')).toBe(true);
    expect(needs('{auth-provider: {name: oidc}}')).toBe(true);
    expect(needs('{token: t}', ", proxy-url: 'socks5://p:1080'")).toBe(true);
  });
});

describe('Kubeconfig credentials', () => {
  it('sets token, basic auth, impersonation, trust and an https agent on the options', async () => {
    const token = write('creds/token', 'from-file\n');
    const kc = new Kubeconfig();
    kc.addText(
      [
        'clusters:',
        `- {name: c, cluster: {server: 'https://h', certificate-authority-data: ${Buffer.from('CA').toString('base64')}, insecure-skip-tls-verify: true, tls-server-name: api}}`,
        'users:',
        `- {name: file, user: {tokenFile: ${token}, as: admin}}`,
        '- {name: basic, user: {username: ann, password: s3cret}}',
        'contexts:',
        '- {name: file, context: {cluster: c, user: file}}',
        '- {name: basic, context: {cluster: c, user: basic}}',
        'current-context: file',
      ].join('\n'),
      dir,
    );
    const first: RequestOptions = {};
    await kc.applyToHTTPSOptions(first);
    expect(first.headers).toEqual({
      Authorization: 'Bearer from-file',
      'Impersonate-User': 'admin',
    });
    expect(first.ca).toEqual(Buffer.from('CA'));
    expect(first.rejectUnauthorized).toBe(false);
    expect(first.servername).toBe('api');
    expect(first.agent).toBeInstanceOf(Agent);
    expect((first.agent as Agent).options).toMatchObject({
      servername: 'api',
      rejectUnauthorized: false,
    });
    // The token file is read again on every call: a rotated token is picked up.
    writeFileSync(token, 'rotated');
    const second: RequestOptions = {};
    await kc.applyToHTTPSOptions(second);
    expect(second.headers).toMatchObject({ Authorization: 'Bearer rotated' });
    kc.setCurrentContext('basic');
    const basic: RequestOptions = {};
    await kc.applyToHTTPSOptions(basic);
    expect(basic.auth).toBe('ann:s3cret');
    expect(basic.headers).toEqual({});
  });

  describe('against an https server that asks for client certificates', () => {
    let server: Server;
    let port: number;
    const seen: Array<{ headers: IncomingHttpHeaders; client: string | undefined }> = [];

    beforeAll(async () => {
      makeCertificates();
      server = createServer(
        {
          cert: readFileSync(join(dir, 'server.crt')),
          key: readFileSync(join(dir, 'server.key')),
          ca: readFileSync(join(dir, 'ca.crt')),
          requestCert: true,
          rejectUnauthorized: false,
        },
        (req, res) => {
          const socket = req.socket as TLSSocket;
          const peer = socket.authorized
            ? String(socket.getPeerCertificate().subject?.CN)
            : undefined;
          seen.push({ headers: req.headers, client: peer });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"kind":"NodeList","items":[]}');
        },
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });

    /** A kubeconfig file beside the certificates, relative paths, with `user`'s YAML. */
    function kubeconfigWith(user: string): Kubeconfig {
      const kc = new Kubeconfig();
      kc.addFile(
        write(
          `kc-${seen.length}.yaml`,
          [
            'clusters:',
            `- {name: c, cluster: {server: 'https://127.0.0.1:${port}', certificate-authority: ca.crt}}`,
            `users: [{name: u, user: ${user}}]`,
            'contexts: [{name: x, context: {cluster: c, user: u}}]',
            'current-context: x',
          ].join('\n'),
        ),
      );
      return kc;
    }

    async function get(kc: Kubeconfig) {
      const http = new DirectHttp(kc);
      try {
        await http.request('GET', '/api/v1/nodes?limit=1', undefined, { timeoutMs: 5_000 });
        return seen.at(-1);
      } finally {
        http.destroy();
      }
    }

    it('trusts the CA file and presents the client certificate from files', async () => {
      const got = await get(
        kubeconfigWith('{client-certificate: client.crt, client-key: client.key}'),
      );
      expect(got?.client).toBe('berth-test');
      expect(got?.headers.authorization).toBeUndefined();
    });

    it('runs an exec plugin through client-node and sends its token', async () => {
      const plugin = write(
        'plugin.cjs',
        'process.stdout.write(JSON.stringify({apiVersion: "client.authentication.k8s.io/v1", ' +
          'kind: "ExecCredential", status: {token: "from-exec-plugin"}}));\n',
      );
      const kc = kubeconfigWith(
        `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${process.execPath}, args: [${plugin}], interactiveMode: Never}}`,
      );
      expect(kc.needsClientNode()).toBe(true);
      const got = await get(kc);
      expect(got?.headers.authorization).toBe('Bearer from-exec-plugin');
    });

    it('fails the request with the read error when a certificate file is gone', async () => {
      const kc = kubeconfigWith('{client-certificate: missing.crt, client-key: client.key}');
      const http = new DirectHttp(kc);
      await expect(
        http.request('GET', '/api/v1/nodes?limit=1', undefined, { timeoutMs: 5_000 }),
      ).rejects.toMatchObject({ code: 'ENOENT' });
      http.destroy();
    });
  });
});
