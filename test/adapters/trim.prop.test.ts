// Property tests of trimming: every fact kube-scheduler 1.34 reads survives, for realistic and junk objects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimNode, trimPod } from '../../src/adapters/trim.ts';
import { nodeInfoFromObject } from '../../src/cluster/node-info.ts';
import { podInfoFromObject } from '../../src/cluster/pod-info.ts';

// ---------------------------------------------------------------------------------------------
// The oracle: raw paths the kube-scheduler 1.34 default plugins (and queue, preemption, binder)
// read, written down from kube's source independently of trim.ts. `[]` walks every element.
// ---------------------------------------------------------------------------------------------

const CONTAINER_READS = [
  'name',
  'image', // ImageLocality
  'restartPolicy', // sidecars (NodeResourcesFit)
  'ports[].containerPort', // NodePorts (with hostNetwork the API server copies it to hostPort)
  'ports[].hostPort',
  'ports[].hostIP',
  'ports[].protocol',
  'resources.requests', // NodeResourcesFit, BalancedAllocation
  'resources.limits', // the API server defaults missing requests from limits
  'resources.claims', // DynamicResources
];
const CONTAINER_STATUS_READS = ['name', 'allocatedResources', 'resources.requests'];
const VOLUME_SOURCES = [
  'persistentVolumeClaim', // VolumeBinding, VolumeZone, VolumeRestrictions (RWOP), PVC refcounts
  'ephemeral', // VolumeBinding (generated PVC `<pod>-<volume>`)
  'csi', // NodeVolumeLimits
  'gcePersistentDisk', // VolumeRestrictions; the rest migrate to CSI for NodeVolumeLimits
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cinder',
  'rbd',
  'iscsi',
  'portworxVolume',
  'vsphereVolume',
];

/** Paths whose value is a fact. */
const POD_READS = [
  // identity, DefaultBinder, informer resume
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  // InterPodAffinity, PodTopologySpread, PDBs (preemption)
  'metadata.labels',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp', // terminating pods: spread and preemption skip them
  ...['apiVersion', 'kind', 'name', 'uid', 'controller'].map(
    (k) => `metadata.ownerReferences[].${k}`,
  ),
  'spec.nodeName', // NodeName, assigned-pod detection
  'spec.schedulerName',
  'spec.priority', // PrioritySort, DefaultPreemption
  'spec.priorityClassName',
  'spec.preemptionPolicy',
  'spec.schedulingGates', // SchedulingGates (PreEnqueue)
  'spec.schedulingGroup.podGroupName', // GangScheduling: the core PodGroup the pod joins
  'spec.nodeSelector', // NodeAffinity
  'spec.affinity.nodeAffinity',
  'spec.affinity.podAffinity', // InterPodAffinity
  'spec.affinity.podAntiAffinity',
  'spec.tolerations', // TaintToleration, NodeUnschedulable, PodTopologySpread (nodeTaintsPolicy)
  'spec.topologySpreadConstraints', // PodTopologySpread
  'spec.hostNetwork',
  'spec.overhead',
  'spec.resources.requests', // PodLevelResources
  'spec.resources.limits',
  ...CONTAINER_READS.map((p) => `spec.containers[].${p}`),
  ...CONTAINER_READS.map((p) => `spec.initContainers[].${p}`),
  'spec.volumes[].name',
  ...VOLUME_SOURCES.map((s) => `spec.volumes[].${s}`),
  'spec.resourceClaims', // DynamicResources
  'status.phase', // terminated pods free their node
  'status.nominatedNodeName', // preemption
  'status.startTime', // preemption picks the victims that started last
  ...CONTAINER_STATUS_READS.map((p) => `status.containerStatuses[].${p}`),
  ...CONTAINER_STATUS_READS.map((p) => `status.initContainerStatuses[].${p}`),
  'status.resourceClaimStatuses',
];
/** Paths whose mere presence is a fact (kube: `cs.Resources != nil`). */
const POD_PRESENCE = [
  'status.containerStatuses[].resources',
  'status.initContainerStatuses[].resources',
];

