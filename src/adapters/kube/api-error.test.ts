// Tests the reduction of client-node's error shapes to one line and a code.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeApiError, describeStatus, oneLine } from './api-error.ts';

describe('describeApiError', () => {
  it('reads the Status JSON text that ApiException carries as its body', () => {
    const body = JSON.stringify({
      kind: 'Status',
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n"',
    });
    // ApiException's own message is multi-line and embeds headers: never show it.
    const err = new ApiException(409, 'Unknown API Status Code!', body, { 'x-a': 'b' });
    expect(describeApiError(err)).toEqual({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n"',
      network: false,
    });
  });

  it('copes with an ApiException without a body (client-node drops it for 401)', () => {
    expect(describeApiError(new ApiException(401, 'Unauthorized', undefined, {}))).toMatchObject({
      code: 401,
      message: '401 Unauthorized',
    });
  });

  it('copes with a non-JSON body (e.g. from a proxy)', () => {
    const err = new ApiException(502, 'x', '<html>\nBad gateway</html>', {});
    expect(describeApiError(err)).toMatchObject({ code: 502, message: '<html>' });
  });

  it('reads the statusCode that Watch puts on its start errors', () => {
    const err = Object.assign(new Error('Gone'), { statusCode: 410 });
    expect(describeApiError(err)).toEqual({
      code: 410,
      reason: 'Gone',
      message: '410 Gone',
      network: false,
    });
  });

  it('keeps only the reason of a node-fetch system error', () => {
    const err = Object.assign(
      new Error('request to https://h:1/api failed, reason: getaddrinfo ENOTFOUND h'),
      { name: 'FetchError', type: 'system', code: 'ENOTFOUND' },
    );
    expect(describeApiError(err)).toEqual({
      code: undefined,
      reason: undefined,
      message: 'getaddrinfo ENOTFOUND h',
      network: true,
    });
  });

  it('never throws on odd values', () => {
    for (const odd of [undefined, null, 42, 'text', {}, [], Object.create(null)]) {
      expect(() => describeApiError(odd)).not.toThrow();
      expect(describeApiError(odd).message).not.toContain('\n');
    }
  });
});

describe('describeStatus', () => {
  it('describes a watch ERROR event object', () => {
    expect(
      describeStatus({
        kind: 'Status',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version: 1 (9)',
      }),
    ).toMatchObject({ code: 410, reason: 'Expired', message: 'too old resource version: 1 (9)' });
  });

  it('makes something readable of an empty Status', () => {
    expect(describeStatus({}).message).toBe('unknown error');
  });
});

describe('oneLine', () => {
  it('keeps the first line and cuts long ones', () => {
    expect(oneLine('a\nb')).toBe('a');
    expect(oneLine('x'.repeat(600))).toHaveLength(500);
  });
});
