// Projects full Kubernetes objects onto the fields kube-scheduler 1.34–1.37 reads, before they enter the log.

import type { ObjectKind } from '../cluster/cluster-objects.ts';
import type { NodeObject, PodObject } from '../model/objects.ts';
import { isRecord } from '../model/record.ts';

// What is kept, and who reads it (kube-scheduler 1.34 default plugins, queue, preemption,
// binder). Everything else is representation noise: managedFields, annotations, env, command,
// probes, mounts, image pull details, most status conditions and container states.
//
// Shape rule: at every kept position an object is projected, an array is projected element
// by element, and any other value (a malformed field) passes through untouched, so the
// reducer can explain it. The projection is idempotent.

type Loose = Record<string, unknown>;

/** One level of projection: a key either kept whole (`true`) or projected further. */
export type Shape = { readonly [key: string]: true | Shape | Projection };
/**
 * A custom projection for one field; it receives the raw value and returns the kept one.
 * `element` is set on the projections made by `each`: the shape of every array element, so
 * a decoder that builds objects itself (the protobuf list decoder) can project as it reads.
 */
export type Projection = ((value: unknown) => unknown) & { readonly element?: Shape };

/** Objects keep the listed keys (each projected by its rule); other values pass through. */
function project(value: unknown, shape: Shape): unknown {
  if (!isRecord(value)) return value;
  const out: Loose = {};
  // Walk the object's own keys (a handful) rather than the shape's (dozens): this runs
  // for every watch event.
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !Object.hasOwn(shape, key)) continue;
    const v = value[key];
    if (v === undefined) continue;
    const rule = shape[key] as Shape[string];
    const kept = rule === true ? v : typeof rule === 'function' ? rule(v) : project(v, rule);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

/** Arrays project each element; any other value passes through. */
function each(shape: Shape): Projection {
  const projection = (value: unknown) =>
    Array.isArray(value) ? value.map((v) => project(v, shape)) : value;
  return Object.assign(projection, { element: shape });
}

/** Object metadata of pods and nodes (uid and resourceVersion for identity and resume). */
const meta = {
  name: true,
  namespace: true,
  uid: true,
  resourceVersion: true,
  /** NodeAffinity, InterPodAffinity, PodTopologySpread, PDBs. */
  labels: true,
  creationTimestamp: true,
  /** Terminating pods are skipped by PodTopologySpread and preemption. */
  deletionTimestamp: true,
} as const satisfies Shape;

/**
 * NodeDeclaredFeatures: only the mounts with `bindMountOptions` (what they are does not
 * matter, that they are there does); the key goes when none has them. Idempotent.
 */
function bindMounts(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const kept = value.flatMap((m) =>
    isRecord(m) && m.bindMountOptions !== undefined
      ? [{ bindMountOptions: m.bindMountOptions }]
      : [],
  );
  return kept.length === 0 ? undefined : kept;
}

/** Ephemeral containers: only those with bind mounts, and only those mounts; else dropped. */
function ephemeralBindMounts(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const kept = value.flatMap((c) => {
    const mounts = isRecord(c) ? bindMounts(c.volumeMounts) : undefined;
    return mounts === undefined ? [] : [{ volumeMounts: mounts }];
  });
  return kept.length === 0 ? undefined : kept;
}

const container = {
  name: true,
  /** `Always` on an init container makes it a sidecar (requests, ordering). */
  restartPolicy: true,
  /** NodeDeclaredFeatures: a `RestartAllContainers` action needs that node feature. */
  restartPolicyRules: each({ action: true }),
  volumeMounts: bindMounts,
  /** ImageLocality. */
  image: true,
  /** NodePorts (hostPort, hostIP, protocol); containerPort under hostNetwork. */
  ports: each({ containerPort: true, hostPort: true, hostIP: true, protocol: true }),
  /** NodeResourcesFit: limits default missing requests; claims are DRA's. */
  resources: { requests: true, limits: true, claims: true },
} as const satisfies Shape;