const NODE_READS = [
  'metadata.name',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.labels', // NodeAffinity, PodTopologySpread, InterPodAffinity
  'spec.unschedulable', // NodeUnschedulable
  'spec.taints', // TaintToleration
  'status.allocatable', // NodeResourcesFit
  'status.capacity', // allocatable's default
  'status.images[].names', // ImageLocality
  'status.images[].sizeBytes',
];

type Facts = Map<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Walks `segments` from `value`. A value that cannot be walked (a string where an object or
 * list belongs) is itself the fact at that point: malformed input must survive as it is.
 */
function walk(
  value: unknown,
  segments: string[],
  at: string,
  facts: Facts,
  presence: boolean,
): void {
  if (value === undefined) return;
  const [head, ...rest] = segments;
  if (head === undefined) {
    facts.set(at, presence && isPlainObject(value) ? 'object' : value);
  } else if (!isPlainObject(value)) {
    facts.set(at, value);
  } else {
    const list = head.endsWith('[]');
    const key = list ? head.slice(0, -2) : head;
    const child = value[key];
    const childAt = at === '' ? key : `${at}.${key}`;
    if (!list) walk(child, rest, childAt, facts, presence);
    else if (Array.isArray(child)) {
      for (let i = 0; i < child.length; i++)
        walk(child[i], rest, `${childAt}[${i}]`, facts, presence);
    } else if (child !== undefined) facts.set(childAt, child);
  }
}

/**
 * kube's IsPodResizeInfeasible reads the first `PodResizePending` condition's reason;
 * preemption's podTerminatingByPreemption the first `DisruptionTarget`'s status and reason.
 */
function conditionFacts(pod: unknown, facts: Facts): void {
  if (!isPlainObject(pod) || !isPlainObject(pod.status)) return;
  const conditions = pod.status.conditions;
  if (conditions === undefined) return;
  if (!Array.isArray(conditions)) {
    facts.set('status.conditions', conditions);
    return;
  }
  const first = (type: string) => conditions.find((c) => isPlainObject(c) && c.type === type);
  const resize = first('PodResizePending');
  if (resize !== undefined) facts.set('status.conditions{PodResizePending}.reason', resize.reason);
  const disruption = first('DisruptionTarget');
  if (disruption !== undefined) {
    facts.set('status.conditions{DisruptionTarget}.status', disruption.status);
    facts.set('status.conditions{DisruptionTarget}.reason', disruption.reason);
  }
}

/** Every scheduling-relevant fact of a raw Pod, as a path → value map. */
function podFacts(pod: unknown): Facts {
  const facts: Facts = new Map();
  for (const p of POD_READS) walk(pod, p.split('.'), '', facts, false);
  for (const p of POD_PRESENCE) walk(pod, p.split('.'), '', facts, true);
  conditionFacts(pod, facts);
  return facts;
}

/** Every scheduling-relevant fact of a raw Node. */
function nodeFacts(node: unknown): Facts {
  const facts: Facts = new Map();
  for (const p of NODE_READS) walk(node, p.split('.'), '', facts, false);
  return facts;
}

// ---------------------------------------------------------------------------------------------
// Generators: realistic objects full of representation noise, and junk at every position.
// ---------------------------------------------------------------------------------------------

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/);
const timestamp = fc
  .integer({ min: 1_600_000_000, max: 1_900_000_000 })
  .map((s) => new Date(s * 1000).toISOString().replace('.000', ''));
