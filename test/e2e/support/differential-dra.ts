// DRA differential runs: load a DRA scenario into a reset control plane, place its pods one at a time, read and compare outcomes.
import { type Api, waitForReadyNodes } from './api.ts';
import { outcomeOf } from './differential.ts';
import type { PodJson } from './kubectl.ts';
import type { DraObj, DraScenario } from './scenario-dra.ts';
import { delay, waitFor } from './wait.ts';

/** What one scheduler did with one pod, and what its claims hold. */
export interface DraOutcome {
  node?: string;
  reason?: string;
  message?: string;
  /** By the pod's claim name: `request driver/pool/device` per allocated device, or `unallocated`. */
  claims: Record<string, string[] | 'unallocated'>;
}

/** Outcomes by pod name. */
export type DraOutcomes = Record<string, DraOutcome>;

type List<T> = { items: T[] };
type Meta = { name: string; finalizers?: string[] };
type ClaimJson = {
  metadata: Meta;
  status?: {
    allocation?: {
      devices?: { results?: { request: string; driver: string; pool: string; device: string }[] };
    };
  };
};
type ClaimPodJson = PodJson & {
  status?: {
    resourceClaimStatuses?: { name: string; resourceClaimName?: string }[];
    extendedResourceClaimStatus?: { resourceClaimName: string; requestMappings: unknown[] };
  };
};

/** The key under which an outcome lists the special claim of DRA-backed extended resources. */
const extendedKey = '<extended-resources>';

const group = '/apis/resource.k8s.io/v1';
const claimsPath = (ns: string) => `${group}/namespaces/${ns}/resourceclaims`;
const templatesPath = (ns: string) => `${group}/namespaces/${ns}/resourceclaimtemplates`;
const clusterPaths = ['resourceslices', 'deviceclasses', 'devicetaintrules'].map(
  (k) => `${group}/${k}`,
);

async function names(api: Api, path: string): Promise<string[]> {
  const r = await api.request<List<{ metadata: Meta }>>('GET', path);
  if (r.status === 404) return [];
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
  return r.body.items.map((i) => i.metadata.name);
}

/**
 * Deletes the scenario namespace's pods (grace 0), claims (finalizers stripped) and
 * templates, every ResourceSlice, DeviceClass, DeviceTaintRule and node, and waits until
 * none is listed.
 */
export async function resetDraCluster(api: Api, ns: string): Promise<void> {
  await api.ok('DELETE', `/api/v1/namespaces/${ns}/pods?gracePeriodSeconds=0`);
  await waitFor('no pods', async () => {
    const left = await names(api, `/api/v1/namespaces/${ns}/pods`);
    return { ok: left.length === 0, seen: left };
  });
  for (const path of [claimsPath(ns), templatesPath(ns), ...clusterPaths, '/api/v1/nodes'])
    await api.ok('DELETE', path);
  for (const c of (await api.ok<List<ClaimJson>>('GET', claimsPath(ns))).items)
    if ((c.metadata.finalizers ?? []).length > 0)
      await api.request('PATCH', `${claimsPath(ns)}/${c.metadata.name}`, {
        metadata: { finalizers: null },
      });
  const paths = [claimsPath(ns), templatesPath(ns), ...clusterPaths, '/api/v1/nodes'];
  await waitFor('no claims, templates, slices, classes, taint rules or nodes', async () => {
    const left = (await Promise.all(paths.map((p) => names(api, p)))).flat();
    return { ok: left.length === 0, seen: left };
  });
}

async function post(api: Api, path: string, objects: readonly DraObj[]): Promise<void> {
  for (const o of objects) await api.ok('POST', path, o);
}

/**
 * Creates the scenario on a reset control plane: the namespace (if missing), DeviceClasses,
 * nodes (then waits until kwok reports them Ready), ResourceSlices, DeviceTaintRules,
 * claim templates and direct claims. The pods come later, one at a time.
 */
export async function loadDraScenario(api: Api, s: DraScenario): Promise<void> {
  const r = await api.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: s.namespace },
  });
  if (r.status !== 201 && r.status !== 409) throw new Error(`namespace: HTTP ${r.status}`);
  await post(api, `${group}/deviceclasses`, s.classes);
  for (const n of s.nodes) await api.ok('POST', '/api/v1/nodes', n);
  await waitForReadyNodes(api, s.nodes.length);
  await post(api, `${group}/resourceslices`, s.slices);
  await post(api, `${group}/devicetaintrules`, s.taintRules);
  await post(api, templatesPath(s.namespace), s.templates);
  await post(api, claimsPath(s.namespace), s.claims);
}

/** The pod's claims by its claim name: the direct claim's name, or the one the controller made. */
function claimNames(pod: ClaimPodJson, spec: DraScenario['pending'][number]) {
  const made = new Map(
    (pod.status?.resourceClaimStatuses ?? []).map((c) => [c.name, c.resourceClaimName]),
  );
  const refs = (spec.spec.resourceClaims ?? []).map((c) => ({
    ref: c.name,
    claim: c.resourceClaimName ?? made.get(c.name),
  }));
  const special = pod.status?.extendedResourceClaimStatus?.resourceClaimName;
  return special === undefined ? refs : [...refs, { ref: extendedKey, claim: special }];
}

