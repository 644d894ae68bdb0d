// DRA binding-condition scenarios on a real API server: a node's pool of devices with binding conditions, claims, pods, and the test playing their driver.
import type { AllocationResult } from '../../../src/model/dra-types.ts';
import type { Api } from './api.ts';
import { deviceClass, kwokNode, type Manifest, namespace, pod } from './manifests.ts';
import { waitFor } from './wait.ts';

/** A claim as the tests read it. */
export interface BindingClaimJson {
  metadata: { name: string; uid: string; resourceVersion: string };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: { resource: string; name: string; uid: string }[];
    devices?: { conditions?: { type: string; status: string }[] }[];
  };
}

/** Where one scheduler's scenario lives: its namespace, node, driver and scheduler name. */
export interface BindingSite {
  ns: string;
  node: string;
  driver: string;
  schedulerName: string;
}

const claimsPath = (s: BindingSite) => `/apis/resource.k8s.io/v1/namespaces/${s.ns}/resourceclaims`;

/** Creates the namespace, the node, the class, the pool (two devices that bind to the node once `Attached`) and `claims`. */
export async function createBindingSite(api: Api, s: BindingSite, claims: string[]): Promise<void> {
  await api.ok('POST', '/api/v1/namespaces', namespace(s.ns));
  await api.ok('POST', '/api/v1/nodes', kwokNode(s.node, { cpu: '4', memory: '8Gi' }));
  await api.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', deviceClass(s.driver));
  await api.ok('POST', '/apis/resource.k8s.io/v1/resourceslices', {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${s.node}-fabric` },
    spec: {
      driver: s.driver,
      nodeName: s.node,
      pool: { name: s.node, generation: 1, resourceSliceCount: 1 },
      devices: ['gpu-0', 'gpu-1'].map((name) => ({
        name,
        bindsToNode: true,
        bindingConditions: ['Attached'],
        bindingFailureConditions: ['AttachFailed'],
      })),
    },
  });
  for (const name of claims)
    await api.ok('POST', claimsPath(s), {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: s.ns },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: s.driver } }] } },
    });
}

/** A pod of the site's scheduler using claim `claimName`. */
export function bindingPod(s: BindingSite, name: string, claimName: string): Manifest {
  const p = pod(name, s.ns, { schedulerName: s.schedulerName }) as {
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  p.spec.resourceClaims = [{ name: 'gpu', resourceClaimName: claimName }];
  for (const c of p.spec.containers) c.resources.claims = [{ name: 'gpu' }];
  return p as unknown as Manifest;
}

/** Reads claim `name` of the site. */
export function getBindingClaim(api: Api, s: BindingSite, name: string): Promise<BindingClaimJson> {
  return api.ok<BindingClaimJson>('GET', `${claimsPath(s)}/${name}`);
}

/** Waits until claim `name` is allocated and reserved for pod `podName`. */
export function claimReservedFor(api: Api, s: BindingSite, name: string, podName: string) {
  return waitFor(`claim ${s.ns}/${name} allocated for ${podName}`, async () => {
    const c = await getBindingClaim(api, s, name);
    const held = c.status?.reservedFor?.some((r) => r.name === podName) === true;
    return { ok: c.status?.allocation !== undefined && held, seen: c };
  });
}

/** The driver: sets condition `type` True on the claim's allocated device (a status update). */
export async function driverSets(
  api: Api,
  s: BindingSite,
  name: string,
  condition: { type: string; reason: string; message: string },
): Promise<void> {
  const c = await getBindingClaim(api, s, name);
  const r = c.status?.allocation?.devices.results[0];
  if (r === undefined) throw new Error(`claim ${s.ns}/${name} is not allocated`);
  const lastTransitionTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const conditions = [{ ...condition, status: 'True', lastTransitionTime }];
  await api.ok('PUT', `${claimsPath(s)}/${name}/status`, {
    ...c,
    status: {
      ...c.status,
      devices: [{ driver: r.driver, pool: r.pool, device: r.device, conditions }],
    },
  });
}

/**
 * Runs `act`, then returns claim `name`'s states from before it on, as the claim's watch shows
 * them (`allocated|free holders=N[ failed]`), once `until` is seen after an allocated state
 * (the claim released again).
 */
export async function watchClaim(
  api: Api,
  s: BindingSite,
  name: string,
  act: () => Promise<void>,
  until: string,
  timeoutMs = 60_000,
): Promise<string[]> {
  const states: string[] = [];
  const rv = await api.listResourceVersion(claimsPath(s));
  const watch = api.watch<BindingClaimJson>(
    `${claimsPath(s)}?fieldSelector=metadata.name%3D${name}`,
    rv,
    (e) => {
      const st = e.object?.status;
      if (e.type === 'BOOKMARK' || st === undefined) return;
      const failed = st.devices?.some((d) => d.conditions?.some((c) => c.status === 'True'));
      const holders = st.reservedFor?.length ?? 0;
      states.push(
        `${st.allocation ? 'allocated' : 'free'} holders=${holders}${failed ? ' failed' : ''}`,
      );
    },
  );
  try {
    await act();
    await waitFor(
      `claim ${s.ns}/${name} ${until}`,
      async () => {
        const allocated = states.findIndex((x) => x.startsWith('allocated'));
        return { ok: allocated >= 0 && states.lastIndexOf(until) > allocated, seen: states };
      },
      { timeoutMs },
    );
  } finally {
    watch.stop();
  }
  return states;
}

/** Sets the failure condition on claim `name`; its states until it was deallocated. */
export function failAndWatch(api: Api, s: BindingSite, name: string): Promise<string[]> {
  const fail = () =>
    driverSets(api, s, name, {
      type: 'AttachFailed',
      reason: 'NoPort',
      message: 'no free fabric port',
    });
  return watchClaim(api, s, name, fail, 'free holders=0');
}