/** Volume sources read by VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits. */
const volume = {
  name: true,
  persistentVolumeClaim: true,
  ephemeral: true,
  csi: true,
  // In-tree sources: VolumeRestrictions conflicts, and CSI migration for volume limits.
  gcePersistentDisk: true,
  awsElasticBlockStore: true,
  azureDisk: true,
  azureFile: true,
  cinder: true,
  rbd: true,
  iscsi: true,
  portworxVolume: true,
  vsphereVolume: true,
  /** An image volume's image: ImageLocality (kube 1.36+) scores the nodes holding it. */
  image: { reference: true },
} as const satisfies Shape;

/** In-place resize: kube charges the spec, actuated and allocated requests (see requests.ts). */
const containerStatus = {
  name: true,
  allocatedResources: true,
  resources: { requests: true },
} as const satisfies Shape;

/** The conditions read, by type, and what is kept of each. */
const conditionShapes: { readonly [type: string]: Shape } = {
  /** Reason Infeasible drops the spec from the charge (in-place resize). */
  PodResizePending: { type: true, reason: true },
  /** Preemption: the first one, True with reason PreemptionByScheduler, marks a victim. */
  DisruptionTarget: { type: true, status: true, reason: true },
};

/** Only `PodResizePending` and `DisruptionTarget` entries are read, in their order. */
function readConditions(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const kept: unknown[] = [];
  for (const c of value) {
    if (!isRecord(c) || typeof c.type !== 'string' || !Object.hasOwn(conditionShapes, c.type))
      continue;
    kept.push(project(c, conditionShapes[c.type] as Shape));
  }
  return kept.length === 0 ? undefined : kept;
}

/** An owner reference: who controls the object, with the owner's API group (a pod's, a claim's). */
const ownerReference = {
  apiVersion: true,
  kind: true,
  name: true,
  uid: true,
  controller: true,
} as const satisfies Shape;

/** What trimPod keeps (also read by the protobuf list decoder). */
export const podShape = {
  metadata: {
    ...meta,
    /** kube writes it as the observedGeneration of the conditions it sets. */
    generation: true,
    ownerReferences: each(ownerReference),
  },
  spec: {
    nodeName: true,
    schedulerName: true,
    priority: true,
    priorityClassName: true,
    preemptionPolicy: true,
    nodeSelector: true,
    affinity: { nodeAffinity: true, podAffinity: true, podAntiAffinity: true },
    tolerations: true,
    topologySpreadConstraints: true,
    schedulingGates: true,
    /** The core PodGroup (scheduling.k8s.io/v1beta1) the pod joins. */
    schedulingGroup: { podGroupName: true },
    hostNetwork: true,
    /** NodeDeclaredFeatures: `false` with hostNetwork. */
    hostUsers: true,
    overhead: true,
    resources: { requests: true, limits: true },
    containers: each(container),
    initContainers: each(container),
    // Ephemeral containers are never scheduled; only their bind mounts are read (NodeDeclaredFeatures).
    ephemeralContainers: ephemeralBindMounts,
    volumes: each(volume),
    resourceClaims: true,
  },
  status: {
    phase: true,
    nominatedNodeName: true,
    /** Preemption picks the victims that started last. */
    startTime: true,
    conditions: readConditions,
    containerStatuses: each(containerStatus),
    initContainerStatuses: each(containerStatus),
    /** Pod-level in-place resize (kube 1.36+): charged like the containers' statuses. */
    allocatedResources: true,
    resources: { requests: true },
    resourceClaimStatuses: true,
  },
} as const satisfies Shape;

/** What trimNode keeps (also read by the protobuf list decoder). */
export const nodeShape = {
  metadata: meta,
  spec: { unschedulable: true, taints: true },
  status: {
    allocatable: true,
    capacity: true,
    images: each({ names: true, sizeBytes: true }),
    /** NodeDeclaredFeatures (kube 1.36+). */
    declaredFeatures: true,
  },
} as const satisfies Shape;

