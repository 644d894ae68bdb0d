// Makes the in-memory self-signed serving certificate the secure status server uses when no --tls-cert-file is given.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface ServingCert {
  cert: string;
  key: string;
}

/** What the certificate names and when it is valid. */
export interface SelfSignedOptions {
  /** Subject and issuer common name, e.g. `berth@1767225600` (kube's `kube-scheduler@<unix>`). */
  commonName: string;
  /** DNS names and IP addresses for the subjectAltName extension. */
  hosts: readonly string[];
  /** When it starts to be valid (kube back-dates by an hour for clock skew). */
  notBefore: Date;
  /** When it stops being valid. */
  notAfter: Date;
  /** The serial's 16 random bytes (default: fresh from the CSPRNG; tests pass their own). */
  serialBytes?: Buffer;
}

/**
 * A positive serial number whose DER INTEGER is minimal: the first byte has its top bit
 * clear (positive) and a bit below it set, so it is never a leading zero, which X.509
 * parsers refuse ("illegal padding") when the next byte is below 0x80.
 */
export function certificateSerial(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  return serial;
}

/** A DER TLV: tag, definite length, contents. */
function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  if (n < 0x80) return Buffer.concat([Buffer.from([tag, n]), body]);
  const len: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | len.length, ...len]), body]);
}

const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const groups: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128))
      groups.unshift(0x80 | (v & 0x7f));
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // Expand "::" into the missing zero groups, then write 8 big-endian 16-bit groups.
  const [head = '', tail] = ip.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

function subjectAltName(hosts: readonly string[]): Buffer {
  const names = hosts.map((h) =>
    isIPv4(h) || (isIPv6(h) && !h.includes('.'))
      ? tlv(0x87, ipBytes(h))
      : tlv(0x82, Buffer.from(h, 'ascii')),
  );
  return sequence(...names);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

function name(commonName: string): Buffer {
  return sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
}

/**
 * A self-signed ECDSA P-256 certificate for `hosts`, as kube's `--cert-dir`-less serving does
 * (its own CA: basicConstraints CA, keyUsage digitalSignature + keyCertSign, extKeyUsage
 * serverAuth). Only for clients that skip verification or pin this very certificate.
 */
export function selfSignedCert(opts: SelfSignedOptions): ServingCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = certificateSerial(opts.serialBytes ?? randomBytes(16));
  const keyId = createHash('sha1').update(spki).digest();
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // version 3
    tlv(0x02, serial),
    ecdsaWithSha256,
    name(opts.commonName),
    sequence(time(opts.notBefore), time(opts.notAfter)),
    name(opts.commonName),
    spki,
    tlv(
      0xa3,
      sequence(
        extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0x84]))), // keyUsage
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
        extension('2.5.29.19', true, sequence(tlv(0x01, Buffer.from([0xff])))), // CA
        extension('2.5.29.14', false, tlv(0x04, keyId)), // subjectKeyIdentifier
        extension('2.5.29.17', false, subjectAltName(opts.hosts)),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: String(privateKey.export({ type: 'pkcs8', format: 'pem' })),
  };
}
