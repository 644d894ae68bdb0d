// A fake API server for ResourceClaims and Bindings behind DirectHttp's `request`: resourceVersion and uid preconditions, status updates, strategic-merge unreserve.
import { ApiStatusError } from '../../src/adapters/kube/api-error.ts';
import type { KubeClients } from '../../src/adapters/kube/config.ts';

/** One request as the fake saw it: method, path, parsed body and content type. */
export interface FakeCall {
  method: string;
  path: string;
  body: unknown;
  contentType: string | undefined;
}

type Claim = {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  status?: { allocation?: unknown; reservedFor?: { uid: string }[] };
};

const claimRe =
  /^\/apis\/resource\.k8s\.io\/v1\/namespaces\/([^/]+)\/resourceclaims\/([^/]+)(\/status)?$/;
const bindRe = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/binding$/;
const createRe = /^\/apis\/resource\.k8s\.io\/v1\/namespaces\/([^/]+)\/resourceclaims$/;
const podStatusRe = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/status$/;

/** A Status error as the API server sends it. */
export function statusError(code: number, reason: string, message: string): ApiStatusError {
  const body = JSON.stringify({ kind: 'Status', status: 'Failure', message, reason, code });
  return new ApiStatusError(code, body, {});
}

/** The API server's message for an update with a stale resourceVersion. */
export function modified(name: string): string {
  return `Operation cannot be fulfilled on resourceclaims.resource.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`;
}

/**
 * Claims kept by `ns/name`, served as the API server would: GET; PUT of the claim (metadata
 * only) or its status (status only), refused with 409 on a stale resourceVersion or another
 * uid; PATCH of the status with `{"$patch":"delete","uid":…}` entries of reservedFor. Every
 * call is recorded in `calls`; `intercept` runs first and may change claims or return an
 * error to answer with. Bindings go to `bind` (default: accepted).
 */
export class FakeClaimApi {
  readonly claims = new Map<string, Claim>();
  readonly calls: FakeCall[] = [];
  intercept: (call: FakeCall, api: FakeClaimApi) => Error | undefined = () => undefined;
  bind: (call: FakeCall) => Error | undefined = () => undefined;
  /** Pod status patches (default: accepted). */
  podStatus: (call: FakeCall) => Error | undefined = () => undefined;
  private version = 100;

  /** Stores an unallocated claim `ns/name` with `uid` (or changes one: `status`, `finalizers`). */
  put(key: string, uid: string, extra: Partial<Claim['metadata']> & Pick<Claim, 'status'> = {}) {
    const [namespace = '', name = ''] = key.split('/');
    const { status, ...meta } = extra;
    const metadata = { name, namespace, uid, resourceVersion: this.nextVersion(), ...meta };
    this.claims.set(key, { metadata, ...(status === undefined ? {} : { status }) });
  }

  /** Bumps the claim's resourceVersion (another writer, e.g. a label update). */
  touch(key: string): void {
    const c = this.claims.get(key);
    if (c !== undefined) c.metadata.resourceVersion = this.nextVersion();
  }

  /** The clients a KubeBinder needs: only `http` is used for claims and Bindings. */
  clients(): KubeClients {
    const request = async (
      m: string,
      path: string,
      body?: string,
      o?: { contentType?: string },
    ) => {
      const call = { method: m, path, body: body && JSON.parse(body), contentType: o?.contentType };
      this.calls.push(call);
      const refused = this.intercept(call, this);
      if (refused !== undefined) throw refused;
      const answer = this.serve(call);
      if (answer instanceof Error) throw answer;
      return answer ?? '{}';
    };
    return { server: 'https://fake', http: { request } } as unknown as KubeClients;
  }

  /** `method path` of each call, for order checks. */
  lines(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path.replace(/^.*\/resourceclaims\//, '')}`);
  }

  private serve(call: FakeCall): Error | string | undefined {
    const b = bindRe.exec(call.path);
    if (b !== null && call.method === 'POST') return this.bind(call);
    if (podStatusRe.test(call.path) && call.method === 'PATCH') return this.podStatus(call);
    const made = createRe.exec(call.path);
    if (made !== null && call.method === 'POST') {
      // generateName gets five characters, as the API server's do.
      const meta = (call.body as { metadata: { generateName: string; namespace: string } })
        .metadata;
      const name = `${meta.generateName}x${this.claims.size}k2q`;
      const uid = `uid-${name}`;
      this.put(`${decodeURIComponent(made[1] ?? '')}/${name}`, uid);
      return JSON.stringify({ ...(call.body as object), metadata: { ...meta, name, uid } });
    }
    const m = claimRe.exec(call.path);
    if (m === null) throw new Error(`unexpected request ${call.method} ${call.path}`);
    const key = `${decodeURIComponent(m[1] ?? '')}/${decodeURIComponent(m[2] ?? '')}`;
    const stored = this.claims.get(key);
    const name = m[2] ?? '';
    if (stored === undefined)
      return statusError(404, 'NotFound', `resourceclaims.resource.k8s.io "${name}" not found`);
    const sent = call.body as Claim | undefined;
    if (call.method === 'GET') return JSON.stringify(stored);
    if (call.method === 'DELETE') {
      this.claims.delete(key);
      return '{}';
    }
    if (sent?.metadata.uid !== undefined && sent.metadata.uid !== stored.metadata.uid)
      return statusError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${sent.metadata.uid}`,
      );
    if (call.method === 'PATCH') {
      const drop = new Set((sent?.status?.reservedFor ?? []).map((r) => r.uid));
      const reservedFor = (stored.status?.reservedFor ?? []).filter((r) => !drop.has(r.uid));
      stored.status = { ...stored.status, reservedFor };
    } else if (call.method === 'PUT') {
      if (sent?.metadata.resourceVersion !== stored.metadata.resourceVersion)
        return statusError(409, 'Conflict', modified(name));
      if (m[3] === undefined) stored.metadata.finalizers = sent.metadata.finalizers ?? [];
      else stored.status = sent.status ?? {};
    } else throw new Error(`unexpected request ${call.method} ${call.path}`);
    stored.metadata.resourceVersion = this.nextVersion();
    return JSON.stringify(stored);
  }

  private nextVersion(): string {
    this.version += 1;
    return String(this.version);
  }
}
