// Decides whether a request to the secure status server may be served: always-allowed paths, bearer token, access review.
import type { Logger } from 'pino';
import type { DelegatedAuth } from './delegated-auth.ts';

/** kube's `--authorization-always-allow-paths` default for kube-scheduler. */
export const defaultAlwaysAllowPaths: readonly string[] = ['/healthz', '/readyz', '/livez'];

/** How requests are checked: paths served to anyone, and the reviewer for the rest. */
export interface RequestAuthOptions {
  /** Paths served without a token; a trailing `*` matches every path with that prefix. */
  alwaysAllowPaths: readonly string[];
  auth: DelegatedAuth;
  logger: Logger;
}

/** A refusal: the HTTP status and a kube-style Status body (JSON). */
export interface Refusal {
  status: 401 | 403 | 500;
  body: string;
}

/**
 * Checks `--authorization-always-allow-paths` entries as kube does: each is a path, or a
 * prefix ending in `*`; anything else (no leading slash, a `*` elsewhere) is an error.
 */
export function parseAlwaysAllowPaths(value: string): string[] {
  const paths = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of paths) {
    if (!p.startsWith('/') || p.slice(0, -1).includes('*'))
      throw new Error(
        `--authorization-always-allow-paths takes paths such as /healthz or /debug/* ` +
          `(a * only at the end), got ${JSON.stringify(p)}`,
      );
  }
  return paths;
}

/** Whether `path` is served without authentication or authorization. */
export function isAlwaysAllowed(paths: readonly string[], path: string): boolean {
  return paths.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path));
}

/** The token of `Authorization: Bearer TOKEN` (scheme case-insensitive), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

function status(code: 401 | 403 | 500, reason: string, message: string): Refusal {
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
  return { status: code, body: `${JSON.stringify({ ...body, message, reason, code })}\n` };
}

const unauthorized = status(401, 'Unauthorized', 'Unauthorized');

/**
 * Undefined when the request may be served; else the refusal: 401 without a bearer token,
 * with a token the API server does not accept, or when the TokenReview fails (as kube);
 * 403 when the SubjectAccessReview for `verb` on `path` denies it; 500 when that review
 * fails. Never throws.
 */
export async function checkRequest(
  opts: RequestAuthOptions,
  path: string,
  method: string,
  authorization: string | undefined,
): Promise<Refusal | undefined> {
  if (isAlwaysAllowed(opts.alwaysAllowPaths, path)) return undefined;
  const token = bearerToken(authorization);
  if (token === undefined) return unauthorized;
  let who: Awaited<ReturnType<DelegatedAuth['authenticate']>>;
  try {
    who = await opts.auth.authenticate(token);
  } catch (error) {
    opts.logger.error({ err: error }, 'TokenReview failed; answering 401');
    return unauthorized;
  }
  if (!who.authenticated) {
    opts.logger.debug({ reason: who.reason, path }, 'token not authenticated');
    return unauthorized;
  }
  const verb = method.toLowerCase();
  try {
    const access = await opts.auth.authorize(who.user, path, verb);
    if (access.allowed) return undefined;
    const why = access.reason === '' ? '' : `: ${access.reason}`;
    const message = `forbidden: User ${JSON.stringify(who.user.username)} cannot ${verb} path ${JSON.stringify(path)}${why}`;
    return status(403, 'Forbidden', message);
  } catch (error) {
    opts.logger.error({ err: error, path }, 'SubjectAccessReview failed; answering 500');
    return status(500, 'InternalError', 'Internal Server Error: the access review failed');
  }
}
