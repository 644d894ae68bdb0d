// Parsers of ResourceClaims, DeviceClasses and DeviceTaintRules into dra-types' JSON views; what kube's validation would refuse is named in `invalid`.

import type {
  AllocatedDeviceStatus,
  AllocationResult,
  DeviceClassInfo,
  DeviceConfiguration,
  DeviceConstraint,
  DeviceRequest,
  DeviceRequestAllocationResult,
  DeviceRequestDetails,
  DeviceSelector,
  DeviceTaint,
  DeviceTaintRuleInfo,
  DeviceToleration,
  ResourceClaimConsumerReference,
  ResourceClaimInfo,
} from '../model/dra-types.ts';
import { ownerPodGroup, ownerPodUid } from './claim-owners.ts';
import {
  defined,
  list,
  map,
  metadataOf,
  nodeSelector,
  optBool,
  optInt,
  optRecord,
  optString,
  Problems,
  reqString,
  stringList,
} from './dra-read.ts';
import { isRecord, type JsonRecord } from './fields.ts';
import { parseTimestampMs } from './timestamps.ts';

/** A parser's answer: the parsed view, or why the object cannot be stored at all. */
type Parse<T> = { value: T } | { rejected: string };

/** resource.k8s.io/v1 limits (k8s.io/api/resource/v1 constants). */
export const draLimits = {
  requests: 32,
  constraints: 32,
  config: 32,
  selectors: 32,
  firstAvailable: 8,
  tolerations: 16,
  reservedFor: 256,
  results: 32,
  /** ResourceClaim status.devices: one per allocated device at most (AllocationResultsMaxSize). */
  devices: 32,
} as const;

/** The annotation the resourceclaim controller puts on a claim it made from a template. */
export const podClaimNameAnnotation = 'resource.kubernetes.io/pod-claim-name';
/** The annotation on the claim the scheduler makes for a pod's DRA-backed extended resources. */
export const extendedClaimAnnotation = 'resource.kubernetes.io/extended-resource-claim';

function selector(v: unknown, path: string, p: Problems): DeviceSelector | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const cel = optRecord(r.cel, `${path}.cel`, p);
  if (cel === undefined) return p.add(`${path}.cel is required`);
  return { cel: { expression: reqString(cel.expression, `${path}.cel.expression`, p) } };
}

function selectors(v: unknown, path: string, p: Problems): DeviceSelector[] | undefined {
  const out = list(v, path, p, draLimits.selectors, (x, at) => selector(x, at, p));
  return out.length > 0 ? out : undefined;
}

const taintEffects = new Set(['None', 'NoSchedule', 'NoExecute']);

/** A device taint (slices and DeviceTaintRules). */
export function taint(v: unknown, path: string, p: Problems): DeviceTaint | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const effect = reqString(r.effect, `${path}.effect`, p);
  if (effect !== '' && !taintEffects.has(effect))
    p.add(`${path}.effect: unsupported value "${effect}"`);
  return defined({
    key: reqString(r.key, `${path}.key`, p),
    value: optString(r.value, `${path}.value`, p),
    effect: effect as DeviceTaint['effect'],
    timeAdded: optString(r.timeAdded, `${path}.timeAdded`, p),
  });
}

function toleration(v: unknown, path: string, p: Problems): DeviceToleration | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const operator = optString(r.operator, `${path}.operator`, p);
  if (operator !== undefined && operator !== 'Exists' && operator !== 'Equal')
    p.add(`${path}.operator: unsupported value "${operator}"`);
  const effect = optString(r.effect, `${path}.effect`, p);
  if (effect !== undefined && effect !== '' && !taintEffects.has(effect))
    p.add(`${path}.effect: unsupported value "${effect}"`);
  return defined({
    key: optString(r.key, `${path}.key`, p),
    operator: operator as DeviceToleration['operator'],
    value: optString(r.value, `${path}.value`, p),
    effect: (effect === '' ? undefined : effect) as DeviceToleration['effect'],
    tolerationSeconds: optInt(r.tolerationSeconds, `${path}.tolerationSeconds`, p),
  });
}

function details(r: JsonRecord, path: string, p: Problems, exact: boolean): DeviceRequestDetails {
  const mode = optString(r.allocationMode, `${path}.allocationMode`, p);
  if (mode !== undefined && mode !== 'ExactCount' && mode !== 'All')
    p.add(`${path}.allocationMode: unsupported value "${mode}"`);
  const count = optInt(r.count, `${path}.count`, p);
  if (count !== undefined && count < 1) p.add(`${path}.count must be greater than zero`);
  const tolerations = list(
    r.tolerations,
    `${path}.tolerations`,
    p,
    draLimits.tolerations,
    (x, at) => toleration(x, at, p),
  );
  const capacity = optRecord(r.capacity, `${path}.capacity`, p);
  const requests =
    capacity === undefined
      ? undefined
      : map(capacity.requests, `${path}.capacity.requests`, p, 1e6, (x, at) => optString(x, at, p));
  return defined({
    deviceClassName: reqString(r.deviceClassName, `${path}.deviceClassName`, p),
    selectors: selectors(r.selectors, `${path}.selectors`, p),
    allocationMode: mode as DeviceRequestDetails['allocationMode'],
    count,
    adminAccess: exact ? optBool(r.adminAccess, `${path}.adminAccess`, p) : undefined,
    tolerations: tolerations.length > 0 ? tolerations : undefined,
    capacity: requests === undefined ? undefined : { requests },
  });
}

