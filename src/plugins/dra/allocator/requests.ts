// The requests of the claims to allocate, checked up front as kube's Allocate does before searching.

import type {
  Device,
  DeviceClassInfo,
  DeviceRequestDetails,
  DeviceSelector,
  ResourceClaimInfo,
  ResourceSliceInfo,
} from '../../../model/dra-types.ts';
import { CapacityProblem, fitsCapacity } from './capacity.ts';
import type { Pool } from './pools.ts';
import type { DeviceSelection } from './selection.ts';
import { AllocatorError, allocationResultsMaxSize, kobj, publishedDeviceKey } from './types.ts';

/** A device the search may pick, with where it lives. */
export interface Candidate {
  readonly id: string;
  readonly device: Device;
  readonly slice: ResourceSliceInfo;
  readonly pool: Pool;
}

/** One request without subrequests, or one subrequest of a firstAvailable request. */
export interface RequestData {
  /** The request's name, or the subrequest's own name. */
  readonly name: string;
  /** The parent request's name for a subrequest. */
  readonly parent?: string;
  readonly details: DeviceRequestDetails;
  readonly selectors: readonly DeviceSelector[];
  readonly adminAccess: boolean;
  readonly all: boolean;
  readonly class: DeviceClassInfo;
  readonly claimName: string;
  /** `claim/request/subrequest` indices: the key of the selection cache. */
  readonly key: string;
  readonly numDevices: number;
  /** For allocationMode All: the devices it takes, fixed before the search. */
  readonly allDevices: readonly Candidate[];
}

/** `request` or `request/subrequest`, as results and constraints name it. */
export function requestName(rd: RequestData): string {
  return rd.parent === undefined ? rd.name : `${rd.parent}/${rd.name}`;
}

interface Context {
  readonly classes: ReadonlyMap<string, DeviceClassInfo>;
  readonly pools: readonly Pool[];
  readonly selection: DeviceSelection;
}

function allDevicesFor(ctx: Context, base: Omit<RequestData, 'numDevices' | 'allDevices'>) {
  const devices: Candidate[] = [];
  const prefix = `claim ${base.claimName}, request ${base.name}`;
  for (const pool of ctx.pools) {
    if (pool.incomplete) {
      throw new AllocatorError(
        `${prefix}: asks for all devices, but resource pool ${pool.id} is currently being updated`,
      );
    }
    if (pool.invalid) {
      throw new AllocatorError(
        `${prefix}: asks for all devices, but resource pool ${pool.id} is currently invalid`,
      );
    }
    for (const slice of pool.slices) {
      for (const device of slice.devices) {
        const id = publishedDeviceKey(slice.driver, slice.pool.name, device);
        if (!ctx.selection.isSelectable(base.key, base, slice, device, id)) continue;
        // Static capacity only: what is in use is checked when the device is allocated.
        let fits: boolean;
        try {
          fits = fitsCapacity(
            undefined,
            base.details.capacity?.requests,
            device.capacity,
            undefined,
          );
        } catch (e) {
          if (!(e instanceof CapacityProblem)) throw e;
          throw new AllocatorError(
            `${prefix}: checking capacity for device ${device.name}: ${e.message}`,
          );
        }
        if (fits) devices.push({ id, device, slice, pool });
      }
    }
  }
  return devices;
}

/**
 * An ExactCount request's data, kept per request object across nodes and cycles: it depends
 * only on the claim, the request and its class (not on the node's devices), so it is made
 * again only when one of those is another object. The search never changes it.
 */
const exactCountData = new WeakMap<
  object,
  Map<string, { claim: ResourceClaimInfo; class: DeviceClassInfo; data: RequestData }>
>();

function validate(
  ctx: Context,
  claim: ResourceClaimInfo,
  key: string,
  details: DeviceRequestDetails,
  names: { name: string; parent?: string },
): RequestData {
  const claimName = kobj(claim);
  const prefix = `claim ${claimName}, request ${names.name}`;
  const selectors = details.selectors ?? [];
  selectors.forEach((s, i) => {
    if (s.cel === undefined) {
      throw new AllocatorError(
        `${prefix}, selector #${i}: CEL expression empty (unsupported selector type?)`,
      );
    }
  });
  if (!details.deviceClassName) {
    throw new AllocatorError(`${prefix}: missing device class name (unsupported request type?)`);
  }
  const cls = ctx.classes.get(details.deviceClassName);
  if (cls === undefined) {
    const notFound = `deviceclass.resource.k8s.io ${JSON.stringify(details.deviceClassName)} not found`;
    throw new AllocatorError(
      `${prefix}: could not retrieve device class ${details.deviceClassName}: ${notFound}`,
    );
  }
  const mode = details.allocationMode ?? 'ExactCount';
  const memoKey = `${key}|${names.name}|${names.parent ?? ''}`;
  if (mode === 'ExactCount') {
    const known = exactCountData.get(details)?.get(memoKey);
    if (known !== undefined && known.claim === claim && known.class === cls) return known.data;
  }
  const base = {
    ...names,
    details,
    adminAccess: names.parent === undefined && details.adminAccess === true,
    all: details.allocationMode === 'All',
    class: cls,
    claimName,
    key,
    selectors,
  };
  if (mode === 'ExactCount') {
    const data: RequestData = { ...base, numDevices: details.count ?? 1, allDevices: [] };
    let byKey = exactCountData.get(details);
    if (byKey === undefined) {
      byKey = new Map();
      exactCountData.set(details, byKey);
    }
    byKey.set(memoKey, { claim, class: cls, data });
    return data;
  }
  if (mode !== 'All') throw new AllocatorError(`${prefix}: unsupported count mode ${mode}`);
  const allDevices = allDevicesFor(ctx, base);
  return { ...base, numDevices: allDevices.length, allDevices };
}

/**
 * Per claim, per request: the request's data (one entry), or one per firstAvailable
 * subrequest. Throws kube's errors for a broken request or a claim over the device limit.
 */
export function prepareRequests(
  ctx: Context,
  claims: readonly ResourceClaimInfo[],
  afterClaim: (claimIndex: number) => void,
): RequestData[][][] {
  return claims.map((claim, c) => {
    let minPerClaim = 0;
    const perRequest = claim.spec.devices.requests.map((request, r) => {
      const subs = request.firstAvailable ?? [];
      const data =
        subs.length > 0
          ? subs.map((sub, s) =>
              validate(ctx, claim, `${c}/${r}/${s}`, sub, { name: sub.name, parent: request.name }),
            )
          : [
              validate(ctx, claim, `${c}/${r}/0`, request.exactly ?? { deviceClassName: '' }, {
                name: request.name,
              }),
            ];
      const minPerRequest = Math.min(...data.map((d) => d.numDevices));
      if (minPerRequest > allocationResultsMaxSize - minPerClaim) {
        throw new AllocatorError(
          `claim ${kobj(claim)}, request ${request.name}: adding ${minPerRequest} devices exceeds the claim limit of ${allocationResultsMaxSize}, with ${minPerClaim} already accounted for`,
        );
      }
      minPerClaim += minPerRequest;
      return data;
    });
    afterClaim(c);
    return perRequest;
  });
}
