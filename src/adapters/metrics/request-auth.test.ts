// Tests the secure status server's request check: always-allowed paths, bearer parsing, 401/403/500 answers.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DelegatedAuth } from './delegated-auth.ts';
import {
  bearerToken,
  checkRequest,
  defaultAlwaysAllowPaths,
  isAlwaysAllowed,
  parseAlwaysAllowPaths,
} from './request-auth.ts';

const logger = pino({ level: 'silent' });

/** Tokens `good` (may get /metrics), `reader` (authenticated, no grant); anything else is invalid. */
function reviewer(opts: { tokenReviewFails?: boolean; accessReviewFails?: boolean } = {}) {
  const posts: string[] = [];
  const post = async (path: string, text: string) => {
    posts.push(path);
    const body = JSON.parse(text) as {
      spec: {
        token?: string;
        user?: string;
        nonResourceAttributes?: { path: string; verb: string };
      };
    };
    if (path.endsWith('tokenreviews')) {
      if (opts.tokenReviewFails) throw new Error('503 the API server is shutting down');
      const t = body.spec.token;
      if (t !== 'good' && t !== 'reader') return '{"status":{"authenticated":false}}';
      return JSON.stringify({ status: { authenticated: true, user: { username: `user-${t}` } } });
    }
    if (opts.accessReviewFails) throw new Error('socket hang up');
    const a = body.spec.nonResourceAttributes;
    const allowed = body.spec.user === 'user-good' && a?.path === '/metrics' && a.verb === 'get';
    return JSON.stringify({ status: { allowed, reason: allowed ? '' : 'no RBAC policy matched' } });
  };
  const auth = new DelegatedAuth({ post, now: () => 0 });
  return { posts, access: { alwaysAllowPaths: defaultAlwaysAllowPaths, auth, logger } };
}

const statusOf = async (
  r: ReturnType<typeof reviewer>,
  path: string,
  header: string | undefined,
  method = 'GET',
) => {
  const refusal = await checkRequest(r.access, path, method, header);
  return refusal === undefined ? 200 : refusal.status;
};

describe('checkRequest', () => {
  it('serves the health paths to anyone without asking the API server', async () => {
    const r = reviewer();
    for (const path of ['/healthz', '/readyz', '/livez'])
      expect(await statusOf(r, path, undefined)).toBe(200);
    expect(r.posts).toEqual([]);
  });

  it('answers 401 without a token, and for a token the API server does not accept', async () => {
    const r = reviewer();
    expect(await statusOf(r, '/metrics', undefined)).toBe(401);
    expect(await statusOf(r, '/metrics', 'Basic dXNlcjpwYXNz')).toBe(401);
    expect(r.posts).toEqual([]);
    expect(await statusOf(r, '/metrics', 'Bearer forged')).toBe(401);
    const refusal = await checkRequest(r.access, '/metrics', 'GET', undefined);
    expect(JSON.parse(refusal?.body ?? '')).toMatchObject({
      kind: 'Status',
      code: 401,
      reason: 'Unauthorized',
    });
  });

  it('answers 403 naming the user when the access review denies, 200 when it allows', async () => {
    const r = reviewer();
    expect(await statusOf(r, '/metrics', 'Bearer good')).toBe(200);
    expect(await statusOf(r, '/metrics', 'bearer  good ')).toBe(200);
    const refusal = await checkRequest(r.access, '/metrics', 'GET', 'Bearer reader');
    expect(refusal?.status).toBe(403);
    expect(JSON.parse(refusal?.body ?? '').message).toBe(
      'forbidden: User "user-reader" cannot get path "/metrics": no RBAC policy matched',
    );
    expect(await statusOf(r, '/metrics', 'Bearer good', 'POST')).toBe(403);
  });

  it('answers 401 when the TokenReview fails, 500 when the access review fails (as kube)', async () => {
    expect(await statusOf(reviewer({ tokenReviewFails: true }), '/metrics', 'Bearer good')).toBe(
      401,
    );
    expect(await statusOf(reviewer({ accessReviewFails: true }), '/metrics', 'Bearer good')).toBe(
      500,
    );
  });

  it('checks unknown paths too, so a scan learns nothing without a token', async () => {
    expect(await statusOf(reviewer(), '/debug/pprof', undefined)).toBe(401);
  });
});

describe('always-allowed paths and bearer tokens', () => {
  it('matches exact paths and trailing-* prefixes', () => {
    const paths = parseAlwaysAllowPaths('/healthz, /debug/*,,');
    expect(paths).toEqual(['/healthz', '/debug/*']);
    expect(isAlwaysAllowed(paths, '/healthz')).toBe(true);
    expect(isAlwaysAllowed(paths, '/healthz/ping')).toBe(false);
    expect(isAlwaysAllowed(paths, '/debug/pprof')).toBe(true);
    expect(isAlwaysAllowed(paths, '/metrics')).toBe(false);
    expect(parseAlwaysAllowPaths('')).toEqual([]);
  });

  it.each(['healthz', '/a*b', '*'])('rejects %j with a message naming the flag', (bad) => {
    expect(() => parseAlwaysAllowPaths(bad)).toThrow(
      /^--authorization-always-allow-paths takes paths/,
    );
  });

  it('reads the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('BEARER abc')).toBe('abc');
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