/**
 * Keeps every Pod field kube-scheduler 1.34 reads, and nothing else. Never throws; a
 * malformed value at any kept position (a non-object pod included) passes through as it is.
 */
export function trimPod(raw: unknown): PodObject {
  return project(raw, podShape) as PodObject;
}

/** Keeps every Node field kube-scheduler 1.34 reads, and nothing else. Never throws. */
export function trimNode(raw: unknown): NodeObject {
  return project(raw, nodeShape) as NodeObject;
}

const objectMeta = {
  name: true,
  namespace: true,
  uid: true,
  resourceVersion: true,
  labels: true,
} as const satisfies Shape;

/** A PodGroup's `spec.resourceClaims` entry: its name and the claim or template it names. */
const podGroupClaimShape = {
  name: true,
  resourceClaimName: true,
  resourceClaimTemplateName: true,
} as const satisfies Shape;

/** Workloads: PodTopologySpread's default constraints read only their pod selector. */
const selectorShape = { metadata: objectMeta, spec: { selector: true } } as const satisfies Shape;

/** In-tree volume sources a PersistentVolume may carry (VolumeRestrictions, volume limits). */
const inTreeSources = {
  gcePersistentDisk: true,
  awsElasticBlockStore: true,
  azureDisk: true,
  azureFile: true,
  cinder: true,
  rbd: true,
  iscsi: true,
  portworxVolume: true,
  vsphereVolume: true,
} as const satisfies Shape;