const quantity = fc.oneof(
  fc.constantFrom('100m', '1', '2', '500Mi', '1Gi', '0', '1.5', 'abc'),
  fc.integer({ min: 0, max: 4 }),
);
const resourceList = fc.dictionary(
  fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'nvidia.com/gpu', 'hugepages-2Mi', 'pods'),
  quantity,
  { maxKeys: 3 },
);
const labels = fc.dictionary(fc.constantFrom('app', 'tier', 'zone', 'team'), name, { maxKeys: 3 });
const labelSelector = fc.record(
  {
    matchLabels: labels,
    matchExpressions: fc.array(
      fc.record({
        key: name,
        operator: fc.constantFrom('In', 'NotIn', 'Exists'),
        values: fc.array(name, { maxLength: 2 }),
      }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);
const topologyKey = fc.constantFrom('topology.kubernetes.io/zone', 'kubernetes.io/hostname');
const podAffinityTerm = fc.record(
  {
    labelSelector,
    topologyKey,
    namespaces: fc.array(name, { maxLength: 2 }),
    matchLabelKeys: fc.array(name, { maxLength: 1 }),
  },
  { requiredKeys: ['topologyKey'] },
);
const podAffinity = fc.record(
  {
    requiredDuringSchedulingIgnoredDuringExecution: fc.array(podAffinityTerm, { maxLength: 2 }),
    preferredDuringSchedulingIgnoredDuringExecution: fc.array(
      fc.record({ weight: fc.integer({ min: 1, max: 100 }), podAffinityTerm }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);
const nodeSelectorTerm = fc.record({
  matchExpressions: fc.array(
    fc.record({ key: name, operator: fc.constantFrom('In', 'Exists'), values: fc.array(name) }),
    { maxLength: 2 },
  ),
});
const nodeAffinity = fc.record(
  {
    requiredDuringSchedulingIgnoredDuringExecution: fc.record({
      nodeSelectorTerms: fc.array(nodeSelectorTerm, { minLength: 1, maxLength: 2 }),
    }),
    preferredDuringSchedulingIgnoredDuringExecution: fc.array(
      fc.record({ weight: fc.integer({ min: 1, max: 100 }), preference: nodeSelectorTerm }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);
const toleration = fc.record(
  {
    key: name,
    operator: fc.constantFrom('Equal', 'Exists'),
    value: name,
    effect: fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule'),
    tolerationSeconds: fc.nat(600),
  },
  { requiredKeys: [] },
);
const spreadConstraint = fc.record(
  {
    maxSkew: fc.integer({ min: 1, max: 3 }),
    topologyKey,
    whenUnsatisfiable: fc.constantFrom('DoNotSchedule', 'ScheduleAnyway'),
    labelSelector,
    minDomains: fc.integer({ min: 1, max: 3 }),
    nodeAffinityPolicy: fc.constantFrom('Honor', 'Ignore'),
    nodeTaintsPolicy: fc.constantFrom('Honor', 'Ignore'),
    matchLabelKeys: fc.array(name, { maxLength: 1 }),
  },
  { requiredKeys: ['maxSkew', 'topologyKey'] },
);
const port = fc.record(
  {
    name,
    containerPort: fc.integer({ min: 1, max: 65535 }),
    hostPort: fc.integer({ min: 0, max: 65535 }),
    hostIP: fc.constantFrom('0.0.0.0', '127.0.0.1'),
    protocol: fc.constantFrom('TCP', 'UDP', 'SCTP'),
  },
  { requiredKeys: ['containerPort'] },
);
const image = fc.constantFrom('nginx:1.27', 'redis', 'registry.k8s.io/pause:3.10');
const container = fc.record(
  {
    name,
    image,
    restartPolicy: fc.constant('Always'),
    ports: fc.array(port, { maxLength: 2 }),
    resources: fc.record(
      { requests: resourceList, limits: resourceList, claims: fc.array(fc.record({ name })) },
      { requiredKeys: [] },
    ),
    // noise
    command: fc.array(name, { maxLength: 2 }),
    args: fc.array(name, { maxLength: 2 }),
    env: fc.array(fc.record({ name, value: name }), { maxLength: 2 }),
    imagePullPolicy: fc.constantFrom('Always', 'IfNotPresent'),
    livenessProbe: fc.record({
      httpGet: fc.record({ path: fc.constant('/healthz'), port: fc.nat() }),
    }),
    volumeMounts: fc.array(fc.record({ name, mountPath: fc.constant('/data') }), { maxLength: 2 }),
    securityContext: fc.record({ runAsNonRoot: fc.boolean() }),
    terminationMessagePath: fc.constant('/dev/termination-log'),
  },
  { requiredKeys: ['name'] },
);
const volume = fc.oneof(
  fc.record({
    name,
    persistentVolumeClaim: fc.record({ claimName: name, readOnly: fc.boolean() }),
  }),
  fc.record({
    name,
    ephemeral: fc.record({
      volumeClaimTemplate: fc.record({
        spec: fc.record({ accessModes: fc.constant(['ReadWriteOnce']), storageClassName: name }),
      }),
    }),
  }),
  fc.record({ name, csi: fc.record({ driver: name, volumeAttributes: labels }) }),
  fc.record({ name, gcePersistentDisk: fc.record({ pdName: name, readOnly: fc.boolean() }) }),
  fc.record({ name, awsElasticBlockStore: fc.record({ volumeID: name }) }),
  fc.record({ name, rbd: fc.record({ monitors: fc.array(name), image: name, pool: name }) }),
  fc.record({ name, iscsi: fc.record({ targetPortal: name, iqn: name, lun: fc.nat(8) }) }),
  fc.record({ name, azureDisk: fc.record({ diskName: name, diskURI: name }) }),
  fc.record({ name, portworxVolume: fc.record({ volumeID: name }) }),
  // noise sources
  fc.record({ name, configMap: fc.record({ name }) }),
  fc.record({ name, secret: fc.record({ secretName: name }) }),
  fc.record({ name, emptyDir: fc.record({ sizeLimit: fc.constant('1Gi') }) }),
  fc.record({ name, hostPath: fc.record({ path: fc.constant('/var/log') }) }),
);
const containerStatus = fc.record(
  {
    name,
    allocatedResources: resourceList,
    resources: fc.record({ requests: resourceList, limits: resourceList }, { requiredKeys: [] }),
    // noise
    ready: fc.boolean(),
    restartCount: fc.nat(5),
    image,
    imageID: name,
    containerID: name,
    started: fc.boolean(),
    state: fc.record({ running: fc.record({ startedAt: timestamp }) }),
  },
  { requiredKeys: ['name'] },
);
const condition = fc.record(
  {
    type: fc.constantFrom(
      'PodScheduled',
      'Ready',
      'PodResizePending',
      'PodResizeInProgress',
      'DisruptionTarget',
    ),
    status: fc.constantFrom('True', 'False'),
    reason: fc.constantFrom(
      'Infeasible',
      'Deferred',
      'Unschedulable',
      'PreemptionByScheduler',
      'DeletionByTaintManager',
    ),
    message: name,
    lastTransitionTime: timestamp,
  },
  { requiredKeys: ['type', 'status'] },
);
const ownerReference = fc.record(
  {
    apiVersion: fc.constantFrom('apps/v1', 'batch/v1'),
    kind: fc.constantFrom('ReplicaSet', 'StatefulSet', 'Job'),
    name,
    uid: fc.uuid(),
    controller: fc.boolean(),
    blockOwnerDeletion: fc.boolean(),
  },
  { requiredKeys: ['kind', 'name', 'uid'] },
);
const managedFields = fc.array(
  fc.record({
    manager: name,
    operation: fc.constant('Update'),
    fieldsV1: fc.object({ maxDepth: 2 }),
  }),
  { maxLength: 2 },
);

/** A full Pod as the API server sends it, with noise everywhere. */
const realisticPod = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('Pod'),
  metadata: fc.record(
    {
      name,
      generateName: name,
      namespace: name,
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      generation: fc.nat(),
      labels,
      annotations: fc.dictionary(name, name, { maxKeys: 2 }),
      creationTimestamp: timestamp,
      deletionTimestamp: timestamp,
      deletionGracePeriodSeconds: fc.nat(30),
      ownerReferences: fc.array(ownerReference, { maxLength: 2 }),
      finalizers: fc.array(name, { maxLength: 1 }),
      managedFields,
    },
    { requiredKeys: ['name'] },
  ),
  spec: fc.record(
    {
      nodeName: name,
      schedulerName: fc.constantFrom('berth', 'default-scheduler'),
      priority: fc.integer({ min: -10, max: 1000 }),
      priorityClassName: name,
      preemptionPolicy: fc.constantFrom('PreemptLowerPriority', 'Never'),
      nodeSelector: labels,
      affinity: fc.record(
        { nodeAffinity, podAffinity, podAntiAffinity: podAffinity },
        { requiredKeys: [] },
      ),
      tolerations: fc.array(toleration, { maxLength: 2 }),
      topologySpreadConstraints: fc.array(spreadConstraint, { minLength: 1, maxLength: 2 }),
      schedulingGates: fc.array(fc.record({ name }), { maxLength: 2 }),
      schedulingGroup: fc.record({ podGroupName: name }),
      hostNetwork: fc.boolean(),
      overhead: resourceList,
      resources: fc.record({ requests: resourceList, limits: resourceList }, { requiredKeys: [] }),
      containers: fc.array(container, { minLength: 1, maxLength: 2 }),
      initContainers: fc.array(container, { maxLength: 2 }),
      ephemeralContainers: fc.array(container, { maxLength: 1 }),
      volumes: fc.array(volume, { maxLength: 3 }),
      resourceClaims: fc.array(fc.record({ name, resourceClaimTemplateName: name }), {
        maxLength: 1,
      }),
      // noise
      restartPolicy: fc.constantFrom('Always', 'Never'),
      dnsPolicy: fc.constant('ClusterFirst'),
      serviceAccountName: name,
      terminationGracePeriodSeconds: fc.nat(30),
      enableServiceLinks: fc.boolean(),
      securityContext: fc.record({ fsGroup: fc.nat() }),
    },
    { requiredKeys: ['containers'] },
  ),
  status: fc.record(
    {
      phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed'),
      nominatedNodeName: name,
      startTime: timestamp,
      conditions: fc.array(condition, { maxLength: 3 }),
      containerStatuses: fc.array(containerStatus, { maxLength: 2 }),
      initContainerStatuses: fc.array(containerStatus, { maxLength: 1 }),
      resourceClaimStatuses: fc.array(fc.record({ name, resourceClaimName: name }), {
        maxLength: 1,
      }),
      // noise
      hostIP: fc.constant('10.0.0.1'),
      podIP: fc.constant('10.1.0.1'),
      qosClass: fc.constantFrom('Guaranteed', 'Burstable', 'BestEffort'),
      message: name,
    },
    { requiredKeys: [] },
  ),
});

/** A full Node as the API server sends it. */
const realisticNode = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('Node'),
  metadata: fc.record(
    {
      name,
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      labels,
      annotations: fc.dictionary(name, name, { maxKeys: 2 }),
      creationTimestamp: timestamp,
      managedFields,
    },
    { requiredKeys: ['name'] },
  ),
  spec: fc.record(
    {
      unschedulable: fc.boolean(),
      taints: fc.array(
        fc.record({ key: name, value: name, effect: fc.constantFrom('NoSchedule', 'NoExecute') }),
        { maxLength: 2 },
      ),
      podCIDR: fc.constant('10.1.0.0/24'),
      providerID: name,
    },
    { requiredKeys: [] },
  ),
  status: fc.record(
    {
      allocatable: resourceList,
      capacity: resourceList,
      images: fc.array(
        fc.record({
          names: fc.array(image, { minLength: 1, maxLength: 2 }),
          sizeBytes: fc.nat(),
        }),
        { maxLength: 3 },
      ),
      // noise
      conditions: fc.array(condition, { maxLength: 2 }),
      addresses: fc.constant([{ type: 'InternalIP', address: '10.0.0.1' }]),
      nodeInfo: fc.record({ kubeletVersion: fc.constant('v1.34.0') }),
      daemonEndpoints: fc.constant({ kubeletEndpoint: { Port: 10250 } }),
    },
    { requiredKeys: [] },
  ),
});

/** Every key name that appears on a read path, plus noise: junk lands where trim looks. */
const KEYS = [
  ...new Set(
    [...POD_READS, ...NODE_READS, 'status.conditions'].flatMap((p) =>
      p.split(/[.]/).map((s) => s.replace('[]', '')),
    ),
  ),
  'type',
  'reason',
  'managedFields',
  'annotations',
  'env',
  'ephemeralContainers',
];
/** Nested objects and lists with relevant keys, any value anywhere (fc.anything at leaves). */
const { junk } = fc.letrec<{ junk: unknown; node: Record<string, unknown>; list: unknown[] }>(
  (tie) => ({
    junk: fc.oneof({ depthSize: 'small' }, fc.anything(), tie('node'), tie('list')),
    node: fc.dictionary(fc.constantFrom(...KEYS), tie('junk'), { maxKeys: 5 }),
    list: fc.array(tie('junk'), { maxLength: 3 }),
  }),
);
const junkWithResize = junk.map((j) =>
  isPlainObject(j) && isPlainObject(j.status)
    ? { ...j, status: { ...j.status, conditions: [{ type: 'PodResizePending', reason: j.kind }] } }
    : j,
);
const junkWithDisruption = junk.map((j) =>
  isPlainObject(j) && isPlainObject(j.status)
    ? {
        ...j,
        status: {
          ...j.status,
          conditions: [
            j.spec,
            { type: 'DisruptionTarget', status: j.status.phase, reason: j.kind },
            { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' },
          ],
        },
      }
    : j,
);
const anyPod = fc.oneof(realisticPod, junk, junkWithResize, junkWithDisruption, fc.anything());
const anyNode = fc.oneof(realisticNode, junk, fc.anything());

const RUNS = { numRuns: 400 };

function entries(facts: Facts): [string, unknown][] {
  return [...facts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('trimPod', () => {
  it('keeps every scheduling-relevant fact of realistic pods', () => {
    fc.assert(
      fc.property(realisticPod, (pod) => {
        expect(entries(podFacts(trimPod(pod)))).toEqual(entries(podFacts(pod)));
      }),
      RUNS,
    );
  });

  it('keeps every scheduling-relevant fact of arbitrary shapes', () => {
    fc.assert(
      fc.property(anyPod, (pod) => {
        expect(entries(podFacts(trimPod(pod)))).toEqual(entries(podFacts(pod)));
      }),
      RUNS,
    );
  });

  it('parses to the same PodInfo', () => {
    fc.assert(
      fc.property(anyPod, (pod) => {
        expect(podInfoFromObject(trimPod(pod))).toEqual(podInfoFromObject(pod));
      }),
      RUNS,
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(anyPod, (pod) => {
        const once = trimPod(pod);
        expect(trimPod(once)).toStrictEqual(once);
      }),
      RUNS,
    );
  });

  it('drops the representation noise of realistic pods', () => {
    const noise =
      /"(managedFields|annotations|env|command|livenessProbe|volumeMounts|imagePullPolicy|ephemeralContainers|qosClass|restartCount|state|configMap|secret|hostPath)":/;
    fc.assert(
      fc.property(realisticPod, (pod) => {
        expect(JSON.stringify(trimPod(pod))).not.toMatch(noise);
      }),
      RUNS,
    );
  });
});

describe('trimNode', () => {
  it('keeps every scheduling-relevant fact, realistic or arbitrary', () => {
    fc.assert(
      fc.property(anyNode, (node) => {
        expect(entries(nodeFacts(trimNode(node)))).toEqual(entries(nodeFacts(node)));
      }),
      RUNS,
    );
  });

  it('parses to the same NodeInfo', () => {
    fc.assert(
      fc.property(anyNode, (node) => {
        expect(nodeInfoFromObject(trimNode(node))).toEqual(nodeInfoFromObject(node));
      }),
      RUNS,
    );
  });

  it('is idempotent and drops the noise', () => {
    fc.assert(
      fc.property(anyNode, (node) => {
        const once = trimNode(node);
        expect(trimNode(once)).toStrictEqual(once);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(realisticNode, (node) => {
        expect(JSON.stringify(trimNode(node))).not.toMatch(
          /"(managedFields|annotations|conditions|addresses|nodeInfo|daemonEndpoints|podCIDR)":/,
        );
      }),
      RUNS,
    );
  });
});
