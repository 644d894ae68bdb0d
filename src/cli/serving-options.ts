// `berth run`'s serving flags: the HTTPS status port as kube-scheduler's (--secure-port, --bind-address, --tls-*), and the loopback-only plain HTTP opt-in.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP, isIPv4 } from 'node:net';
import { formatBindAddress, parseBindAddress } from '../adapters/metrics/bind-address.ts';
import {
  defaultAlwaysAllowPaths,
  parseAlwaysAllowPaths,
} from '../adapters/metrics/request-auth.ts';
import { type ServingCert, selfSignedCert } from '../adapters/metrics/self-signed-cert.ts';
import { intFlag } from './args.ts';
import { CliError } from './errors.ts';

/** The secure (HTTPS, authenticated) status server's options; `port` 0 means none. */
export interface SecureServingOptions {
  /** `--bind-address`: an IP address; `0.0.0.0` or `::` (the default) means every interface. */
  bindAddress: string;
  /** `--secure-port` (default 10259, kube-scheduler's; 0 disables the HTTPS server). */
  port: number;
  /** `--tls-cert-file` and `--tls-private-key-file`, both or neither. */
  certFile: string | undefined;
  keyFile: string | undefined;
  /** `--authorization-always-allow-paths` (default /healthz,/readyz,/livez). */
  alwaysAllowPaths: string[];
}

/** kube-scheduler's default secure port. */
export const defaultSecurePort = 10259;

/** The flags `readSecureServing` reads, as `parseFlags` options. */
export const servingFlags = {
  'secure-port': { type: 'string' },
  'bind-address': { type: 'string' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'authorization-always-allow-paths': { type: 'string' },
} as const;

/** Reads and checks the secure serving flags (usage errors, exit code 2). */
export function readSecureServing(
  flags: Partial<Record<string, string | boolean | undefined>>,
): SecureServingOptions {
  const text = (name: string) => {
    const v = flags[name];
    return typeof v === 'string' ? v : undefined;
  };
  const port = intFlag(text('secure-port'), 'secure-port', defaultSecurePort, 0, 65535);
  const bindAddress = (text('bind-address') ?? '0.0.0.0').trim();
  if (bindAddress !== '' && isIP(bindAddress) === 0)
    throw new CliError(
      `--bind-address must be an IP address (0.0.0.0 or :: for every interface), got ${JSON.stringify(bindAddress)}`,
      2,
    );
  const certFile = text('tls-cert-file');
  const keyFile = text('tls-private-key-file');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new CliError('--tls-cert-file and --tls-private-key-file go together', 2);
  const allow = text('authorization-always-allow-paths');
  let alwaysAllowPaths = [...defaultAlwaysAllowPaths];
  try {
    if (allow !== undefined) alwaysAllowPaths = parseAlwaysAllowPaths(allow);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  return { bindAddress, port, certFile, keyFile, alwaysAllowPaths };
}

/** The HOST:PORT the HTTPS server listens on (host '' for every interface, both families). */
export function secureListenAddress(o: SecureServingOptions): string {
  const every = o.bindAddress === '' || o.bindAddress === '0.0.0.0' || o.bindAddress === '::';
  return formatBindAddress({ host: every ? '' : o.bindAddress, port: o.port });
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/**
 * Checks `--metrics-bind-address` (plain HTTP, no authentication): `0` (off, the default) or
 * a loopback address; anything that other hosts could reach is refused, so /metrics is never
 * served to the network without a token. Throws a usage error naming the flag.
 */
export function checkPlainBindAddress(address: string): void {
  let bind: ReturnType<typeof parseBindAddress>;
  try {
    bind = parseBindAddress(address);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  if (bind === undefined || isLoopback(bind.host)) return;
  throw new CliError(
    `--metrics-bind-address serves /metrics over plain HTTP without authentication, so it ` +
      `takes only a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT) or 0; got ` +
      `${JSON.stringify(address)}. Scrapers on other hosts use the HTTPS port ` +
      `(--secure-port, default ${defaultSecurePort}) with a bearer token.`,
    2,
  );
}

/** Reads a PEM certificate and key pair, checking they parse and belong together. */
function readCertFiles(certFile: string, keyFile: string): ServingCert {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new CliError(`${flag} ${file}: cannot read it (${code})`);
    }
  };
  const cert = read(certFile, '--tls-cert-file');
  const key = read(keyFile, '--tls-private-key-file');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new CliError(
      `--tls-cert-file ${certFile}: not a PEM certificate (${(error as Error).message})`,
    );
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new CliError(
      `--tls-private-key-file ${keyFile}: not a PEM private key (${(error as Error).message})`,
    );
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new CliError(
      `--tls-private-key-file ${keyFile} is not the key of --tls-cert-file ${certFile}`,
    );
  return { cert, key };
}

/**
 * The serving certificate: the given files, else a fresh self-signed one made in memory at
 * start-up for localhost, `host`, the loopback addresses and a specific bind address, valid
 * from an hour before `now` for a year (as kube's `--cert-dir`-less default).
 */
export function servingCert(o: SecureServingOptions, host: string, now: Date): ServingCert {
  if (o.certFile !== undefined && o.keyFile !== undefined)
    return readCertFiles(o.certFile, o.keyFile);
  const specific = secureListenAddress(o).startsWith(':') ? [] : [o.bindAddress];
  const hosts = [...new Set(['localhost', host, '127.0.0.1', '::1', ...specific])];
  const unix = Math.floor(now.getTime() / 1000);
  return selfSignedCert({
    commonName: `berth@${unix}`,
    hosts,
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + 365 * 24 * 3_600_000),
  });
}
