// Tests the self-signed serving certificate with node's own X.509 parser and a real TLS handshake.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { selfSignedCert } from './self-signed-cert.ts';

const notBefore = new Date('2026-11-28T05:00:00Z');
const notAfter = new Date('2027-11-28T06:00:00Z');
const opts = {
  commonName: 'berth@1795842000',
  hosts: ['localhost', 'berth-7d9f.example', '127.0.0.1', '::1', 'fd00::1:2'],
  notBefore,
  notAfter,
};
const made = selfSignedCert(opts);
const x509 = new X509Certificate(made.cert);

describe('selfSignedCert', () => {
  it('is a version 3 certificate signed by its own key, naming itself as issuer', () => {
    expect(x509.subject).toBe('CN=berth@1795842000');
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(x509.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    expect(x509.ca).toBe(true);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('is valid from notBefore to notAfter (UTCTime, to the second)', () => {
    expect(new Date(x509.validFrom).toISOString()).toBe(notBefore.toISOString());
    expect(new Date(x509.validTo).toISOString()).toBe(notAfter.toISOString());
  });

  it('writes years from 2050 as GeneralizedTime', () => {
    const late = new X509Certificate(
      selfSignedCert({
        commonName: 'x',
        hosts: ['localhost'],
        notBefore,
        notAfter: new Date('2051-01-02T03:04:05Z'),
      }).cert,
    );
    expect(new Date(late.validTo).toISOString()).toBe('2051-01-02T03:04:05.000Z');
  });

  it('names every host as a DNS name or an IP address', () => {
    expect(x509.subjectAltName).toBe(
      'DNS:localhost, DNS:berth-7d9f.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:1:2',
    );
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkHost('other.example')).toBeUndefined();
  });

  it('serves TLS that a client pinning the certificate accepts', async () => {
    const server = createServer({ cert: made.cert, key: made.key }, (s) => s.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const socket = connect({ port, host: '127.0.0.1', ca: made.cert, servername: 'localhost' });
      await once(socket, 'secureConnect');
      expect(socket.authorized).toBe(true);
      socket.destroy();
    } finally {
      server.close();
    }
  });

  it('encodes every serial as a minimal positive INTEGER: a random first byte of 0x00 once made one certificate in 256 unreadable ("illegal padding")', () => {
    for (const first of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
      const bytes = Buffer.alloc(16, 0x10);
      bytes[0] = first;
      const cert = selfSignedCert({ ...opts, serialBytes: bytes });
      const parsed = new X509Certificate(cert.cert);
      const serial = Buffer.from(parsed.serialNumber, 'hex');
      expect(serial.length).toBe(16);
      expect(serial[0]).toBeGreaterThanOrEqual(0x40);
      expect(serial[0]).toBeLessThan(0x80);
    }
  });

  it('makes a fresh key and serial each time', () => {
    const again = new X509Certificate(
      selfSignedCert({ commonName: 'x', hosts: ['localhost'], notBefore, notAfter }).cert,
    );
    expect(again.serialNumber).not.toBe(x509.serialNumber);
    expect(again.fingerprint256).not.toBe(x509.fingerprint256);
  });
});
