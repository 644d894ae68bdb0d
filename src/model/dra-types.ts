// The resource.k8s.io/v1 objects DRA scheduling reads (claims, device classes, resource slices, device taint rules), as JSON data.
//
// Each type is the API object's JSON with the fields the scheduler does not read left out;
// a field keeps its API name and meaning, quantities stay the API's strings. The parsers in
// dra-objects.ts produce these from raw objects and reject what kube's validation would.

import type { NodeSelectorTerm } from './objects.ts';

/** A core/v1 NodeSelector as the DRA types carry it (terms are ORed). */
export interface DraNodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** A device attribute: exactly one of the values is set. */
export interface DeviceAttribute {
  int?: number;
  bool?: boolean;
  string?: string;
  /** A semantic version (semver 2.0.0), as the API server validated it. */
  version?: string;
}

/** The amount of one capacity a device has, and how a request may consume it. */
export interface DeviceCapacity {
  /** A quantity string ("80Gi"). */
  value: string;
  requestPolicy?: {
    default?: string;
    validValues?: string[];
    validRange?: { min?: string; max?: string; step?: string };
  };
}

/** A device taint (also what a DeviceTaintRule adds to the devices it selects). */
export interface DeviceTaint {
  key: string;
  value?: string;
  effect: 'None' | 'NoSchedule' | 'NoExecute';
  /** RFC 3339 time the taint was added (informational for the scheduler). */
  timeAdded?: string;
}

/** A device's use of a shared counter set's counters (partitionable devices). */
export interface DeviceCounterConsumption {
  counterSet: string;
  /** Counter name → quantity string. */
  counters: Record<string, { value: string }>;
}

/** One device of a ResourceSlice. */
export interface Device {
  name: string;
  /** Qualified name (`domain/id`, or `id` in the driver's domain) → value. */
  attributes?: Record<string, DeviceAttribute>;
  /** Qualified name → capacity. */
  capacity?: Record<string, DeviceCapacity>;
  consumesCounters?: DeviceCounterConsumption[];
  /** Per-device node selection (the slice has `perDeviceNodeSelection: true`). */
  nodeName?: string;
  nodeSelector?: DraNodeSelector;
  allNodes?: boolean;
  taints?: DeviceTaint[];
  bindsToNode?: boolean;
  bindingConditions?: string[];
  bindingFailureConditions?: string[];
  allowMultipleAllocations?: boolean;
}

/** A ResourceSlice: some devices of one pool of one driver, and where they can be used. */
export interface ResourceSliceInfo {
  name: string;
  driver: string;
  pool: { name: string; generation: number; resourceSliceCount: number };
  /** Exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection is set. */
  nodeName?: string;
  nodeSelector?: DraNodeSelector;
  allNodes?: boolean;
  perDeviceNodeSelection?: boolean;
  devices: Device[];
  /** Shared counter sets (partitionable devices): set name → counter name → quantity. */
  sharedCounters?: { name: string; counters: Record<string, { value: string }> }[];
  /** The first thing kube's API validation would have refused, by field path; undefined when valid. */
  invalid?: string;
}

/** A CEL device selector. */
export interface DeviceSelector {
  cel?: { expression: string };
}

/** A toleration of device taints. */
export interface DeviceToleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'None' | 'NoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** What an exact request or a firstAvailable subrequest asks for. */
export interface DeviceRequestDetails {
  deviceClassName: string;
  selectors?: DeviceSelector[];
  /** ExactCount (the default) or All. */
  allocationMode?: 'ExactCount' | 'All';
  /** For ExactCount; defaults to 1. */
  count?: number;
  /** Only on an exact request. */
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
  /** Consumable capacity: qualified capacity name → quantity string. */
  capacity?: { requests?: Record<string, string> };
}

/** A request of a claim: `exactly` one device set, or the first of `firstAvailable` that fits. */
export interface DeviceRequest {
  name: string;
  exactly?: DeviceRequestDetails;
  firstAvailable?: (DeviceRequestDetails & { name: string })[];
}

