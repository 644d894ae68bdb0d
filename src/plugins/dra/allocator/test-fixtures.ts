// Builders and a fake CEL matcher for the allocator's tests (kube's allocatortesting vocabulary).

import type {
  AllocationResult,
  Device,
  DeviceClassInfo,
  DeviceRequest,
  DeviceRequestAllocationResult,
  DeviceTaintRuleInfo,
  ResourceClaimInfo,
  ResourceSliceInfo,
} from '../../../model/dra-types.ts';
import type { NodeLike } from '../../node-selector.ts';
import { allocateCounted } from './allocate.ts';
import { indexSlices } from './pools.ts';
import type { AllocatedState, AllocateOutcome, CelDevice, SelectorMatcher } from './types.ts';

export const node1: NodeLike = { name: 'node-1', labels: { region: 'region-1' } };
export const node2: NodeLike = { name: 'node-2', labels: { region: 'region-2' } };

function attributeText(d: CelDevice, name: string): string | undefined {
  const a = d.attributes[name];
  if (a === undefined) return undefined;
  return String(a.string ?? a.int ?? a.bool ?? a.version);
}

/**
 * A fake CEL: `device.driver == "x"`, `attr NAME == VALUE`, `capacity NAME >= NANOS`,
 * `true`, `false`, `runtime-error`, `compile-error`, and `a || b`.
 */
export const fakeCel: SelectorMatcher = (expression, d) => {
  if (expression.includes(' || ')) {
    const parts = expression.split(' || ').map((e) => fakeCel(e, d));
    return { matches: parts.some((p) => 'matches' in p && p.matches) };
  }
  let m = /^device\.driver == "(.*)"$/.exec(expression);
  if (m) return { matches: d.driver === m[1] };
  m = /^attr (\S+) == (.*)$/.exec(expression);
  if (m) return { matches: attributeText(d, m[1] as string) === m[2] };
  m = /^capacity (\S+) >= (.*)$/.exec(expression);
  if (m) {
    const v = d.capacity[m[1] as string]?.value;
    return {
      matches: v !== undefined && Number.parseFloat(v) >= Number.parseFloat(m[2] as string),
    };
  }
  if (expression === 'true' || expression === 'false') return { matches: expression === 'true' };
  if (expression === 'runtime-error') return { error: 'no such key: x' };
  if (expression === 'compile-error') return { error: 'syntax error', compileError: true };
  throw new Error(`fake CEL does not know ${expression}`);
};

/** A class selecting the devices of one driver. */
export function cls(
  name: string,
  driver: string,
  extra: Partial<DeviceClassInfo> = {},
): DeviceClassInfo {
  return { name, selectors: [{ cel: { expression: `device.driver == "${driver}"` } }], ...extra };
}

/** A device named `name` with optional fields. */
export function dev(name: string, extra: Partial<Device> = {}): Device {
  return { name, ...extra };
}

/** A slice of `devices` on `nodeName` (or with the given node selection), pool generation 1 of 1 slice. */
export function slice(
  name: string,
  where: Partial<ResourceSliceInfo> & { node?: string },
  pool: string,
  driver: string,
  devices: Device[],
  poolExtra: Partial<ResourceSliceInfo['pool']> = {},
): ResourceSliceInfo {
  const { node, ...rest } = where;
  return {
    name,
    driver,
    pool: { name: pool, generation: 1, resourceSliceCount: 1, ...poolExtra },
    ...(node !== undefined && { nodeName: node }),
    devices,
    ...rest,
  };
}

/** An exact request of `count` devices of a class. */
export function req(
  name: string,
  className: string,
  extra: Partial<NonNullable<DeviceRequest['exactly']>> = {},
): DeviceRequest {
  return {
    name,
    exactly: { deviceClassName: className, allocationMode: 'ExactCount', count: 1, ...extra },
  };
}

/** A claim with requests (and optional constraints and config). */
export function claim(
  name: string,
  requests: DeviceRequest[],
  extra: Partial<ResourceClaimInfo['spec']['devices']> = {},
): ResourceClaimInfo {
  return { namespace: '', name, uid: `uid-${name}`, spec: { devices: { requests, ...extra } } };
}

/** The class of driver-a devices most cases use. */
export const classA = cls('class-a', 'driver-a');

/** A claim of one request `req-0` for one class-a device. */
export const oneDevice = (name = 'claim-0') => claim(name, [req('req-0', 'class-a')]);

/** A node-1 slice of driver-a devices. */
export function localA(
  devices: Device[],
  name = 'slice-1',
  pool = 'pool-1',
  poolExtra: Partial<ResourceSliceInfo['pool']> = {},
): ResourceSliceInfo {
  return slice(name, { node: 'node-1' }, pool, 'driver-a', devices, poolExtra);
}

/** A driver-a result line. */
export function resA(
  request: string,
  device: string,
  pool = 'pool-1',
  extra: Partial<DeviceRequestAllocationResult> = {},
): DeviceRequestAllocationResult {
  return res(request, 'driver-a', pool, device, extra);
}

/** One result line. */
export function res(
  request: string,
  driver: string,
  pool: string,
  device: string,
  extra: Partial<DeviceRequestAllocationResult> = {},
): DeviceRequestAllocationResult {
  return { request, driver, pool, device, ...extra };
}

/** An allocation restricted to one node (node-local slices). */
export function local(
  nodeName: string,
  ...results: DeviceRequestAllocationResult[]
): AllocationResult {
  return {
    devices: { results },
    nodeSelector: {
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] },
      ],
    },
  };
}

/** The world of one test case. */
export interface Case {
  claims: ResourceClaimInfo[];
  classes?: DeviceClassInfo[];
  slices?: ResourceSliceInfo[];
  rules?: DeviceTaintRuleInfo[];
  allocated?: Partial<AllocatedState>;
  node?: NodeLike;
}

/** Runs the allocator on a case, with fixed shareIDs (`share-<claim>-<index>`). */
export function run(c: Case): AllocateOutcome {
  return runCounted(c).outcome;
}

/** {@link run}, also counting the search steps. */
export function runCounted(c: Case): { outcome: AllocateOutcome; calls: number } {
  return allocateCounted({
    claims: c.claims,
    classes: new Map((c.classes ?? []).map((k) => [k.name, k])),
    slices: indexSlices(c.slices ?? [], c.rules ?? []),
    allocated: { devices: new Set(), ...c.allocated },
    node: c.node ?? node1,
    matcher: fakeCel,
    shareId: (cl, i) => `share-${cl.name}-${i}`,
  });
}

/** The outcome of a successful allocation. */
export function allocated(...results: AllocationResult[]): AllocateOutcome {
  return { kind: 'allocated', results };
}

/** The outcome when the node cannot hold the claims. */
export const cannot: AllocateOutcome = {
  kind: 'unschedulable',
  message: 'cannot allocate all claims',
};