/** What each object kind keeps, and who reads it. */
const objectShapes: { readonly [K in ObjectKind]: Shape } = {
  /** InterPodAffinity's namespaceSelector. */
  Namespace: { metadata: objectMeta },
  Service: selectorShape,
  ReplicaSet: selectorShape,
  StatefulSet: selectorShape,
  ReplicationController: selectorShape,
  /** VolumeBinding, VolumeRestrictions (ReadWriteOncePod), VolumeZone, NodeVolumeLimits. */
  PersistentVolumeClaim: {
    metadata: {
      ...objectMeta,
      // The beta storage class wins over spec.storageClassName; bind-completed tells a bound
      // claim from a pre-bound one; selected-node marks a provisioning in flight.
      annotations: {
        'volume.beta.kubernetes.io/storage-class': true,
        'pv.kubernetes.io/bind-completed': true,
        'volume.kubernetes.io/selected-node': true,
      },
      /** VolumeBinding: a claim being deleted blocks its pods. */
      deletionTimestamp: true,
      /** A generic ephemeral volume's claim must be controlled by its pod. */
      ownerReferences: each({ kind: true, name: true, uid: true, controller: true }),
    },
    spec: { volumeName: true, storageClassName: true, accessModes: true, volumeMode: true },
    status: { phase: true },
  },
  /** VolumeBinding (node affinity), VolumeZone (zone labels), NodeVolumeLimits (driver). */
  PersistentVolume: {
    metadata: { ...objectMeta, annotations: { 'volume.beta.kubernetes.io/storage-class': true } },
    spec: {
      nodeAffinity: true,
      storageClassName: true,
      claimRef: { namespace: true, name: true, uid: true },
      accessModes: true,
      csi: { driver: true, volumeHandle: true },
      ...inTreeSources,
    },
    status: { phase: true },
  },
  /** VolumeBinding (binding mode), VolumeZone (WaitForFirstConsumer skips). */
  StorageClass: {
    metadata: objectMeta,
    provisioner: true,
    volumeBindingMode: true,
    allowedTopologies: true,
  },
  /** DefaultPreemption: which victims a budget covers, how many it lets go, which already went. */
  PodDisruptionBudget: {
    metadata: objectMeta,
    spec: { selector: true },
    status: { disruptionsAllowed: true, disruptedPods: true },
  },
  /** NodeVolumeLimits: per-driver attach limits. */
  CSINode: {
    /** The in-tree plugins migrated to CSI on the node (NodeVolumeLimits, VolumeBinding). */
    metadata: {
      ...objectMeta,
      annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': true },
    },
    spec: { drivers: each({ name: true, nodeID: true, allocatable: true, topologyKeys: true }) },
  },
  /**
   * Gang scheduling: how many members, how much they need, how long to wait. The group's
   * age orders groups. `status` is berth's own output: kept, each status write would come
   * back through the watch as a new input.
   */
  PodGroup: {
    /** berth.dev/topology-key: the node label all members must share (gang-topology.ts). */
    metadata: {
      ...objectMeta,
      creationTimestamp: true,
      annotations: { 'berth.dev/topology-key': true },
    },
    spec: { minMember: true, minResources: true, scheduleTimeoutSeconds: true },
  },
  /**
   * Gang scheduling with Kubernetes' own PodGroup: the policy (basic, or gang with its
   * minCount) and the group's age. Of the status only whether PodGroupInitiallyScheduled is
   * True (kube never sets it back to False) and the generation its condition names: the
   * condition's message, berth's own output, would otherwise come back as a new input.
   * The topology constraint, the priority and preemption policy (kube-scheduler reads
   * `priority`, never `priorityClassName`), the disruption mode, and the resourceClaims
   * with the claim names the status records for templates (claims the members share).
   */
  CorePodGroup: {
    metadata: { ...objectMeta, creationTimestamp: true, generation: true },
    spec: {
      schedulingPolicy: { basic: true, gang: { minCount: true } },
      schedulingConstraints: { topology: each({ key: true }) },
      priority: true,
      preemptionPolicy: true,
      disruptionMode: { single: true, all: true },
      resourceClaims: each(podGroupClaimShape),
    },
    status: {
      conditions: each({ type: true, status: true }),
      resourceClaimStatuses: each({ name: true, resourceClaimName: true }),
    },
  },
  /**
   * DynamicResources: what the claim asks for, what it was given and for whom; the claim's
   * pod (owner, annotation) and its deletion; of `status.devices` (drivers' device status)
   * the device and its conditions' type, status, reason and message, which PreBind's
   * binding conditions read (the drivers' data and transition times are dropped).
   */
  ResourceClaim: {
    metadata: {
      ...objectMeta,
      annotations: {
        'resource.kubernetes.io/pod-claim-name': true,
        /** The claim the scheduler made for the pod's DRA-backed extended resources. */
        'resource.kubernetes.io/extended-resource-claim': true,
      },
      deletionTimestamp: true,
      finalizers: true,
      /** apiVersion too: a claim a core PodGroup's template made is owned by a scheduling.k8s.io PodGroup. */
      ownerReferences: each(ownerReference),
    },
    spec: true,
    status: {
      allocation: true,
      reservedFor: true,
      devices: each({
        driver: true,
        pool: true,
        device: true,
        shareID: true,
        conditions: each({ type: true, status: true, reason: true, message: true }),
      }),
    },
  },
  /**
   * DynamicResources: the class's selectors and configuration, and the extended resource it
   * backs (the newest class wins a name two classes give, hence the creation time).
   */
  DeviceClass: {
    metadata: { ...objectMeta, creationTimestamp: true },
    spec: { selectors: true, config: true, extendedResourceName: true },
  },
  /** DynamicResources: a pool's devices and where they can be used (all of the spec). */
  ResourceSlice: { metadata: objectMeta, spec: true },
  /** DynamicResources: the taint and the devices it applies to (the status is the controller's). */
  DeviceTaintRule: { metadata: objectMeta, spec: true },
};

/** Keeps every field of an object of `kind` that berth's plugins read. Never throws. */
export function trimObject(kind: ObjectKind, raw: unknown): Record<string, unknown> {
  return project(raw, objectShapes[kind]) as Record<string, unknown>;
}
