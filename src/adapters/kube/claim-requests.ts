// The ResourceClaim requests of DRA PreBind and Unreserve: paths, the claim JSON they read, and one request through the bind limiter and the fence.
import { type ApiFailure, describeApiError } from './api-error.ts';
import type { DirectHttp } from './direct-http.ts';
import type { TokenBucket } from './rate-limiter.ts';
import { isFencedWrite } from './write-fence.ts';

/** What the claim requests need from the binder: its client, limiter, timeout and stop flag. */
export interface ClaimRequester {
  http: Pick<DirectHttp, 'request'>;
  /** The bind limiter: every claim request (reads too) takes one token, as the Binding does. */
  limiter: TokenBucket;
  timeoutMs: number;
  /** True once the binder was stopped: nothing more may be sent. */
  stopped: () => boolean;
}

/** The pod the claims are reserved for. */
export interface ClaimPod {
  namespace: string;
  name: string;
  uid: string;
}

/** How a claim step failed: kube's error text (`step ns/name: api message`) and the HTTP status. */
export interface ClaimFailure {
  message: string;
  code?: number;
}

/** A claim by namespace and name, as kube's messages name it (`klog.KObj`: `ns/name`). */
export interface ClaimKey {
  namespace: string;
  name: string;
}

/** The fields of a ResourceClaim's JSON that PreBind reads or writes; the rest is sent back as read. */
export interface ClaimJson {
  metadata: {
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
  } & Record<string, unknown>;
  status?: {
    allocation?: unknown;
    reservedFor?: { apiGroup?: string; resource?: string; name?: string; uid?: string }[];
  } & Record<string, unknown>;
}

/** What a request came to: the answer's JSON, what went wrong, or that it was never sent. */
export type Sent =
  | { kind: 'ok'; body: unknown }
  | { kind: 'failed'; failure: ApiFailure }
  /** The binder stopped while it waited for a token, or the fence refused the write. */
  | { kind: 'ended'; why: 'stopped' | 'fenced'; message?: string };

/** `ns/name`, as kube names objects in its messages. */
export function claimRef(c: ClaimKey): string {
  return `${c.namespace}/${c.name}`;
}

/** The claim's path; `/status` appended for the status subresource. */
export function claimPath(c: ClaimKey, status = false): string {
  const base = `/apis/resource.k8s.io/v1/namespaces/${encodeURIComponent(c.namespace)}/resourceclaims/${encodeURIComponent(c.name)}`;
  return status ? `${base}/status` : base;
}

/**
 * Takes a bind-limiter token, then sends `method path` with `body` (JSON) unless the binder
 * stopped meanwhile. Never rejects: a refusal by the fence is `ended: fenced` (nothing
 * reached the API server), any other error is `failed`.
 */
export async function send(
  r: ClaimRequester,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<Sent> {
  await r.limiter.take();
  if (r.stopped()) return { kind: 'ended', why: 'stopped' };
  try {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const opts =
      contentType === undefined
        ? { timeoutMs: r.timeoutMs }
        : { timeoutMs: r.timeoutMs, contentType };
    const text = await r.http.request(method, path, json, opts);
    return { kind: 'ok', body: text === '' ? undefined : JSON.parse(text) };
  } catch (err) {
    if (isFencedWrite(err)) return { kind: 'ended', why: 'fenced', message: err.message };
    return { kind: 'failed', failure: describeApiError(err) };
  }
}

/** `body` as a claim when it has the shape of one (an object with `metadata`), else undefined. */
export function asClaim(body: unknown): ClaimJson | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const meta = (body as { metadata?: unknown }).metadata;
  return typeof meta === 'object' && meta !== null ? (body as ClaimJson) : undefined;
}

/** Whether `claim` is reserved for the pod with `podUid` (kube's IsReservedForPod: by uid). */
export function reservedFor(claim: ClaimJson, podUid: string): boolean {
  return (claim.status?.reservedFor ?? []).some((r) => r.uid === podUid);
}

/** Whether a failure is an API conflict (client-go's errors.IsConflict: reason Conflict). */
export function isConflict(f: ApiFailure): boolean {
  return f.code === 409 && (f.reason === undefined || f.reason === 'Conflict');
}