function request(v: unknown, path: string, p: Problems): DeviceRequest | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const name = reqString(r.name, `${path}.name`, p);
  const exactly = optRecord(r.exactly, `${path}.exactly`, p);
  const first = list(
    r.firstAvailable,
    `${path}.firstAvailable`,
    p,
    draLimits.firstAvailable,
    (x, at) => {
      const sub = optRecord(x, at, p);
      return sub && { name: reqString(sub.name, `${at}.name`, p), ...details(sub, at, p, false) };
    },
  );
  if ((exactly === undefined) === (first.length === 0))
    p.add(`${path}: exactly one of exactly and firstAvailable must be set`);
  return defined({
    name,
    exactly: exactly && details(exactly, `${path}.exactly`, p, true),
    firstAvailable: first.length > 0 ? first : undefined,
  });
}

function constraint(v: unknown, path: string, p: Problems): DeviceConstraint | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const requests = stringList(r.requests, `${path}.requests`, p, draLimits.requests);
  return defined({
    requests: requests.length > 0 ? requests : undefined,
    matchAttribute: optString(r.matchAttribute, `${path}.matchAttribute`, p),
    distinctAttribute: optString(r.distinctAttribute, `${path}.distinctAttribute`, p),
  });
}

function configuration(v: unknown, path: string, p: Problems): DeviceConfiguration | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const requests = stringList(r.requests, `${path}.requests`, p, draLimits.requests);
  const opaque = optRecord(r.opaque, `${path}.opaque`, p);
  return defined({
    requests: requests.length > 0 ? requests : undefined,
    opaque: opaque && {
      driver: reqString(opaque.driver, `${path}.opaque.driver`, p),
      parameters: opaque.parameters ?? null,
    },
  });
}

function configs(v: unknown, path: string, p: Problems): DeviceConfiguration[] | undefined {
  const out = list(v, path, p, draLimits.config, (x, at) => configuration(x, at, p));
  return out.length > 0 ? out : undefined;
}

function result(v: unknown, path: string, p: Problems): DeviceRequestAllocationResult | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const tolerations = list(
    r.tolerations,
    `${path}.tolerations`,
    p,
    draLimits.tolerations,
    (x, at) => toleration(x, at, p),
  );
  const conditions = (field: string) => {
    const l = stringList(r[field], `${path}.${field}`, p, 4);
    return l.length > 0 ? l : undefined;
  };
  return defined({
    request: reqString(r.request, `${path}.request`, p),
    driver: reqString(r.driver, `${path}.driver`, p),
    pool: reqString(r.pool, `${path}.pool`, p),
    device: reqString(r.device, `${path}.device`, p),
    adminAccess: optBool(r.adminAccess, `${path}.adminAccess`, p),
    tolerations: tolerations.length > 0 ? tolerations : undefined,
    bindingConditions: conditions('bindingConditions'),
    bindingFailureConditions: conditions('bindingFailureConditions'),
    shareID: optString(r.shareID, `${path}.shareID`, p),
    consumedCapacity: map(r.consumedCapacity, `${path}.consumedCapacity`, p, 1e6, (x, at) =>
      optString(x, at, p),
    ),
  });
}

function allocation(v: unknown, path: string, p: Problems): AllocationResult | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const devices = optRecord(r.devices, `${path}.devices`, p) ?? {};
  const config = list(devices.config, `${path}.devices.config`, p, draLimits.config, (x, at) => {
    const c = configuration(x, at, p);
    const source = isRecord(x) ? x.source : undefined;
    if (source !== 'FromClass' && source !== 'FromClaim') return p.add(`${at}.source is invalid`);
    return c && { ...c, source: source as 'FromClass' | 'FromClaim' };
  });
  return defined({
    devices: defined({
      results: list(devices.results, `${path}.devices.results`, p, draLimits.results, (x, at) =>
        result(x, at, p),
      ),
      config: config.length > 0 ? config : undefined,
    }),
    nodeSelector: nodeSelector(r.nodeSelector, `${path}.nodeSelector`, p),
    allocationTimestamp: optString(r.allocationTimestamp, `${path}.allocationTimestamp`, p),
  });
}

function consumer(
  v: unknown,
  path: string,
  p: Problems,
): ResourceClaimConsumerReference | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  return defined({
    apiGroup: optString(r.apiGroup, `${path}.apiGroup`, p) || undefined,
    resource: reqString(r.resource, `${path}.resource`, p),
    name: reqString(r.name, `${path}.name`, p),
    uid: reqString(r.uid, `${path}.uid`, p),
  });
}

