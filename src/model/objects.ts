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

/** A container port, as in `containers[].ports[]` (NodePorts reads the host side). */
export interface ContainerPort {
  containerPort?: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

/** A container's scheduling-relevant fields. */
export interface ContainerObject {
  name?: string;
  /** `Always` on an init container makes it a restartable sidecar. */
  restartPolicy?: string;
  /** ImageLocality scores nodes that already hold it. */
  image?: string;
  ports?: ContainerPort[];
  /** A rule whose action is `RestartAllContainers` needs that node feature (NodeDeclaredFeatures). */
  restartPolicyRules?: { action?: string }[];
  /** Non-empty `bindMountOptions` need the node feature VolumeBindMountOptions (kube 1.37). */
  volumeMounts?: { name?: string; bindMountOptions?: string[] }[];
  /** Requests, limits (the API server defaults requests from them) and DRA claims. */
  resources?: {
    requests?: RawResourceList;
    limits?: RawResourceList;
    claims?: { name: string; request?: string }[];
  };
}

/** An owner reference (ReplicaSet, StatefulSet, Job…): who recreates the pod. */
export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** A label selector, as in affinity terms and spread constraints. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A pod (anti-)affinity term. */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

/** The pod affinity or anti-affinity part of `pod.spec.affinity`. */
export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: {
    weight: number;
    podAffinityTerm: PodAffinityTerm;
  }[];
}

/** One entry of `pod.spec.topologySpreadConstraints`. */
export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  /** `DoNotSchedule` (the default) filters; `ScheduleAnyway` only scores. */
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelector;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

/**
 * A pod volume, reduced to its name and the sources scheduling reads (PVC binding, volume
 * zone, volume restrictions, CSI volume limits, including in-tree sources migrated to CSI).
 */
export interface VolumeObject {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  ephemeral?: Record<string, unknown>;
  csi?: Record<string, unknown>;
  gcePersistentDisk?: Record<string, unknown>;
  awsElasticBlockStore?: Record<string, unknown>;
  azureDisk?: Record<string, unknown>;
  azureFile?: Record<string, unknown>;
  cinder?: Record<string, unknown>;
  rbd?: Record<string, unknown>;
  iscsi?: Record<string, unknown>;
  portworxVolume?: Record<string, unknown>;
  vsphereVolume?: Record<string, unknown>;
  /** An OCI image mounted as a volume (ImageVolume): ImageLocality scores it from kube 1.36. */
  image?: { reference?: string };
}

/** A container status, reduced to what in-place resize makes the scheduler charge. */
export interface ContainerStatusObject {
  name?: string;
  allocatedResources?: RawResourceList;
  resources?: { requests?: RawResourceList };
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
  /** Pods only. */
  generation?: number;
  /** Pods only. */
  ownerReferences?: OwnerReference[];
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
    affinity?: {
      nodeAffinity?: NodeAffinity;
      podAffinity?: PodAffinity;
      podAntiAffinity?: PodAffinity;
    };
    tolerations?: Toleration[];
    topologySpreadConstraints?: TopologySpreadConstraint[];
    schedulingGates?: { name: string }[];
    /** The core PodGroup (scheduling.k8s.io/v1beta1) the pod joins (Kubernetes 1.36+, gate GenericWorkload). */
    schedulingGroup?: { podGroupName?: string };
    /** With host networking the API server defaults each port's hostPort to its containerPort. */
    hostNetwork?: boolean;
    /** `false` with `hostNetwork` needs the node feature UserNamespacesHostNetworkSupport. */
    hostUsers?: boolean;
    containers?: ContainerObject[];
    initContainers?: ContainerObject[];
    /** Only their `volumeMounts[].bindMountOptions` are kept (NodeDeclaredFeatures). */
    ephemeralContainers?: Pick<ContainerObject, 'name' | 'volumeMounts'>[];
    overhead?: RawResourceList;
    /** Pod-level resources (PodLevelResources): cpu, memory and hugepages-* override the containers. */
    resources?: { requests?: RawResourceList; limits?: RawResourceList };
    volumes?: VolumeObject[];
    /** DRA claims the pod references. */
    resourceClaims?: {
      name: string;
      resourceClaimName?: string;
      resourceClaimTemplateName?: string;
    }[];
  };
  status?: {
    phase?: string;
    nominatedNodeName?: string;
    /** Preemption prefers victims that started last. */
    startTime?: string;
    /**
     * Only `PodResizePending` (an infeasible resize changes the charge) and `DisruptionTarget`
     * (a preemption victim) conditions are kept.
     */
    conditions?: { type: string; status?: string; reason?: string }[];
    containerStatuses?: ContainerStatusObject[];
    initContainerStatuses?: ContainerStatusObject[];
    /**
     * Pod-level resources the kubelet allocated (InPlacePodLevelResourcesVerticalScaling,
     * kube 1.36+): the scheduler charges them as it charges containers' allocations.
     */
    allocatedResources?: RawResourceList;
    /** Pod-level resources the kubelet actuated (kube 1.36+, see allocatedResources). */
    resources?: { requests?: RawResourceList };
    /** Names of the ResourceClaims generated for the pod (DRA). */
    resourceClaimStatuses?: { name: string; resourceClaimName?: string }[];
  };
}

/** An image present on a node, as in `node.status.images` (ImageLocality). */
export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

/** A trimmed Node. */
export interface NodeObject {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: {
    allocatable?: RawResourceList;
    capacity?: RawResourceList;
    images?: ContainerImage[];
    /**
     * Features the node declares (kube 1.35+, NodeDeclaredFeatures), sorted and unique as
     * the API server validates them.
     */
    declaredFeatures?: string[];
  };
}
