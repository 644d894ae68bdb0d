// Tests berth run's serving flags: kube-scheduler's secure defaults, loopback-only plain HTTP, certificate files.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfSignedCert } from '../adapters/metrics/self-signed-cert.ts';
import {
  checkPlainBindAddress,
  readSecureServing,
  secureListenAddress,
  servingCert,
} from './serving-options.ts';

const now = new Date('2026-11-28T06:00:00Z');

describe('readSecureServing', () => {
  it('defaults to kube-scheduler’s: HTTPS on 0.0.0.0:10259, health paths open', () => {
    const o = readSecureServing({});
    expect(o).toEqual({
      bindAddress: '0.0.0.0',
      port: 10259,
      certFile: undefined,
      keyFile: undefined,
      alwaysAllowPaths: ['/healthz', '/readyz', '/livez'],
    });
    expect(secureListenAddress(o)).toBe(':10259');
  });

  it('reads a specific address and port, and 0 as "no HTTPS server"', () => {
    const o = readSecureServing({ 'bind-address': '127.0.0.1', 'secure-port': '8443' });
    expect(secureListenAddress(o)).toBe('127.0.0.1:8443');
    expect(secureListenAddress(readSecureServing({ 'bind-address': '::1' }))).toBe('[::1]:10259');
    expect(secureListenAddress(readSecureServing({ 'bind-address': '::' }))).toBe(':10259');
    expect(readSecureServing({ 'secure-port': '0' }).port).toBe(0);
  });

  it.each([
    [{ 'secure-port': '65536' }, /--secure-port must be an integer from 0 to 65535/],
    [{ 'secure-port': 'https' }, /--secure-port must be an integer/],
    [{ 'bind-address': 'localhost' }, /--bind-address must be an IP address/],
    [{ 'tls-cert-file': '/x.crt' }, /--tls-cert-file and --tls-private-key-file go together/],
    [
      { 'authorization-always-allow-paths': 'metrics' },
      /--authorization-always-allow-paths takes paths/,
    ],
  ])('refuses %j with a usage error', (flags, why) => {
    expect(() => readSecureServing(flags)).toThrow(why);
  });

  it('takes the always-allowed paths as given (empty: none)', () => {
    expect(
      readSecureServing({ 'authorization-always-allow-paths': '/readyz' }).alwaysAllowPaths,
    ).toEqual(['/readyz']);
    expect(readSecureServing({ 'authorization-always-allow-paths': '' }).alwaysAllowPaths).toEqual(
      [],
    );
  });
});

describe('checkPlainBindAddress', () => {
  it.each(['0', '127.0.0.1:10251', '127.0.0.2:0', '[::1]:0', 'localhost:9000'])(
    'accepts %j (off or loopback)',
    (address) => {
      expect(() => checkPlainBindAddress(address)).not.toThrow();
    },
  );

  it.each(['0.0.0.0:10251', ':10251', '[::]:10251', '10.0.0.5:10251', 'berth.example:80'])(
    'refuses %j: unauthenticated plain HTTP is never served beyond loopback',
    (address) => {
      expect(() => checkPlainBindAddress(address)).toThrow(
        /--metrics-bind-address serves \/metrics over plain HTTP without authentication, so it takes only a loopback address/,
      );
    },
  );

  it('still explains a malformed address', () => {
    expect(() => checkPlainBindAddress('localhost')).toThrow(
      /--metrics-bind-address must be HOST:PORT/,
    );
  });
});

describe('servingCert', () => {
  it('makes a self-signed certificate for localhost, the host name and loopback, valid a year', () => {
    const made = servingCert(readSecureServing({ 'bind-address': '10.1.2.3' }), 'berth-7f9c', now);
    const x509 = new X509Certificate(made.cert);
    expect(x509.subject).toBe('CN=berth@1795845600');
    expect(x509.subjectAltName).toBe(
      'DNS:localhost, DNS:berth-7f9c, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.1.2.3',
    );
    expect(new Date(x509.validFrom).toISOString()).toBe('2026-11-28T05:00:00.000Z');
    expect(new Date(x509.validTo).toISOString()).toBe('2027-11-28T06:00:00.000Z');
  });

  it('reads the given files, and refuses unreadable, malformed or mismatched ones by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-tls-'));
    const one = selfSignedCert({
      commonName: 'a',
      hosts: ['localhost'],
      notBefore: now,
      notAfter: now,
    });
    const two = selfSignedCert({
      commonName: 'b',
      hosts: ['localhost'],
      notBefore: now,
      notAfter: now,
    });
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const flags = (cert: string, key: string) =>
      readSecureServing({ 'tls-cert-file': cert, 'tls-private-key-file': key });
    const cert = file('tls.crt', one.cert);
    const key = file('tls.key', one.key);
    expect(servingCert(flags(cert, key), 'h', now)).toEqual(one);
    expect(() => servingCert(flags(join(dir, 'none.crt'), key), 'h', now)).toThrow(
      /--tls-cert-file .*none\.crt: cannot read it \(ENOENT\)/,
    );
    expect(() => servingCert(flags(file('bad.crt', 'hello'), key), 'h', now)).toThrow(
      /--tls-cert-file .*bad\.crt: not a PEM certificate/,
    );
    expect(() => servingCert(flags(cert, file('bad.key', 'hello')), 'h', now)).toThrow(
      /--tls-private-key-file .*bad\.key: not a PEM private key/,
    );
    expect(() => servingCert(flags(cert, file('other.key', two.key)), 'h', now)).toThrow(
      /other\.key is not the key of --tls-cert-file/,
    );
  });
});
