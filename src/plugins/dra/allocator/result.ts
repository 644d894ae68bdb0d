// Builds a claim's AllocationResult from the picked devices: results, configuration, node selector.

import type {
  AllocationResult,
  DeviceClassInfo,
  DeviceConfiguration,
  DeviceRequestAllocationResult,
  DraNodeSelector,
  ResourceClaimInfo,
} from '../../../model/dra-types.ts';
import type { NodeSelectorRequirement } from '../../../model/objects.ts';
import type { NodeLike } from '../../node-selector.ts';
import { formatAmount } from './quantities.ts';
import { type RequestData, requestName } from './requests.ts';
import type { DeviceResult } from './search.ts';
import { AllocatorError } from './types.ts';

type Config = DeviceConfiguration & { source: 'FromClass' | 'FromClaim' };

function deviceResult(r: DeviceResult): DeviceRequestAllocationResult {
  const { device, slice } = r.candidate;
  const tolerations = r.rd.details.tolerations ?? [];
  const out: DeviceRequestAllocationResult = {
    request: requestName(r.rd),
    driver: slice.driver,
    pool: slice.pool.name,
    device: device.name,
  };
  if (r.rd.adminAccess) out.adminAccess = true;
  if (tolerations.length > 0) out.tolerations = tolerations;
  if ((device.bindingConditions?.length ?? 0) > 0) out.bindingConditions = device.bindingConditions;
  if ((device.bindingFailureConditions?.length ?? 0) > 0) {
    out.bindingFailureConditions = device.bindingFailureConditions;
  }
  if (r.shareId !== undefined) out.shareID = r.shareId;
  if (r.consumed !== undefined) {
    // Sorted keys: Go's JSON encoding of a map.
    const names = [...r.consumed.keys()].sort();
    out.consumedCapacity = Object.fromEntries(
      names.map((n) => [n, formatAmount(r.consumed!.get(n)!)]),
    );
  }
  return out;
}

/** The chosen request data of each request of the claim (the picked subrequest, if any). */
function chosen(requests: RequestData[][], selected: readonly number[]): RequestData[] {
  return requests.map((subs, r) => subs[selected[r] ?? 0] as RequestData);
}

function configs(claim: ResourceClaimInfo, picked: readonly RequestData[]): Config[] {
  const out: Config[] = [];
  const byClass = new Map<string, Config[]>();
  for (const rd of picked) {
    const name = requestName(rd);
    const added = byClass.get(rd.class.name);
    if (added) {
      for (const c of added) c.requests = [...(c.requests ?? []), name];
      continue;
    }
    const fromClass = (rd.class as DeviceClassInfo).config ?? [];
    const made = fromClass.map((c): Config => ({ ...c, source: 'FromClass', requests: [name] }));
    out.push(...made);
    byClass.set(rd.class.name, made);
  }
  const names = picked.map((rd) => ({
    name: rd.parent ?? rd.name,
    full: requestName(rd),
    sub: rd.parent !== undefined,
  }));
  for (const c of claim.spec.devices.config ?? []) {
    const listed = c.requests ?? [];
    const applies =
      listed.length === 0 ||
      names.some((n) => listed.includes(n.name) || (n.sub && listed.includes(n.full)));
    if (!applies) continue;
    const { requests: _, ...rest } = c;
    out.push({ ...rest, source: 'FromClaim', ...(listed.length > 0 && { requests: listed }) });
  }
  for (const c of out) {
    const listed = c.requests ?? [];
    if (listed.length === 0) continue;
    if (names.every((n) => listed.includes(n.name) || (n.sub && listed.includes(n.full)))) {
      delete c.requests;
    }
  }
  return out;
}

function sameRequirement(a: NodeSelectorRequirement, b: NodeSelectorRequirement): boolean {
  if (a.key !== b.key || a.operator !== b.operator) return false;
  const x = new Set(a.values ?? []);
  const y = new Set(b.values ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

function addNew(
  from: readonly NodeSelectorRequirement[] | undefined,
  to: NodeSelectorRequirement[],
) {
  for (const r of from ?? []) if (!to.some((t) => sameRequirement(t, r))) to.push(r);
}

/** kube's createNodeSelector: the node itself, the slices' single terms merged, or none. */
function nodeSelector(
  claim: ResourceClaimInfo,
  results: readonly DeviceResult[],
  node: NodeLike,
): DraNodeSelector | undefined {
  const fields: NodeSelectorRequirement[] = [];
  const exprs: NodeSelectorRequirement[] = [];
  for (const { candidate } of results) {
    const { slice, device } = candidate;
    const from = slice.perDeviceNodeSelection ? device : slice;
    if (from.nodeName || device.bindsToNode) {
      return {
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.name] }] },
        ],
      };
    }
    const terms = from.nodeSelector?.nodeSelectorTerms ?? [];
    if (terms.length > 1) {
      throw new AllocatorError(
        `create NodeSelector for claim ${claim.name}: unsupported ResourceSlice.NodeSelector with ${terms.length} terms`,
      );
    }
    addNew(terms[0]?.matchFields, fields);
    addNew(terms[0]?.matchExpressions, exprs);
  }
  if (fields.length === 0 && exprs.length === 0) return undefined;
  return {
    nodeSelectorTerms: [
      {
        ...(exprs.length > 0 && { matchExpressions: exprs }),
        ...(fields.length > 0 && { matchFields: fields }),
      },
    ],
  };
}

/** The AllocationResult of one claim. */
export function buildResult(
  claim: ResourceClaimInfo,
  requests: RequestData[][],
  selected: readonly number[],
  results: readonly DeviceResult[],
  node: NodeLike,
): AllocationResult {
  const config = configs(claim, chosen(requests, selected));
  const selector = nodeSelector(claim, results, node);
  return {
    devices: { results: results.map(deviceResult), ...(config.length > 0 && { config }) },
    ...(selector !== undefined && { nodeSelector: selector }),
  };
}
