// Parses `--metrics-bind-address`: HOST:PORT, [IPv6]:PORT, :PORT (every interface), or 0 (off).
import { isIPv4, isIPv6 } from 'node:net';

/** Where the status server listens; host '' means every interface. */
export interface BindAddress {
  host: string;
  port: number;
}

const hostname =
  /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

function usage(value: string, why: string): Error {
  return new Error(
    `--metrics-bind-address must be HOST:PORT (e.g. 127.0.0.1:10251, [::1]:0, localhost:10251) ` +
      `or 0 to disable the server; ${JSON.stringify(value)} ${why}`,
  );
}

function parsePort(value: string, port: string): number {
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    throw usage(value, `has port ${JSON.stringify(port)}, not 0–65535`);
  return Number(port);
}

function checkHost(value: string, host: string): string {
  if (host === '') return host;
  if (/^[\d.]+$/.test(host)) {
    if (!isIPv4(host)) throw usage(value, `has ${JSON.stringify(host)}, not an IPv4 address`);
    return host;
  }
  if (host.includes(':') && !host.includes('/'))
    throw usage(value, 'has an IPv6 address without [brackets]');
  if (!hostname.test(host) || host.length > 253)
    throw usage(value, `has ${JSON.stringify(host)}, not a host name or address`);
  return host;
}

/**
 * The address to listen on, or undefined for `0` (the server is disabled, as kube's
 * `--bind-address`-style flags take it). Port 0 asks for any free port. Throws an Error
 * explaining the expected form for anything else.
 */
export function parseBindAddress(value: string): BindAddress | undefined {
  if (value === '0') return undefined;
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(value);
  if (bracketed !== null) {
    const host = bracketed[1] ?? '';
    if (!isIPv6(host)) throw usage(value, `has [${host}], not an IPv6 address`);
    return { host, port: parsePort(value, bracketed[2] ?? '') };
  }
  const colon = value.lastIndexOf(':');
  if (colon < 0) throw usage(value, 'has no port');
  const host = checkHost(value, value.slice(0, colon));
  return { host, port: parsePort(value, value.slice(colon + 1)) };
}

/** The bind address written back as HOST:PORT (IPv6 in brackets), for messages. */
export function formatBindAddress({ host, port }: BindAddress): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
