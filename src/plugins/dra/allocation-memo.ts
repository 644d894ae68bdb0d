// Remembers the allocator's answer per node and claim shape while nothing it reads has moved, so a node's allocation is searched once, not once per pod.

import type { NodeInfo } from '../../cluster/types.ts';
import type { DeviceClassInfo, DeviceRequest, ResourceClaimInfo } from '../../model/dra-types.ts';
import { allocate } from './allocator/allocate.ts';
import { gatherPools, type Pool } from './allocator/pools.ts';
import type {
  AllocatedState,
  AllocateInput,
  AllocateOutcome,
  SliceIndex,
} from './allocator/types.ts';

/** What an answer was found from, beyond the slice index and claim shape it is filed under. */
interface Entry {
  /** The node's generation then (a node object is updated in place). */
  readonly generation: number;
  readonly allocated: AllocatedState;
  readonly matcher: AllocateInput['matcher'];
  /** The search's step limit then (the filter timeout's form; absent: none). */
  readonly maxSearchSteps: number | undefined;
  /** The node's pools (the slice index's own, so the same while the index is). */
  readonly pools: readonly Pool[];
  /** The version of each of the node's pools then. */
  readonly versions: readonly number[];
  readonly outcome: AllocateOutcome;
}

type ByNode = WeakMap<NodeInfo, Entry>;

/** Answers by slice index, claim shape and node. Bounded: a full index forgets its shapes. */
const answers = new WeakMap<SliceIndex, Map<string, ByNode>>();
const maxShapes = 1_000;

/** Whether a node's pools can be remembered: no device whose allocation names its claim. */
const rememberable = new WeakMap<readonly Pool[], boolean>();

function canRemember(pools: readonly Pool[]): boolean {
  let ok = rememberable.get(pools);
  if (ok === undefined) {
    // A new share of a multi-allocatable device gets a shareID made from its claim.
    ok = pools.every((p) =>
      p.slices.every((s) => s.devices.every((d) => !d.allowMultipleAllocations)),
    );
    rememberable.set(pools, ok);
  }
  return ok;
}

/** Each class's content as the allocator reads it (selectors, config, validity). */
const classContents = new WeakMap<DeviceClassInfo, string>();

function classContent(cls: DeviceClassInfo | undefined): string {
  if (cls === undefined) return 'missing';
  let content = classContents.get(cls);
  if (content === undefined) {
    content = JSON.stringify([cls.selectors ?? [], cls.config ?? [], cls.invalid ?? null]);
    classContents.set(cls, content);
  }
  return content;
}

/**
 * The claims' shape: their specs, each class name replaced by the class's content and the
 * order in which the name first appears. Two shapes are equal when the allocator would
 * read the same: the same requests, classes of the same content, and the same classes
 * shared between requests (kube groups class config by class). A class's name reaches
 * only error messages, which are never remembered; so pods asking for different classes
 * of equal content (kube's 25 classes of one driver) share answers.
 */
function shapeOf(claims: readonly ResourceClaimInfo[], classes: AllocateInput['classes']): string {
  const order = new Map<string, number>();
  const classKey = (name: string) => {
    let first = order.get(name);
    if (first === undefined) {
      first = order.size;
      order.set(name, first);
    }
    return `${first}:${classContent(classes.get(name))}`;
  };
  // Only the requests' own class names: a deviceClassName inside opaque config parameters
  // is data the allocation copies, and stays as it is.
  const requestsOf = (requests: readonly DeviceRequest[]) =>
    requests.map((r) => ({
      ...r,
      ...(r.exactly && {
        exactly: { ...r.exactly, deviceClassName: classKey(r.exactly.deviceClassName) },
      }),
      ...(r.firstAvailable && {
        firstAvailable: r.firstAvailable.map((sub) => ({
          ...sub,
          deviceClassName: classKey(sub.deviceClassName),
        })),
      }),
    }));
  return JSON.stringify(
    claims.map((c) => ({
      ...c.spec,
      devices: { ...c.spec.devices, requests: requestsOf(c.spec.devices.requests) },
    })),
  );
}

/** The allocator for one cycle's claims, node by node. */
export type NodeAllocator = (node: NodeInfo) => AllocateOutcome;

/**
 * {@link allocate} for `input`'s claims on any node, answered from memory when the same
 * claim shape (`shapeOf`: the claims' specs with their classes' content; all the allocator
 * reads of a claim apart from its name, which only errors print, and its uid, which only
 * shareIDs use) was allocated on the same
 * node object at the same generation, against the same allocated state with every pool of
 * the node at the same version (no device of it taken or given back since), and the same
 * slice index and matcher. Exact: the allocator is a pure function of those.
 * Errors are never remembered, nor nodes with multi-allocatable devices, nor shared
 * slices (a node's labels decide), nor states that keep no pool versions.
 */
export function rememberingAllocator(input: Omit<AllocateInput, 'node'>): NodeAllocator {
  const { allocated, slices, matcher } = input;
  const version = allocated.poolVersion;
  const direct: NodeAllocator = (node) => allocate({ ...input, node });
  if (version === undefined || slices.shared.length > 0) return direct;
  const byNode = shapeMemo(slices, shapeOf(input.claims, input.classes));
  const current = (pools: readonly Pool[], versions: readonly number[]) =>
    pools.every((p, i) => version.call(allocated, p.id) === versions[i]);
  return (node) => {
    const known = byNode.get(node);
    if (
      known !== undefined &&
      known.generation === node.generation &&
      known.allocated === allocated &&
      known.matcher === matcher &&
      known.maxSearchSteps === input.maxSearchSteps &&
      current(known.pools, known.versions)
    )
      return known.outcome;
    const pools = gatherPools(slices, node);
    if (!canRemember(pools)) return direct(node);
    const versions = pools.map((p) => version.call(allocated, p.id));
    const outcome = direct(node);
    if (outcome.kind === 'error') return outcome;
    const { generation } = node;
    const { maxSearchSteps } = input;
    const entry = { generation, allocated, matcher, maxSearchSteps, pools, versions };
    byNode.set(node, { ...entry, outcome });
    return outcome;
  };
}

function shapeMemo(slices: SliceIndex, shape: string): ByNode {
  let byShape = answers.get(slices);
  if (byShape === undefined) {
    byShape = new Map();
    answers.set(slices, byShape);
  }
  let byNode = byShape.get(shape);
  if (byNode === undefined) {
    if (byShape.size >= maxShapes) byShape.clear();
    byNode = new WeakMap();
    byShape.set(shape, byNode);
  }
  return byNode;
}