/** A constraint across the devices of some (or all) requests of a claim. */
export interface DeviceConstraint {
  /** Request names (`req` or `req/sub`); empty means all requests. */
  requests?: string[];
  matchAttribute?: string;
  distinctAttribute?: string;
}

/** Configuration carried into an allocation result (opaque to the scheduler). */
export interface DeviceConfiguration {
  requests?: string[];
  opaque?: { driver: string; parameters: unknown };
}

/** One allocated device of a claim. */
export interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
  bindingConditions?: string[];
  bindingFailureConditions?: string[];
  shareID?: string;
  consumedCapacity?: Record<string, string>;
}

/** A claim's allocation (`status.allocation`). */
export interface AllocationResult {
  devices: {
    results: DeviceRequestAllocationResult[];
    config?: (DeviceConfiguration & { source: 'FromClass' | 'FromClaim' })[];
  };
  nodeSelector?: DraNodeSelector;
  allocationTimestamp?: string;
}

/** One condition of an allocated device's status, as the scheduler reads it (metav1.Condition). */
export interface DeviceStatusCondition {
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  reason?: string;
  message?: string;
}

/**
 * A driver's status of one allocated device (`status.devices[]`), trimmed to what PreBind's
 * binding-condition checks read; matched to an allocation result by driver, pool and device.
 */
export interface AllocatedDeviceStatus {
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
  conditions?: DeviceStatusCondition[];
}

/** A consumer of a claim (`status.reservedFor[]`): pods, for the scheduler. */
export interface ResourceClaimConsumerReference {
  apiGroup?: string;
  resource: string;
  name: string;
  uid: string;
}

/** A ResourceClaim: what devices some pods share, and what they were given. */
export interface ResourceClaimInfo {
  namespace: string;
  name: string;
  uid: string;
  /** The claim's resourceVersion: writes to its status carry it as a precondition. */
  resourceVersion?: string;
  /** Set when the claim is being deleted. */
  deletionTimestamp?: string;
  finalizers?: string[];
  /** The owning pod, when the claim was made from a template for it. */
  ownerPodUid?: string;
  /**
   * The name of the owning core PodGroup (a scheduling.k8s.io controller), when the claim was
   * made from the template of the group's `spec.resourceClaims`.
   */
  ownerPodGroup?: string;
  /** The pod it was made for (`resource.kubernetes.io/pod-claim-name` annotation). */
  podClaimName?: string;
  /**
   * The scheduler made it for the pod's DRA-backed extended resources
   * (`resource.kubernetes.io/extended-resource-claim: "true"`).
   */
  extendedResourceClaim?: true;
  spec: {
    devices: {
      requests: DeviceRequest[];
      constraints?: DeviceConstraint[];
      config?: DeviceConfiguration[];
    };
  };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: ResourceClaimConsumerReference[];
    /** Drivers' per-device status; PreBind waits for its binding conditions. */
    devices?: AllocatedDeviceStatus[];
  };
  /** The first thing kube's API validation would have refused, by field path; undefined when valid. */
  invalid?: string;
}

/** kube's ContainerExtendedResourceRequest: which claim request serves a container's extended resource. */
export interface ExtendedRequestMapping {
  containerName: string;
  resourceName: string;
  requestName: string;
}

/** A DeviceClass: selectors and configuration a request names by class. */
export interface DeviceClassInfo {
  name: string;
  selectors?: DeviceSelector[];
  config?: DeviceConfiguration[];
  /** The extended resource (e.g. `example.com/gpu`) this class backs, if any. */
  extendedResourceName?: string;
  /** `metadata.creationTimestamp` as epoch ms: the newest class wins an extended-resource name. */
  creationMs?: number;
  /** The first thing kube's API validation would have refused, by field path; undefined when valid. */
  invalid?: string;
}

/** A DeviceTaintRule: one taint for every device its selector picks. */
export interface DeviceTaintRuleInfo {
  name: string;
  /** Unset fields match every device. */
  deviceSelector?: { driver?: string; pool?: string; device?: string };
  taint: DeviceTaint;
  /** The first thing kube's API validation would have refused, by field path; undefined when valid. */
  invalid?: string;
}
