// Delegated authentication (TokenReview) and authorization (SubjectAccessReview) for the secure status server, cached as kube's are.

import { createHash } from 'node:crypto';
import { isRecord } from '../../model/record.ts';

/** Who a token belongs to, as the TokenReview answered. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The outcome of a token: a user, or why not (the API server's own words when it gave some). */
export type Authentication =
  | { authenticated: true; user: UserInfo }
  | { authenticated: false; reason: string };

/** The outcome of a SubjectAccessReview. */
export interface Authorization {
  allowed: boolean;
  reason: string;
}

/** POSTs a JSON body to an API path and resolves with the 2xx answer's text (DirectHttp.request). */
export type ReviewPost = (path: string, body: string) => Promise<string>;

/** What DelegatedAuth is built from. */
export interface DelegatedAuthOptions {
  post: ReviewPost;
  /** A monotonic clock in milliseconds (performance.now in production). */
  now: () => number;
  /** How long a token's answer (authenticated or not) is reused; kube's default 10 s. */
  tokenTtlMs?: number;
  /** How long an "allowed" SubjectAccessReview is reused; kube's default 10 s. */
  allowTtlMs?: number;
  /** How long a "denied" SubjectAccessReview is reused; kube's default 10 s. */
  denyTtlMs?: number;
  /** Entries kept per cache before the oldest are dropped. */
  maxEntries?: number;
}

const tokenReviews = '/apis/authentication.k8s.io/v1/tokenreviews';
const subjectAccessReviews = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

interface Entry<T> {
  until: number;
  value: Promise<T>;
}

/** A small TTL cache of promises: concurrent askers share one request; rejections are not kept. */
class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly now: () => number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, load: () => Promise<T>, ttl: (value: T) => number): Promise<T> {
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && at < hit.until) return hit.value;
    if (hit !== undefined) this.entries.delete(key);
    const value = load();
    // In flight: shared until it settles; then kept for its own TTL from the time it settled.
    const entry: Entry<T> = { until: Number.POSITIVE_INFINITY, value };
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    value.then(
      (v) => {
        entry.until = this.now() + ttl(v);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

/** A review answer's `status` object ({} when absent), or undefined when the text is not JSON. */
function reviewStatus(text: string): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecord(body) && isRecord(body.status) ? body.status : {};
}

/** Reads a TokenReview answer; anything malformed is "not authenticated", never a crash. */
export function readTokenReview(text: string): Authentication {
  const status = reviewStatus(text);
  if (status === undefined)
    return { authenticated: false, reason: 'the TokenReview answer is not JSON' };
  const user = isRecord(status.user) ? status.user : {};
  if (status.authenticated !== true || typeof user.username !== 'string' || user.username === '') {
    const why = typeof status.error === 'string' && status.error !== '' ? status.error : '';
    return { authenticated: false, reason: why || 'the token is not valid' };
  }
  const groups = stringList(user.groups);
  const extra = isRecord(user.extra)
    ? Object.fromEntries(
        Object.entries(user.extra).flatMap(([k, v]) => {
          const list = stringList(v);
          return list === undefined ? [] : [[k, list]];
        }),
      )
    : undefined;
  return {
    authenticated: true,
    user: {
      username: user.username,
      ...(typeof user.uid === 'string' && user.uid !== '' ? { uid: user.uid } : {}),
      ...(groups === undefined ? {} : { groups }),
      ...(extra === undefined ? {} : { extra }),
    },
  };
}

/** Reads a SubjectAccessReview answer; anything malformed is "denied". */
export function readSubjectAccessReview(text: string): Authorization {
  const status = reviewStatus(text);
  if (status === undefined)
    return { allowed: false, reason: 'the SubjectAccessReview answer is not JSON' };
  const reason = typeof status.reason === 'string' ? status.reason : '';
  return { allowed: status.allowed === true && status.denied !== true, reason };
}

/**
 * Asks the API server who a bearer token is (TokenReview) and whether that user may `verb`
 * a non-resource `path` (SubjectAccessReview), as kube's delegating authenticator and
 * authorizer do. Answers are cached on the monotonic clock (token: `tokenTtlMs` for both
 * outcomes; access: `allowTtlMs` / `denyTtlMs`); a failed API call rejects and is not
 * cached, so the next request asks again. Tokens are kept only as SHA-256 digests.
 */
export class DelegatedAuth {
  private readonly tokens: TtlCache<Authentication>;
  private readonly access: TtlCache<Authorization>;
  private readonly tokenTtlMs: number;
  private readonly allowTtlMs: number;
  private readonly denyTtlMs: number;

  constructor(private readonly opts: DelegatedAuthOptions) {
    const max = opts.maxEntries ?? 1024;
    this.tokens = new TtlCache(opts.now, max);
    this.access = new TtlCache(opts.now, max);
    this.tokenTtlMs = opts.tokenTtlMs ?? 10_000;
    this.allowTtlMs = opts.allowTtlMs ?? 10_000;
    this.denyTtlMs = opts.denyTtlMs ?? 10_000;
  }

  /** Who `token` is; rejects when the TokenReview could not be made. */
  authenticate(token: string): Promise<Authentication> {
    const key = createHash('sha256').update(token).digest('base64');
    return this.tokens.get(
      key,
      async () => {
        const review = {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        };
        return readTokenReview(await this.opts.post(tokenReviews, JSON.stringify(review)));
      },
      () => this.tokenTtlMs,
    );
  }

  /** Whether `user` may `verb` the non-resource `path`; rejects when the review could not be made. */
  authorize(user: UserInfo, path: string, verb: string): Promise<Authorization> {
    const spec = {
      user: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      ...(user.groups === undefined ? {} : { groups: user.groups }),
      ...(user.extra === undefined ? {} : { extra: user.extra }),
      nonResourceAttributes: { path, verb },
    };
    return this.access.get(
      JSON.stringify(spec),
      async () => {
        const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec };
        return readSubjectAccessReview(
          await this.opts.post(subjectAccessReviews, JSON.stringify(review)),
        );
      },
      (a) => (a.allowed ? this.allowTtlMs : this.denyTtlMs),
    );
  }
}
