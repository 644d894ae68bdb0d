// DynamicResources' special claim for a pod's DRA-backed extended resources: found or made in PreFilter, fitted to each node in Filter (kube 1.37.2's extendeddynamicresources.go).
import { ownAmount } from '../../cluster/amount.ts';
import { inMemoryExtendedUid } from '../../cluster/claims-in-flight.ts';
import { isDraExtendedResourceName } from '../../cluster/pod-extended.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import { type Status, status } from '../../framework/types.ts';
import type { DeviceClassInfo, ResourceClaimInfo } from '../../model/dra-types.ts';
import {
  deviceClassFor,
  type ExtendedRequestMapping,
  extendedRequestsAndMappings,
} from './extended-resources.ts';

/** kube's name of the special claim while it exists only in the scheduler's memory. */
export const inMemoryClaimName = '<extended-resources>';

/** kube's Filter message when a special claim from an earlier cycle is still there. */
export const staleClaimReason = 'cannot schedule extended resource claim';
/** kube's Filter message when an extended resource is neither on the node nor backed by DRA. */
export const cannotFitReason = 'cannot fit resource';

/** The special claim of a cycle: the one an earlier cycle created, or one in memory. */
export interface ExtendedClaim {
  readonly claim: ResourceClaimInfo;
  /** True for the in-memory claim (created at PreBind). */
  readonly inMemory: boolean;
  /**
   * The claim fitted to nodes, by the resources DRA serves there: one object per set across
   * the cycle's nodes, so what the allocator keeps per request object is made once.
   */
  readonly fitted: Map<string, NodeExtendedClaim>;
}

/** What the special claim asks of one node: its requests and the containers' mappings. */
export interface NodeExtendedClaim {
  readonly claim: ResourceClaimInfo;
  readonly mappings: readonly ExtendedRequestMapping[];
}

/**
 * kube's preFilterExtendedResources: undefined unless the pod requests (non-zero) an extended
 * resource some DeviceClass backs; then the special claim an earlier cycle created for the
 * pod (annotated, controlled by the pod), or a new in-memory one without requests.
 */
export function extendedPreFilter(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
): ExtendedClaim | undefined {
  const classes = snapshot.objects.DeviceClass;
  const backed = pod.scalarRequestNames.some(
    (n) => isDraExtendedResourceName(n) && deviceClassFor(classes, n) !== undefined,
  );
  if (!backed) return undefined;
  for (const claim of snapshot.objects.ResourceClaim.values())
    if (
      claim.extendedResourceClaim === true &&
      claim.ownerPodUid === pod.uid &&
      claim.namespace === pod.namespace
    )
      return { claim, inMemory: false, fitted: new Map() };
  const claim: ResourceClaimInfo = {
    namespace: pod.namespace,
    name: inMemoryClaimName,
    uid: inMemoryExtendedUid(pod.uid),
    ownerPodUid: pod.uid,
    extendedResourceClaim: true,
    spec: { devices: { requests: [] } },
  };
  return { claim, inMemory: true, fitted: new Map() };
}

/**
 * kube's filterExtendedResources on `node`: Unresolvable for a special claim left from an
 * earlier cycle (PostFilter deletes it) or for an extended resource the node neither has
 * nor can get from DRA; `undefined` when DRA has nothing to allocate here (every extended
 * resource is the node's own, its device plugin's); else the claim with the node's requests.
 */
export function extendedFilter(
  pod: PodInfo,
  node: NodeInfo,
  extended: ExtendedClaim,
  classes: ReadonlyMap<string, DeviceClassInfo>,
  name: string,
): Status | NodeExtendedClaim | undefined {
  if (extended.claim.spec.devices.requests.length > 0)
    return status('UnschedulableAndUnresolvable', name, staleClaimReason);
  const viaDra: string[] = [];
  for (const resource of pod.scalarRequestNames) {
    if (!isDraExtendedResourceName(resource)) continue;
    const allocatable = node.allocatable.scalar;
    const backed = deviceClassFor(classes, resource) !== undefined;
    if (backed && ownAmount(allocatable, resource) === 0) viaDra.push(resource);
    else if (!Object.hasOwn(allocatable, resource))
      return status('UnschedulableAndUnresolvable', name, cannotFitReason);
  }
  // berth leaves the claim out when nothing on this node goes through DRA, even beside user
  // claims (kube then allocates an empty claim, and its PreBind fails on the empty mappings).
  if (viaDra.length === 0 || extended.claim.status?.allocation !== undefined) return undefined;
  const key = viaDra.join('\n');
  const known = extended.fitted.get(key);
  if (known !== undefined) return known;
  const { requests, mappings } = extendedRequestsAndMappings(
    pod.extendedContainers ?? [],
    viaDra,
    classes,
  );
  const fitted = { claim: { ...extended.claim, spec: { devices: { requests } } }, mappings };
  extended.fitted.set(key, fitted);
  return fitted;
}