/** The pod's outcome with its claims' allocations; undefined until it settled and its claims exist. */
async function readOutcome(
  api: Api,
  s: DraScenario,
  spec: DraScenario['pending'][number],
): Promise<DraOutcome | undefined> {
  const path = `/api/v1/namespaces/${s.namespace}/pods/${spec.metadata.name}`;
  const r = await api.request<ClaimPodJson>('GET', path);
  if (r.status !== 200) return undefined;
  const o = outcomeOf(r.body);
  if (o === undefined) return undefined;
  const claims: DraOutcome['claims'] = {};
  let message = o.message;
  for (const { ref, claim } of claimNames(r.body, spec)) {
    if (claim === undefined) return undefined; // the controller has not made it yet
    const g = await api.request<ClaimJson>('GET', `${claimsPath(s.namespace)}/${claim}`);
    if (g.status !== 200) return undefined;
    const results = g.body.status?.allocation?.devices?.results;
    claims[ref] =
      results === undefined
        ? 'unallocated'
        : results.map((x) => `${x.request} ${x.driver}/${x.pool}/${x.device}`);
    // A generated claim's name differs between runs: messages name it by the pod's claim.
    if (claim !== spec.spec.resourceClaims?.find((c) => c.name === ref)?.resourceClaimName)
      message = message?.split(claim).join(`<${spec.metadata.name}/${ref}>`);
  }
  // Which of the special claim's requests serves each container's resource (kube's mappings).
  const mappings = r.body.status?.extendedResourceClaimStatus?.requestMappings;
  if (mappings !== undefined)
    claims[`${extendedKey} mappings`] = mappings.map((m) => JSON.stringify(m));
  return { ...o, ...(message === undefined ? {} : { message }), claims };
}

/**
 * Creates the pods one at a time (the scheduler running), each once the one before it is
 * bound, or marked unschedulable with its claims in place and the same message on two reads
 * `quietMs` apart (then deleted, so no later event retries it at a moment that depends on
 * timing). Returns each pod's outcome.
 */
export async function placeDraPods(
  api: Api,
  s: DraScenario,
  checkAlive: () => void,
  quietMs = 250,
): Promise<DraOutcomes> {
  const out: DraOutcomes = {};
  for (const [i, p] of s.pending.entries()) {
    await api.ok('POST', `/api/v1/namespaces/${s.namespace}/pods`, p);
    let previous = '';
    const o = (await waitFor(
      `${p.metadata.name} bound or marked unschedulable`,
      async () => {
        checkAlive();
        const got = await readOutcome(api, s, p);
        if (got === undefined || got.node !== undefined)
          return { ok: got !== undefined, seen: got };
        const text = JSON.stringify(got);
        const ok = text === previous;
        previous = text;
        if (!ok) await delay(quietMs);
        return { ok, seen: got };
      },
      { timeoutMs: i === 0 ? 90_000 : 30_000, intervalMs: 20 },
    )) as DraOutcome;
    out[p.metadata.name] = o;
    // Unbound, so gone at once with grace 0; the scheduler sees the deletion before the next pod.
    if (o.node === undefined) {
      const d = await api.deletePod(s.namespace, p.metadata.name);
      if (d.status !== 200) throw new Error(`DELETE pod ${p.metadata.name}: HTTP ${d.status}`);
    }
  }
  return out;
}

/** One disagreement about one pod. */
export interface DraMismatch {
  pod: string;
  detail: string;
}

/** A short text of an outcome, for reports. */
export function describeDraOutcome(o: DraOutcome | undefined): string {
  if (o === undefined) return 'no outcome';
  const where =
    o.node !== undefined
      ? `bound to ${o.node}`
      : `pending (${o.reason}): ${JSON.stringify(o.message)}`;
  return `${where}; claims ${JSON.stringify(o.claims)}`;
}

/**
 * Compares pod by pod: bound in both or neither, the same node, the same devices in each
 * claim's allocation (request, driver, pool, device, in order), and for pods pending in
 * both the same PodScheduled reason and whole message.
 */
export function compareDraOutcomes(
  s: DraScenario,
  kube: DraOutcomes,
  berth: DraOutcomes,
): DraMismatch[] {
  const out: DraMismatch[] = [];
  for (const p of s.pending) {
    const pod = p.metadata.name;
    const k = kube[pod];
    const b = berth[pod];
    const same =
      k !== undefined &&
      b !== undefined &&
      k.node === b.node &&
      JSON.stringify(k.claims) === JSON.stringify(b.claims) &&
      (k.node !== undefined || (k.reason === b.reason && k.message === b.message));
    if (!same)
      out.push({
        pod,
        detail: `kube-scheduler ${describeDraOutcome(k)}\n    berth ${describeDraOutcome(b)}`,
      });
  }
  return out;
}
