// Tests TokenReview/SubjectAccessReview delegation: request bodies, answers read defensively, TTL caching on an injected clock.
import { describe, expect, it } from 'vitest';
import { DelegatedAuth, readSubjectAccessReview, readTokenReview } from './delegated-auth.ts';

/** A fake API server: records each POST and answers with `answer(path, body)`. */
function fakeApi(answer: (path: string, body: Record<string, unknown>) => unknown) {
  const calls: { path: string; body: Record<string, unknown> }[] = [];
  const post = async (path: string, text: string) => {
    const body = JSON.parse(text) as Record<string, unknown>;
    calls.push({ path, body });
    const a = answer(path, body);
    if (a instanceof Error) throw a;
    return typeof a === 'string' ? a : JSON.stringify(a);
  };
  return { calls, post };
}

const alice = {
  status: {
    authenticated: true,
    user: {
      username: 'system:serviceaccount:monitoring:prometheus',
      uid: 'u-1',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['prom-0'] },
    },
  },
};

describe('readTokenReview', () => {
  it('reads the user of an authenticated review', () => {
    expect(readTokenReview(JSON.stringify(alice))).toEqual({
      authenticated: true,
      user: alice.status.user,
    });
  });

  it.each([
    ['not JSON', 'nope', 'the TokenReview answer is not JSON'],
    ['no status', '{}', 'the token is not valid'],
    [
      'authenticated false, with the server’s error',
      '{"status":{"authenticated":false,"error":"token expired"}}',
      'token expired',
    ],
    [
      'authenticated but no username',
      '{"status":{"authenticated":true,"user":{}}}',
      'the token is not valid',
    ],
    [
      'authenticated as a string',
      '{"status":{"authenticated":"true","user":{"username":"x"}}}',
      'the token is not valid',
    ],
  ])('treats %s as not authenticated', (_what, text, reason) => {
    expect(readTokenReview(text)).toEqual({ authenticated: false, reason });
  });

  it('drops malformed groups and extra values instead of passing them on', () => {
    const text = JSON.stringify({
      status: {
        authenticated: true,
        user: { username: 'bob', groups: [1], extra: { ok: ['a'], bad: 'b' } },
      },
    });
    expect(readTokenReview(text)).toEqual({
      authenticated: true,
      user: { username: 'bob', extra: { ok: ['a'] } },
    });
  });
});

describe('readSubjectAccessReview', () => {
  it.each([
    ['allowed', '{"status":{"allowed":true}}', { allowed: true, reason: '' }],
    [
      'allowed and denied (denied wins)',
      '{"status":{"allowed":true,"denied":true}}',
      { allowed: false, reason: '' },
    ],
    [
      'not allowed, with a reason',
      '{"status":{"allowed":false,"reason":"no RBAC policy matched"}}',
      { allowed: false, reason: 'no RBAC policy matched' },
    ],
    ['garbage', '[1]', { allowed: false, reason: '' }],
    [
      'not JSON',
      '<html>',
      { allowed: false, reason: 'the SubjectAccessReview answer is not JSON' },
    ],
  ])('reads %s', (_what, text, expected) => {
    expect(readSubjectAccessReview(text)).toEqual(expected);
  });
});

describe('DelegatedAuth', () => {
  const setup = (answer: Parameters<typeof fakeApi>[0]) => {
    let now = 1_000;
    const api = fakeApi(answer);
    const auth = new DelegatedAuth({ post: api.post, now: () => now });
    return { api, auth, advance: (ms: number) => (now += ms) };
  };

  it('sends a TokenReview with the token and a SubjectAccessReview with the user and path', async () => {
    const { api, auth } = setup((path) =>
      path.includes('tokenreviews') ? alice : { status: { allowed: true } },
    );
    const who = await auth.authenticate('tok-1');
    expect(who.authenticated).toBe(true);
    if (!who.authenticated) return;
    expect(await auth.authorize(who.user, '/metrics', 'get')).toEqual({
      allowed: true,
      reason: '',
    });
    expect(api.calls).toEqual([
      {
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token: 'tok-1' },
        },
      },
      {
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: 'system:serviceaccount:monitoring:prometheus',
            uid: 'u-1',
            groups: ['system:serviceaccounts', 'system:authenticated'],
            extra: { 'authentication.kubernetes.io/pod-name': ['prom-0'] },
            nonResourceAttributes: { path: '/metrics', verb: 'get' },
          },
        },
      },
    ]);
  });

  it('reuses a token’s answer for 10 s of the monotonic clock, then asks again', async () => {
    const { api, auth, advance } = setup(() => alice);
    await auth.authenticate('tok');
    advance(9_999);
    await auth.authenticate('tok');
    expect(api.calls).toHaveLength(1);
    advance(1);
    await auth.authenticate('tok');
    expect(api.calls).toHaveLength(2);
    await auth.authenticate('other');
    expect(api.calls).toHaveLength(3);
  });

  it('caches a rejected token too, for the same 10 s', async () => {
    const { api, auth, advance } = setup(() => ({ status: { authenticated: false } }));
    expect((await auth.authenticate('bad')).authenticated).toBe(false);
    expect((await auth.authenticate('bad')).authenticated).toBe(false);
    expect(api.calls).toHaveLength(1);
    advance(10_000);
    await auth.authenticate('bad');
    expect(api.calls).toHaveLength(2);
  });

  it('shares one review between concurrent requests with the same token', async () => {
    const { api, auth } = setup(() => alice);
    await Promise.all([auth.authenticate('t'), auth.authenticate('t'), auth.authenticate('t')]);
    expect(api.calls).toHaveLength(1);
  });

  it('does not cache a failed API call: it rejects, and the next request asks again', async () => {
    let fail = true;
    const { api, auth } = setup(() => (fail ? new Error('connect ECONNREFUSED') : alice));
    await expect(auth.authenticate('t')).rejects.toThrow('ECONNREFUSED');
    fail = false;
    expect((await auth.authenticate('t')).authenticated).toBe(true);
    expect(api.calls).toHaveLength(2);
  });

  it('caches allowed and denied access reviews by their TTLs, per user, path and verb', async () => {
    let now = 0;
    let allowed = false;
    const api = fakeApi(() => ({ status: { allowed } }));
    const auth = new DelegatedAuth({
      post: api.post,
      now: () => now,
      allowTtlMs: 10_000,
      denyTtlMs: 2_000,
    });
    const bob = { username: 'bob' };
    expect((await auth.authorize(bob, '/metrics', 'get')).allowed).toBe(false);
    allowed = true;
    now = 1_999;
    expect((await auth.authorize(bob, '/metrics', 'get')).allowed).toBe(false);
    now = 2_000;
    expect((await auth.authorize(bob, '/metrics', 'get')).allowed).toBe(true);
    await auth.authorize(bob, '/metrics', 'head');
    await auth.authorize({ username: 'carol' }, '/metrics', 'get');
    expect(api.calls).toHaveLength(4);
    allowed = false;
    now = 11_999;
    expect((await auth.authorize(bob, '/metrics', 'get')).allowed).toBe(true);
    now = 12_000;
    expect((await auth.authorize(bob, '/metrics', 'get')).allowed).toBe(false);
  });

  it('keeps at most maxEntries answers, dropping the oldest', async () => {
    const api = fakeApi(() => alice);
    const auth = new DelegatedAuth({ post: api.post, now: () => 0, maxEntries: 2 });
    for (const t of ['a', 'b', 'c', 'a']) await auth.authenticate(t);
    expect(api.calls.map((c) => (c.body.spec as { token: string }).token)).toEqual([
      'a',
      'b',
      'c',
      'a',
    ]);
  });
});
