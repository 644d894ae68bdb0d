// Tests the parsing of --metrics-bind-address values.
import { describe, expect, it } from 'vitest';
import { formatBindAddress, parseBindAddress } from './bind-address.ts';

describe('parseBindAddress', () => {
  it.each([
    ['an IPv4 address and port', '0.0.0.0:10251', { host: '0.0.0.0', port: 10251 }],
    ['loopback with any free port', '127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['a bracketed IPv6 address', '[::1]:0', { host: '::1', port: 0 }],
    ['every IPv6 interface', '[::]:10259', { host: '::', port: 10259 }],
    ['no host (every interface)', ':10251', { host: '', port: 10251 }],
    ['a host name', 'localhost:8080', { host: 'localhost', port: 8080 }],
    ['the highest port', 'metrics.example.com:65535', { host: 'metrics.example.com', port: 65535 }],
  ])('accepts %s: %s', (_what, value, expected) => {
    expect(parseBindAddress(value)).toEqual(expected);
  });

  it('takes 0 as "the server is disabled"', () => {
    expect(parseBindAddress('0')).toBeUndefined();
  });

  it.each([
    ['an empty value', '', /has no port/],
    ['a bare port', '10251', /has no port/],
    ['a host without a port', 'localhost', /has no port/],
    ['an empty port', '127.0.0.1:', /has port "", not 0–65535/],
    ['a port out of range', '127.0.0.1:65536', /not 0–65535/],
    ['a negative port', '127.0.0.1:-1', /not 0–65535/],
    ['a port with letters', '127.0.0.1:http', /not 0–65535/],
    ['a bad IPv4 address', '999.1.1.1:80', /not an IPv4 address/],
    ['an IPv6 address without brackets', '::1:80', /without \[brackets\]/],
    ['brackets around something else', '[nope]:80', /not an IPv6 address/],
    ['a host with a space', 'my host:80', /not a host name or address/],
    ['garbage', 'http://0.0.0.0:80', /not a host name or address/],
  ])('rejects %s (%j) with a message naming the flag', (_what, value, why) => {
    expect(() => parseBindAddress(value)).toThrow(/^--metrics-bind-address must be HOST:PORT/);
    expect(() => parseBindAddress(value)).toThrow(why);
  });

  it('writes an address back in the same form', () => {
    expect(formatBindAddress({ host: '::1', port: 0 })).toBe('[::1]:0');
    expect(formatBindAddress({ host: '127.0.0.1', port: 80 })).toBe('127.0.0.1:80');
  });
});