/** One `status.devices[]` entry: the device and its conditions (the rest is the driver's). */
function deviceStatus(v: unknown, path: string, p: Problems): AllocatedDeviceStatus | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const conditions = list(r.conditions, `${path}.conditions`, p, 1e6, (x, at) => {
    const c = optRecord(x, at, p);
    if (c === undefined) return undefined;
    return defined({
      type: reqString(c.type, `${at}.type`, p),
      status: reqString(c.status, `${at}.status`, p),
      reason: optString(c.reason, `${at}.reason`, p),
      message: optString(c.message, `${at}.message`, p),
    });
  });
  return defined({
    driver: reqString(r.driver, `${path}.driver`, p),
    pool: reqString(r.pool, `${path}.pool`, p),
    device: reqString(r.device, `${path}.device`, p),
    shareID: optString(r.shareID, `${path}.shareID`, p),
    conditions: conditions.length > 0 ? conditions : undefined,
  });
}

/** Parses a ResourceClaim. Never throws; rejects only a nameless object. */
export function parseResourceClaim(raw: unknown): Parse<ResourceClaimInfo> {
  const m = metadataOf(raw, 'ResourceClaim');
  if (typeof m === 'string') return { rejected: m };
  const { meta, name } = m;
  const obj = raw as JsonRecord;
  const p = new Problems();
  const spec = optRecord(obj.spec, 'spec', p) ?? {};
  const devices = optRecord(spec.devices, 'spec.devices', p) ?? {};
  const status = optRecord(obj.status, 'status', p) ?? {};
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  const constraints = list(
    devices.constraints,
    'spec.devices.constraints',
    p,
    draLimits.constraints,
    (x, at) => constraint(x, at, p),
  );
  const reservedFor = list(
    status.reservedFor,
    'status.reservedFor',
    p,
    draLimits.reservedFor,
    (x, at) => consumer(x, at, p),
  );
  const deviceStatuses = list(status.devices, 'status.devices', p, draLimits.devices, (x, at) =>
    deviceStatus(x, at, p),
  );
  const finalizers = stringList(meta.finalizers, 'metadata.finalizers', p, 1e6);
  const claim: ResourceClaimInfo = defined({
    namespace:
      typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default',
    name,
    uid: typeof meta.uid === 'string' ? meta.uid : '',
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined,
    deletionTimestamp:
      typeof meta.deletionTimestamp === 'string' ? meta.deletionTimestamp : undefined,
    finalizers: finalizers.length > 0 ? finalizers : undefined,
    ownerPodUid: ownerPodUid(meta),
    ownerPodGroup: ownerPodGroup(meta),
    podClaimName:
      typeof annotations[podClaimNameAnnotation] === 'string'
        ? annotations[podClaimNameAnnotation]
        : undefined,
    extendedResourceClaim: annotations[extendedClaimAnnotation] === 'true' ? true : undefined,
    spec: {
      devices: defined({
        requests: list(devices.requests, 'spec.devices.requests', p, draLimits.requests, (x, at) =>
          request(x, at, p),
        ),
        constraints: constraints.length > 0 ? constraints : undefined,
        config: configs(devices.config, 'spec.devices.config', p),
      }),
    },
    status: defined({
      allocation: allocation(status.allocation, 'status.allocation', p),
      reservedFor: reservedFor.length > 0 ? reservedFor : undefined,
      devices: deviceStatuses.length > 0 ? deviceStatuses : undefined,
    }),
    invalid: p.first,
  });
  if (claim.status !== undefined && Object.keys(claim.status).length === 0) delete claim.status;
  return { value: claim };
}

/** Parses a DeviceClass. Never throws; rejects only a nameless object. */
export function parseDeviceClass(raw: unknown): Parse<DeviceClassInfo> {
  const m = metadataOf(raw, 'DeviceClass');
  if (typeof m === 'string') return { rejected: m };
  const p = new Problems();
  const spec = optRecord((raw as JsonRecord).spec, 'spec', p) ?? {};
  return {
    value: defined({
      name: m.name,
      selectors: selectors(spec.selectors, 'spec.selectors', p),
      config: configs(spec.config, 'spec.config', p),
      extendedResourceName: optString(spec.extendedResourceName, 'spec.extendedResourceName', p),
      creationMs: parseTimestampMs(m.meta.creationTimestamp),
      invalid: p.first,
    }),
  };
}

/** Parses a DeviceTaintRule. Never throws; rejects only a nameless object. */
export function parseDeviceTaintRule(raw: unknown): Parse<DeviceTaintRuleInfo> {
  const m = metadataOf(raw, 'DeviceTaintRule');
  if (typeof m === 'string') return { rejected: m };
  const p = new Problems();
  const spec = optRecord((raw as JsonRecord).spec, 'spec', p) ?? {};
  const sel = optRecord(spec.deviceSelector, 'spec.deviceSelector', p);
  const parsedTaint = taint(spec.taint, 'spec.taint', p) ?? { key: '', effect: 'None' as const };
  return {
    value: defined({
      name: m.name,
      deviceSelector:
        sel &&
        defined({
          driver: optString(sel.driver, 'spec.deviceSelector.driver', p),
          pool: optString(sel.pool, 'spec.deviceSelector.pool', p),
          device: optString(sel.device, 'spec.deviceSelector.device', p),
        }),
      taint: parsedTaint,
      invalid: p.first,
    }),
  };
}
