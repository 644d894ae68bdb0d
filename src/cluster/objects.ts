// The trimmed Kubernetes object shapes that enter the event log: only what scheduling reads.

/** A quantity as it appears in a manifest: a string ("100m", "2Gi") or a bare number. */
export type RawQuantity = string | number;

/** A resource list (`requests`, `allocatable`, `overhead`): resource name to quantity. */
export type RawResourceList = Record<string, RawQuantity>;

/** Node taint, as in `node.spec.taints`. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
}

/** Pod toleration, as in `pod.spec.tolerations`. */
export interface Toleration {
  key?: string;
  operator?: 'Equal' | 'Exists' | string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** One requirement of a node selector term. */
export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  values?: string[];
}

/** A node selector term: all expressions and all fields must match (terms are ORed). */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** A weighted preferred node affinity term. */
export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

/** The node affinity part of `pod.spec.affinity`. */
export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

/** A container's scheduling-relevant fields. */
export interface ContainerObject {
  name?: string;
  /** `Always` on an init container makes it a restartable sidecar. */
  restartPolicy?: string;
  resources?: { requests?: RawResourceList; limits?: RawResourceList };
}

/** Object metadata berth keeps. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

/** A trimmed Pod. Fields may be missing or malformed: the reducer must cope. */
export interface PodObject {
  metadata: ObjectMeta;
  spec: {
    nodeName?: string;
    schedulerName?: string;
    priority?: number;
    priorityClassName?: string;
    preemptionPolicy?: string;
    nodeSelector?: Record<string, string>;
    affinity?: { nodeAffinity?: NodeAffinity };
    tolerations?: Toleration[];
    containers?: ContainerObject[];
    initContainers?: ContainerObject[];
    overhead?: RawResourceList;
  };
  status?: { phase?: string };
}

/** A trimmed Node. */
export interface NodeObject {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { allocatable?: RawResourceList; capacity?: RawResourceList };
}
