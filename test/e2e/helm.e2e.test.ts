// The Helm chart helm/berth on a real control plane: lint, strict dry runs, install, RBAC, upgrade, uninstall.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadKubeConfig, makeClients } from '../../src/adapters/kube/config.ts';
import { kubeEffects } from '../../src/adapters/kube/effects.ts';
import { listKind } from '../../src/adapters/kube/list-once.ts';
import { objectSource } from '../../src/adapters/kube/list-watch.ts';
import { TokenBucket } from '../../src/adapters/kube/rate-limiter.ts';
import { type BerthRun, startBerthAsConfigured } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  chartDir,
  Helm,
  kindAndName,
  parseObjects,
  serviceMonitorCrd,
  tokenKubeconfig,
  writeValues,
} from './support/helm.ts';
import { httpsGet } from './support/https-get.ts';
import { freeLoopbackPort } from './support/kube-scheduler.ts';
import { type EventJson, eventsAbout } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pods, toYaml } from './support/manifests.ts';
import { applyPodGroupCrd, podGroupCrdName, podGroupCrdPath } from './support/pod-group-crd.ts';
import {
  type Access,
  berthNeeds,
  describeAccess,
  grantedRules,
  neededAccess,
  neededRules,
} from './support/rbac-needs.ts';
import { waitFor } from './support/wait.ts';

const dryNs = 'helm-dry';
const release = 'berth';
const releaseNs = 'berth-system';
/** release "berth" contains the chart name, so every object is called just "berth". */
const fullname = 'berth';
const appsNs = 'apps';
const nodeNames = ['kwok-a', 'kwok-b', 'kwok-c'];
const podCount = 12;
const serviceAccountUser = `system:serviceaccount:${releaseNs}:${fullname}`;

/** Every kind the chart creates with default values plus the ServiceMonitor (sorted). */
const chartKinds = [
  // berth's own, and the metrics reader's (get /metrics)
  'ClusterRole',
  'ClusterRole',
  // berth's own, and system:auth-delegator's (TokenReview, SubjectAccessReview)
  'ClusterRoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Deployment',
  'Lease',
  'PodDisruptionBudget',
  'Role',
  'RoleBinding',
  'Service',
  'ServiceAccount',
  'ServiceMonitor',
  // the bind fence: the API server refuses a bind from a replica that lost the Lease
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];
/** The same kinds as `kubectl get` resource names (cluster-scoped ones included). */
const chartResources = [
  'clusterroles.rbac.authorization.k8s.io',
  'clusterrolebindings.rbac.authorization.k8s.io',
  'configmaps',
  'deployments.apps',
  'leases.coordination.k8s.io',
  'poddisruptionbudgets.policy',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
  'services',
  'serviceaccounts',
  'servicemonitors.monitoring.coreos.com',
  'validatingadmissionpolicies.admissionregistration.k8s.io',
  'validatingadmissionpolicybindings.admissionregistration.k8s.io',
].join(',');

interface DeploymentJson {
  metadata: { generation?: number };
  spec: {
    replicas: number;
    template: {
      metadata: { annotations?: Record<string, string> };
      spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
    };
  };
}

/** The parts of the PodGroup CRD the tests read. */
interface CrdJson {
  metadata: { labels?: Record<string, string> };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: Record<string, unknown>;
      additionalPrinterColumns?: { name: string; jsonPath: string }[];
    }[];
  };
  status?: { conditions?: { type: string; status: string }[] };
}

interface PodGroupJson {
  status?: Record<string, unknown>;
}

interface LeaseJson {
  metadata: { resourceVersion: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** One row of the values matrix: values, and what the rendered objects must show. */
interface RenderCase {
  name: string;
  values: Record<string, unknown>;
  check: (objects: Manifest[]) => void;
}

function find(objects: Manifest[], kind: string): Manifest | undefined {
  return objects.find((o) => o.kind === kind);
}

function deploymentOf(objects: Manifest[]): DeploymentJson {
  const d = find(objects, 'Deployment');
  if (d === undefined) throw new Error('no Deployment rendered');
  return d as unknown as DeploymentJson;
}

function configOf(objects: Manifest[]): Record<string, unknown> {
  const cm = find(objects, 'ConfigMap') as { data?: Record<string, string> } | undefined;
  return parseYaml(cm?.data?.['config.yaml'] ?? 'null') as Record<string, unknown>;
}

function kindsOf(objects: Manifest[]): string[] {
  return objects.map((o) => String(o.kind)).sort();
}

const placement = {
  nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
  tolerations: [
    { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  ],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
        ],
      },
    },
  },
  priorityClassName: 'system-node-critical',
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'berth' } },
    },
  ],
};

const renderCases: RenderCase[] = [
  {
    name: 'defaults',
    values: {},
    check: (objects) => {
      expect(kindsOf(objects)).toEqual(chartKinds.filter((k) => k !== 'ServiceMonitor'));
      // The bind fence takes the chart's Lease (in the release namespace) as its parameter.
      const lease = find(objects, 'Lease');
      const { name, namespace } = (lease?.metadata ?? {}) as Record<string, string>;
      expect(find(objects, 'ValidatingAdmissionPolicyBinding')).toMatchObject({
        spec: {
          validationActions: ['Deny'],
          paramRef: { name, namespace, parameterNotFoundAction: 'Deny' },
        },
      });
      const d = deploymentOf(objects);
      expect(d.spec.replicas).toBe(2);
      const pod = d.spec.template.spec;
      expect(pod.priorityClassName).toBe('system-cluster-critical');
      expect(pod.automountServiceAccountToken).toBe(true);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(15);
      expect(pod.affinity).toMatchObject({ podAntiAffinity: {} });
      const [c] = pod.containers;
      expect(c?.image).toBe('berth:0.1.0');
      expect(c?.args).toEqual([
        'run',
        '--config',
        '/etc/berth/config.yaml',
        '--log-level',
        'info',
        '--qps',
        '50',
        '--burst',
        '100',
        '--secure-port',
        '10259',
      ]);
      expect(c?.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 65532,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c?.resources).toEqual({
        requests: { cpu: '100m', memory: '128Mi' },
        limits: { memory: '512Mi' },
      });
      // No plain HTTP: the probes and scrapes go to the HTTPS port.
      expect(configOf(objects)).not.toHaveProperty('metricsBindAddress');
      expect(c?.ports).toEqual([{ name: 'https', containerPort: 10259, protocol: 'TCP' }]);
      expect(c?.readinessProbe).toMatchObject({
        httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' },
      });
      expect(configOf(objects)).toMatchObject({
        schedulerName: 'berth',
        leaderElection: {
          leaderElect: true,
          leaseDuration: '15s',
          renewDeadline: '10s',
          retryPeriod: '2s',
          resourceName: 'berth',
          resourceNamespace: dryNs,
        },
      });
      expect(find(objects, 'PodDisruptionBudget')).toMatchObject({ spec: { minAvailable: 1 } });
    },
  },
  {
    name: 'one replica (no PodDisruptionBudget)',
    values: { replicaCount: 1 },
    check: (objects) => {
      expect(deploymentOf(objects).spec.replicas).toBe(1);
      expect(find(objects, 'PodDisruptionBudget')).toBeUndefined();
    },
  },
  {
    name: 'ServiceMonitor on (minimal CRD installed first)',
    values: { metrics: { serviceMonitor: { enabled: true, labels: { release: 'prom' } } } },
    check: (objects) => {
      expect(kindsOf(objects)).toEqual(chartKinds);
      expect(find(objects, 'ServiceMonitor')).toMatchObject({
        metadata: { labels: { release: 'prom' } },
        spec: {
          endpoints: [
            {
              port: 'https',
              path: '/metrics',
              scheme: 'https',
              bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
              tlsConfig: { insecureSkipVerify: true },
            },
          ],
        },
      });
    },
  },
  {
    name: 'HTTPS with a certificate Secret, a bound reader and a verifying ServiceMonitor',
    values: {
      metrics: {
        tls: { secretName: 'berth-tls' },
        reader: { create: true, subjects: [{ name: 'prometheus', namespace: 'monitoring' }] },
        serviceMonitor: {
          enabled: true,
          authorization: { type: 'Bearer', credentials: { name: 'scraper', key: 'token' } },
          tlsConfig: {
            serverName: 'berth.helm-dry.svc',
            ca: { secret: { name: 'berth-ca', key: 'ca.crt' } },
          },
        },
      },
    },
    check: (objects) => {
      const pod = deploymentOf(objects).spec.template.spec;
      const [c] = pod.containers;
      expect((c?.args as string[] | undefined)?.slice(-6)).toEqual([
        '--secure-port',
        '10259',
        '--tls-cert-file',
        '/etc/berth-tls/tls.crt',
        '--tls-private-key-file',
        '/etc/berth-tls/tls.key',
      ]);
      expect(pod.volumes).toContainEqual({ name: 'tls', secret: { secretName: 'berth-tls' } });
      const reader = objects.find(
        (o) =>
          o.kind === 'ClusterRoleBinding' &&
          (o.metadata as { name?: string }).name === 'dry-berth-metrics-reader',
      );
      expect(reader).toMatchObject({
        roleRef: { kind: 'ClusterRole', name: 'dry-berth-metrics-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
      });
      const endpoint = (find(objects, 'ServiceMonitor') as { spec: { endpoints: unknown[] } }).spec
        .endpoints[0];
      expect(endpoint).toEqual({
        port: 'https',
        path: '/metrics',
        scheme: 'https',
        interval: '30s',
        scrapeTimeout: '10s',
        authorization: { type: 'Bearer', credentials: { name: 'scraper', key: 'token' } },
        tlsConfig: {
          serverName: 'berth.helm-dry.svc',
          ca: { secret: { name: 'berth-ca', key: 'ca.crt' } },
        },
      });
    },
  },
  {
    name: 'leader election off (one replica, no Lease, Role or RoleBinding)',
    values: { replicaCount: 1, leaderElection: { leaderElect: false } },
    check: (objects) => {
      expect(kindsOf(objects)).toEqual(
        ['ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBinding'].concat(
          'ConfigMap',
          'Deployment',
          'Service',
          'ServiceAccount',
        ),
      );
      expect(configOf(objects)).toMatchObject({ leaderElection: { leaderElect: false } });
    },
  },
  {
    name: 'bind fence off (no admission policy)',
    values: { leaderElection: { bindFence: false } },
    check: (objects) => {
      expect(kindsOf(objects)).toEqual(
        chartKinds.filter((k) => k !== 'ServiceMonitor' && !k.startsWith('ValidatingAdmission')),
      );
    },
  },
  {
    name: 'nodeSelector, tolerations, affinity, priorityClassName, topology spread',
    values: placement,
    check: (objects) => {
      expect(deploymentOf(objects).spec.template.spec).toMatchObject(placement);
    },
  },
  {
    name: 'resources, image digest and config overrides',
    values: {
      resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
      image: {
        repository: 'registry.example/berth',
        digest: `sha256:${'a'.repeat(64)}`,
        pullPolicy: 'Always',
      },
      config: { schedulerName: 'batch', percentageOfNodesToScore: 30 },
      leaderElection: { resourceName: 'batch-leader', leaseDuration: '30s' },
      logLevel: 'debug',
      kubeAPI: { qps: 20.5, burst: 40 },
    },
    check: (objects) => {
      const [c] = deploymentOf(objects).spec.template.spec.containers;
      expect(c?.resources).toEqual({
        requests: { cpu: '1', memory: '1Gi' },
        limits: { cpu: '2', memory: '2Gi' },
      });
      expect(c?.image).toBe(`registry.example/berth@sha256:${'a'.repeat(64)}`);
      expect(c?.args).toEqual(expect.arrayContaining(['debug', '20.5', '40']));
      expect(configOf(objects)).toMatchObject({
        schedulerName: 'batch',
        percentageOfNodesToScore: 30,
        leaderElection: { resourceName: 'batch-leader', leaseDuration: '30s' },
      });
      expect(find(objects, 'Lease')).toMatchObject({ metadata: { name: 'batch-leader' } });
      expect(find(objects, 'Role')).toMatchObject({ rules: [{ resourceNames: ['batch-leader'] }] });
    },
  },
  {
    name: 'existing ServiceAccount, no RBAC, no Service, hard anti-affinity, fullnameOverride',
    values: {
      fullnameOverride: 'sched',
      serviceAccount: { create: false, name: 'prebuilt' },
      rbac: { create: false },
      metrics: { service: { enabled: false } },
      podAntiAffinityPreset: 'hard',
      podDisruptionBudget: { enabled: false },
    },
    check: (objects) => {
      expect(kindsOf(objects)).toEqual([
        'ConfigMap',
        'Deployment',
        'Lease',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ]);
      const pod = deploymentOf(objects).spec.template.spec;
      expect(pod.serviceAccountName).toBe('prebuilt');
      expect(pod.affinity).toMatchObject({
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{}] },
      });
    },
  },
  {
    name: 'a recording sealed with a key from an existing Secret',
    values: { recording: { enabled: true, keySecret: 'berth-record-key' } },
    check: (objects) => {
      const pod = deploymentOf(objects).spec.template.spec;
      const [c] = pod.containers as { args: string[]; volumeMounts: Record<string, unknown>[] }[];
      const args = c?.args.join(' ');
      expect(args).toContain('--record /var/lib/berth/record.jsonl');
      expect(args).toContain('--record-key /etc/berth-record-key/key');
      expect(c?.volumeMounts).toContainEqual({
        name: 'record-key',
        mountPath: '/etc/berth-record-key',
        readOnly: true,
      });
      expect(pod.volumes).toContainEqual({
        name: 'record-key',
        secret: {
          secretName: 'berth-record-key',
          defaultMode: 0o440,
          items: [{ key: 'key', path: 'key' }],
        },
      });
      expect(pod.volumes).toContainEqual({ name: 'recording', emptyDir: { sizeLimit: '1Gi' } });
    },
  },
];

/** Values the schema (or the chart's own checks) must refuse, and the message expected. */
const badValues: { name: string; values: Record<string, unknown>; error: RegExp }[] = [
  {
    name: 'replicaCount "two"',
    values: { replicaCount: 'two' },
    error: /at '\/replicaCount': got string, want integer/,
  },
  {
    name: 'a misspelt top-level key',
    values: { replicas: 2 },
    error: /at '': additional properties 'replicas' not allowed/,
  },
  {
    name: 'an unknown config key',
    values: { config: { percentageOfNodes: 50 } },
    error: /at '\/config': additional properties 'percentageOfNodes' not allowed/,
  },
  {
    name: 'a profile for the default scheduler’s name',
    values: { profiles: [{ schedulerName: 'default-scheduler' }] },
    error: /at '\/profiles\/0\/schedulerName': 'not' failed/,
  },
  {
    name: 'a duration without a unit',
    values: { leaderElection: { leaseDuration: '15' } },
    error: /at '\/leaderElection\/leaseDuration': '15' does not match pattern/,
  },
  {
    name: 'a privileged metrics port',
    values: { metrics: { port: 80 } },
    error: /at '\/metrics\/port': minimum: got 80/,
  },
  {
    name: 'a short grace period',
    values: { terminationGracePeriodSeconds: 5 },
    error: /at '\/terminationGracePeriodSeconds': minimum: got 5, want 15/,
  },
  {
    name: 'a recording key without a recording',
    values: { recording: { enabled: false, keySecret: 'berth-record-key' } },
    error: /recording.keySecret needs recording.enabled/,
  },
  {
    name: 'a recording outside its volume',
    values: { recording: { enabled: true, path: '/etc/record.jsonl' } },
    error: /at '\/recording\/path': '\/etc\/record.jsonl' does not match pattern/,
  },
  {
    name: 'two replicas without leader election',
    values: { leaderElection: { leaderElect: false } },
    error: /replicaCount > 1 needs leaderElection.leaderElect/,
  },
  {
    name: 'a backoff whose maximum is below its start',
    values: { config: { backoff: { initialMs: 5000, maxMs: 1000 } } },
    error: /config.backoff.maxMs must be ≥ config.backoff.initialMs/,
  },
];

const podGroups = { resource: 'podgroups', group: 'scheduling.x-k8s.io' };
/** Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1, gate GenericWorkload). */
const corePodGroups = { resource: 'podgroups', group: 'scheduling.k8s.io' };

function groupReport(key: string) {
  return { key, phase: 'Pending' as const, scheduled: 0, running: 0, succeeded: 0, failed: 0 };
}

const needed = neededAccess({ apps: appsNs, release: releaseNs });

const lease = { resource: 'leases', group: 'coordination.k8s.io' };
const forbidden: Access[] = [
  ...['get', 'list', 'watch'].flatMap((verb) => [
    { verb, resource: 'secrets' },
    { verb, resource: 'secrets', namespace: releaseNs },
    { verb, resource: 'secrets', namespace: appsNs },
  ]),
  // Pods: berth binds and deletes (preemption victims); it never creates or changes one.
  ...['create', 'update', 'patch', 'deletecollection'].map((verb) => ({
    verb,
    resource: 'pods',
    namespace: appsNs,
  })),
  // No wildcard anywhere: not all verbs on pods, not every resource.
  { verb: '*', resource: 'pods', namespace: appsNs },
  { verb: 'get', resource: '*' },
  { verb: 'get', resource: '*', group: '*' },
  { verb: 'update', resource: 'pods', subresource: 'status', namespace: appsNs },
  { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: appsNs },
  ...['create', 'update', 'patch', 'delete'].map((verb) => ({ verb, resource: 'nodes' })),
  { verb: 'patch', resource: 'nodes', subresource: 'status' },
  ...['get', 'update', 'create'].map((verb) => ({
    ...lease,
    verb,
    namespace: 'kube-system',
    name: 'berth',
  })),
  { ...lease, verb: 'create', namespace: releaseNs },
  { ...lease, verb: 'delete', namespace: releaseNs, name: 'berth' },
  { ...lease, verb: 'list', namespace: releaseNs },
  { ...lease, verb: 'update', namespace: releaseNs, name: 'kube-scheduler' },
  { verb: 'get', resource: 'configmaps', namespace: releaseNs, name: fullname },
  // DRA: berth updates a claim (its finalizer) and its status, and creates and deletes the
  // special claims of extended resources (as kube-scheduler's role); it patches none.
  { verb: 'patch', resource: 'resourceclaims', group: 'resource.k8s.io', namespace: appsNs },
  { verb: 'update', resource: 'resourceslices', group: 'resource.k8s.io' },
  // A PodGroup's spec is its owner's: berth writes only the status.
  ...['create', 'update', 'patch', 'delete'].map((verb) => ({
    verb,
    ...podGroups,
    namespace: appsNs,
  })),
  { verb: 'create', resource: 'events', namespace: appsNs },
  // Events are only created (berth writes no Event series), PodGroup status only patched.
  ...['patch', 'update', 'delete'].map((verb) => ({
    verb,
    resource: 'events',
    group: 'events.k8s.io',
    namespace: appsNs,
  })),
  ...['get', 'update'].map((verb) => ({
    verb,
    ...podGroups,
    subresource: 'status',
    namespace: appsNs,
  })),
  // Kubernetes' own PodGroups: read, and their condition patched, as kube-scheduler's role
  // (less its status update, which berth never sends); their spec and Workloads are the
  // controllers'.
  ...['create', 'update', 'patch', 'delete'].map((verb) => ({
    verb,
    ...corePodGroups,
    namespace: appsNs,
  })),
  { verb: 'update', ...corePodGroups, subresource: 'status', namespace: appsNs },
  ...['get', 'list', 'watch', 'create', 'update', 'patch'].map((verb) => ({
    verb,
    resource: 'workloads',
    group: 'scheduling.k8s.io',
    namespace: appsNs,
  })),
];

describe('the Helm chart helm/berth', () => {
  const cluster = useCluster('helm');
  let helm: Helm;
  let berth: BerthRun | undefined;
  /** A kubeconfig with a token of the chart's ServiceAccount (set by the install test). */
  let saKubeconfig = '';

  beforeAll(async () => {
    const c = cluster();
    const version = await c.kubectl.raw<{ gitVersion: string }>('/version');
    helm = new Helm(join(c.binDir, 'helm'), c.kubeconfig, join(c.dir, 'helm'), version.gitVersion);
    await c.kubectl.apply(toYaml([namespace(dryNs), serviceMonitorCrd()]));
    await c.kubectl.run([
      'wait',
      '--for=condition=Established',
      'crd/servicemonitors.monitoring.coreos.com',
      '--timeout=30s',
    ]);
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('passes helm lint --strict with default and with non-default values', async () => {
    const nonDefault = writeValues(cluster().dir, 'lint', {
      replicaCount: 3,
      metrics: { serviceMonitor: { enabled: true } },
      leaderElection: { resourceName: 'berth-leader' },
      ...placement,
    });
    for (const files of [[], [nonDefault]]) {
      const r = await helm.run([
        'lint',
        '--strict',
        '--kube-version',
        helm.kubeVersion,
        ...files.flatMap((f) => ['--values', f]),
        chartDir,
      ]);
      expect(r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    }
  });

  it.each(renderCases)(
    'renders $name, and the API server accepts it in a strict server-side dry run',
    async ({ name, values, check }) => {
      const file = writeValues(cluster().dir, name.replace(/\W+/g, '-'), values);
      const r = await helm.template('dry', dryNs, [file]);
      expect(r.code, r.stderr).toBe(0);
      const objects = parseObjects(r.stdout);
      check(objects);
      const dry = await cluster().kubectl.run(
        ['apply', '--dry-run=server', '--validate=strict', '-f', '-'],
        { input: r.stdout, allowFailure: true },
      );
      expect(dry.stderr).toBe('');
      expect(dry.code).toBe(0);
      // One "… (server dry run)" line per object: the API server saw every one of them.
      expect(dry.stdout.trim().split('\n')).toHaveLength(objects.length);
      expect(dry.stdout).not.toMatch(/^(?!.*\(server dry run\)$).+$/m);
    },
  );

  it.each(badValues)('refuses $name', async ({ name, values, error }) => {
    const file = writeValues(cluster().dir, `bad-${name.replace(/\W+/g, '-')}`, values);
    const r = await helm.template('dry', dryNs, [file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(error);
  });

  it('installs; berth with its ServiceAccount and ConfigMap schedules pods, takes the Lease and writes Events', async () => {
    const c = cluster();
    const k = c.kubectl;
    // Before the chart, nothing serves PodGroups: berth's list says so instead of failing.
    const admin = makeClients(loadKubeConfig({ kubeconfig: c.kubeconfig }));
    expect(await listKind('PodGroup', objectSource(admin, 'PodGroup'), true)).toEqual([
      { type: 'ResyncStarted', kind: 'PodGroup' },
      {
        type: 'ResyncDone',
        kind: 'PodGroup',
        unavailable:
          'the API server does not serve scheduling.x-k8s.io/v1alpha1 podgroups (is the PodGroup CRD installed?)',
      },
    ]);
    await helm.run([
      'install',
      release,
      chartDir,
      '--namespace',
      releaseNs,
      '--create-namespace',
      '--set',
      'metrics.serviceMonitor.enabled=true',
    ]);
    const installed = parseObjects(
      (await helm.run(['get', 'manifest', release, '-n', releaseNs])).stdout,
    );
    expect(kindsOf(installed)).toEqual(chartKinds);

    await k.apply(
      toYaml([
        namespace(appsNs),
        ...nodeNames.map((n) => kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110 })),
      ]),
    );
    const token = (
      await k.run(['create', 'token', fullname, '-n', releaseNs, '--duration=3600s'])
    ).stdout.trim();
    saKubeconfig = tokenKubeconfig(c.kubeconfig, token, 'berth-chart-sa');
    const configMap = await k.getJson<{ data: Record<string, string> }>([
      'configmap',
      fullname,
      '-n',
      releaseNs,
    ]);
    const configFile = join(c.dir, 'chart-config.yaml');
    writeFileSync(configFile, configMap.data['config.yaml'] ?? '');

    // The chart's config file as it is; only the HTTPS server moves to a free loopback port.
    berth = startBerthAsConfigured(saKubeconfig, configFile, c.dir, 'berth-chart', [
      '--bind-address',
      '127.0.0.1',
      '--secure-port',
      String(await freeLoopbackPort()),
    ]);
    await k.create(toYaml(pods('web', appsNs, podCount, { cpu: '200m', memory: '128Mi' })));
    const run = berth;

    const pending = await waitFor('every berth pod bound and Running', async () => {
      run.checkAlive();
      const ours = await k.pods(appsNs);
      const left = ours.filter((p) => !p.spec.nodeName || p.status?.phase !== 'Running');
      return {
        ok: ours.length === podCount && left.length === 0,
        seen: left.map((p) => p.metadata.name),
      };
    });
    expect(pending).toEqual([]);
    for (const p of await k.pods(appsNs)) expect(nodeNames).toContain(p.spec.nodeName);

    // The query NOTES.txt suggests: Events whose reportingController is the scheduler name.
    const missing = await waitFor('a Scheduled event by berth for each pod', async () => {
      const events = (
        await k.getJson<{ items: EventJson[] }>([
          'events.events.k8s.io',
          '-n',
          appsNs,
          '--field-selector',
          'reportingController=berth',
        ])
      ).items;
      const ours = await k.pods(appsNs);
      const lacking = ours.filter(
        (p) => eventsAbout(events, p.metadata.name, 'Scheduled').length !== 1,
      );
      return { ok: lacking.length === 0, seen: lacking.map((p) => p.metadata.name) };
    });
    expect(missing).toEqual([]);

    const held = await k.getJson<LeaseJson>(['lease', 'berth', '-n', releaseNs]);
    expect(held.spec?.holderIdentity?.startsWith(hostname())).toBe(true);
    expect(held.spec?.leaseDurationSeconds).toBe(15);
    expect(held.spec?.renewTime).toBeTruthy();

    // The probes' endpoints answer on the status server.
    const listening = await run.waitForLog(
      'the status server address',
      (e) => e.msg === 'status server listening',
    );
    const url = (listening as { url?: string }).url;
    for (const path of ['/livez', '/readyz']) {
      const res = await httpsGet(`${url}${path}`, { timeoutMs: 5_000 });
      expect(`${path} ${res.status} ${res.body}`).toBe(`${path} 200 ok`);
    }

    // The chart's identity was enough: no request of berth's was refused.
    expect(run.stdout).not.toMatch(/forbidden|\b403\b/i);
  });

  it('grants exactly the rules of the table of needs, each naming its e2e test: no wildcard, no secrets, nothing unused', async () => {
    const r = await helm.template(release, releaseNs);
    expect(r.code, r.stderr).toBe(0);
    const granted = grantedRules(parseObjects(r.stdout));
    expect(granted.filter((g) => g.includes('*') || g.includes('secrets'))).toEqual([]);
    expect(granted).toEqual(neededRules());
    for (const n of berthNeeds) expect(n.usedBy).toMatch(/^[a-z-]+\.e2e: \S/);
  });

  it('SubjectAccessReviews: every verb berth needs is allowed, the rest denied', async () => {
    const reviews = [...needed, ...forbidden].map((a) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: serviceAccountUser,
        groups: [
          'system:serviceaccounts',
          `system:serviceaccounts:${releaseNs}`,
          'system:authenticated',
        ],
        resourceAttributes: {
          verb: a.verb,
          resource: a.resource,
          group: a.group ?? '',
          subresource: a.subresource ?? '',
          namespace: a.namespace ?? '',
          name: a.name ?? '',
        },
      },
    }));
    // One line per review: the attributes it asked about, then the authorizer's answer.
    const fields = ['verb', 'group', 'resource', 'subresource', 'namespace', 'name'];
    const line = fields.map((f) => `{.spec.resourceAttributes.${f}}`).join('|');
    const r = await cluster().kubectl.run(
      ['create', '-f', '-', '-o', `jsonpath=${line}|{.status.allowed}{"\\n"}`],
      { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: reviews }) },
    );
    const answers = new Map<string, string>();
    for (const row of r.stdout.trim().split('\n')) {
      const cells = row.split('|');
      answers.set(cells.slice(0, fields.length).join('|'), cells[fields.length] ?? '');
    }
    expect(answers.size).toBe(reviews.length);
    const keyOf = (a: Access) =>
      [
        a.verb,
        a.group ?? '',
        a.resource,
        a.subresource ?? '',
        a.namespace ?? '',
        a.name ?? '',
      ].join('|');
    const verdict = (list: Access[]) =>
      list.map((a) => {
        const allowed = answers.get(keyOf(a));
        return `${describeAccess(a)}: ${allowed === 'true' ? 'allowed' : allowed === 'false' ? 'denied' : `no answer (${allowed})`}`;
      });
    expect(verdict(needed)).toEqual(needed.map((a) => `${describeAccess(a)}: allowed`));
    expect(verdict(forbidden)).toEqual(forbidden.map((a) => `${describeAccess(a)}: denied`));
  });

  it('helm upgrade: replicas alone keep the config checksum, a config change rolls it, the Lease holder is untouched', async () => {
    const k = cluster().kubectl;
    const run = berth;
    if (run === undefined) throw new Error('berth from the install test is not running');
    const deployment = () => k.getJson<DeploymentJson>(['deployment', fullname, '-n', releaseNs]);
    const checksum = (d: DeploymentJson) =>
      d.spec.template.metadata.annotations?.['checksum/config'];
    const upgradeSetting = (value: string) =>
      helm.run(['upgrade', release, chartDir, '-n', releaseNs, '--reuse-values', '--set', value]);
    const before = await deployment();
    const leaseBefore = await k.getJson<LeaseJson>(['lease', 'berth', '-n', releaseNs]);

    await upgradeSetting('replicaCount=3');
    const scaled = await deployment();
    expect(scaled.spec.replicas).toBe(3);
    expect(checksum(scaled)).toBe(checksum(before));

    await upgradeSetting('config.percentageOfNodesToScore=50');
    const reconfigured = await deployment();
    expect(reconfigured.spec.replicas).toBe(3);
    expect(checksum(reconfigured)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(reconfigured)).not.toBe(checksum(before));
    const cm = await k.getJson<{ data: Record<string, string> }>([
      'configmap',
      fullname,
      '-n',
      releaseNs,
    ]);
    expect(parseYaml(cm.data['config.yaml'] ?? '')).toMatchObject({ percentageOfNodesToScore: 50 });
    const history = await helm.run(['history', release, '-n', releaseNs, '-o', 'json']);
    expect(
      (JSON.parse(history.stdout) as { revision: number; status: string }[]).map((h) => [
        h.revision,
        h.status,
      ]),
    ).toEqual([
      [1, 'superseded'],
      [2, 'superseded'],
      [3, 'deployed'],
    ]);

    // berth kept the Lease through both upgrades and is still renewing it.
    const renewed = await waitFor(
      'berth to renew the Lease after the upgrades',
      async () => {
        run.checkAlive();
        const l = await k.getJson<LeaseJson>(['lease', 'berth', '-n', releaseNs]);
        return { ok: (l.spec?.renewTime ?? '') > (leaseBefore.spec?.renewTime ?? ''), seen: l };
      },
      { timeoutMs: 20_000 },
    );
    expect(renewed.spec?.holderIdentity).toBe(leaseBefore.spec?.holderIdentity);
    expect(renewed.spec?.acquireTime).toBe(leaseBefore.spec?.acquireTime);
    expect(renewed.spec?.leaseTransitions).toBe(leaseBefore.spec?.leaseTransitions);
    expect(run.exitStatus).toBeUndefined();
  });

  it('installs the PodGroup CRD from crds/: served, with its columns and schema; berth lists PodGroups and writes their status and Events', async () => {
    const c = cluster();
    const k = c.kubectl;
    const run = berth;
    if (run === undefined) throw new Error('berth from the install test is not running');
    // Helm applied crds/ itself (the release manifest holds only the templates).
    const crd = await k.getJson<CrdJson>(['crd', podGroupCrdName]);
    const file = parseYaml(readFileSync(podGroupCrdPath, 'utf8')) as CrdJson;
    expect(crd.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Established', status: 'True' }),
    );
    expect(crd.spec).toMatchObject({
      group: 'scheduling.x-k8s.io',
      scope: 'Namespaced',
      names: { kind: 'PodGroup', plural: 'podgroups', shortNames: ['pg', 'pgs'] },
    });
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.subresources])).toEqual([
      ['v1alpha1', true, true, { status: {} }],
    ]);
    expect(crd.spec.versions).toEqual(file.spec.versions);

    // The schema: int-or-string quantities, minMember ≥ 1.
    await k.apply(
      toYaml([
        {
          apiVersion: 'scheduling.x-k8s.io/v1alpha1',
          kind: 'PodGroup',
          metadata: { name: 'train', namespace: appsNs },
          spec: {
            minMember: 3,
            minResources: { cpu: 3, memory: '3Gi' },
            scheduleTimeoutSeconds: 60,
          },
        },
      ]),
    );
    const created = await k.getJson<{ spec: Record<string, unknown> }>([
      'pg',
      'train',
      '-n',
      appsNs,
    ]);
    expect(created.spec).toEqual({
      minMember: 3,
      minResources: { cpu: 3, memory: '3Gi' },
      scheduleTimeoutSeconds: 60,
    });
    const refused = await k.run(['apply', '-f', '-'], {
      input: toYaml([
        {
          apiVersion: 'scheduling.x-k8s.io/v1alpha1',
          kind: 'PodGroup',
          metadata: { name: 'empty', namespace: appsNs },
          spec: { minMember: 0, minResources: { cpu: [1] } },
        },
      ]),
      allowFailure: true,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /spec\.minMember: Invalid value: 0: .*greater than or equal to 1/,
    );
    expect(refused.stderr).toMatch(/spec\.minResources\.cpu/);

    // berth (the chart's ServiceAccount) listed PodGroups, and saw the CRD served.
    await run.waitForLog(
      'its PodGroup list',
      (e) => e.reflector === 'PodGroup' && e.msg === 'listed',
    );
    expect(run.logs().filter((e) => e.reflector === 'PodGroup' && e.level === 40)).toEqual([]);

    // berth's status and Event writes, with the chart's identity, land as the schema wants.
    // berth stops first, so that nothing else writes this PodGroup meanwhile.
    expect(await run.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    berth = undefined;
    const logLines: Record<string, unknown>[] = [];
    const { reports } = kubeEffects({
      clients: makeClients(loadKubeConfig({ kubeconfig: saKubeconfig })),
      limiter: new TokenBucket({ qps: 10, burst: 10 }),
      reportLimiter: new TokenBucket({ qps: 10, burst: 10 }),
      ingest: () => {},
      logger: pino({ level: 'debug' }, { write: (l: string) => void logLines.push(JSON.parse(l)) }),
      reportingInstance: 'berth-e2e',
      schedulerName: 'berth',
    });
    const startMs = Date.parse('2030-01-02T03:04:05.678Z');
    reports.execute({
      kind: 'reportGroup',
      report: {
        key: `${appsNs}/train`,
        phase: 'Scheduled',
        scheduled: 3,
        running: 1,
        succeeded: 0,
        failed: 0,
        scheduleStartMs: startMs,
        event: { type: 'Normal', reason: 'Scheduled', message: 'all 3 members placed' },
      },
    });
    reports.execute({ kind: 'reportGroup', report: groupReport(`${appsNs}/missing`) });
    await reports.settled();
    expect(logLines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(logLines.filter((l) => l.code === 404).map((l) => l.podGroup)).toEqual([
      `${appsNs}/missing`,
    ]);
    const group = await k.getJson<PodGroupJson>(['podgroup', 'train', '-n', appsNs]);
    expect(group.status).toEqual({
      phase: 'Scheduled',
      scheduled: 3,
      running: 1,
      succeeded: 0,
      failed: 0,
      scheduleStartTime: '2030-01-02T03:04:05Z',
    });
    const columns = await k.run(['get', 'pg', 'train', '-n', appsNs]);
    expect(columns.stdout).toMatch(/^NAME\s+PHASE\s+MINMEMBER\s+RUNNING\s+AGE\n/);
    expect(columns.stdout).toMatch(/\ntrain\s+Scheduled\s+3\s+1\s+\S+\n/);
    const events = (await k.events(appsNs)).filter((e) => e.regarding?.kind === 'PodGroup');
    expect(events).toMatchObject([
      {
        reason: 'Scheduled',
        note: 'all 3 members placed',
        type: 'Normal',
        action: 'Scheduling',
        reportingController: 'berth',
        regarding: { kind: 'PodGroup', name: 'train', namespace: appsNs },
      },
    ]);
    reports.stop();
  });

  it('helm uninstall leaves nothing of the chart behind, in the namespace or cluster-wide', async () => {
    const k = cluster().kubectl;
    const run = berth;
    if (run !== undefined) expect(await run.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const manifest = parseObjects(
      (await helm.run(['get', 'manifest', release, '-n', releaseNs])).stdout,
    );
    expect(kindsOf(manifest)).toEqual(chartKinds);
    const byLabel = async () =>
      (
        await k.run([
          'get',
          chartResources,
          '-A',
          '-l',
          `app.kubernetes.io/instance=${release}`,
          '-o',
          'name',
        ])
      ).stdout
        .trim()
        .split('\n')
        .filter(Boolean);
    // The label query finds every object of the release before the uninstall...
    expect(await byLabel()).toHaveLength(manifest.length);

    await helm.run(['uninstall', release, '-n', releaseNs, '--wait', '--timeout', '60s']);

    // ...and none after it, nor by name, nor the release's own records.
    expect(await byLabel()).toEqual([]);
    for (const o of manifest) {
      const meta = o.metadata as { name: string; namespace?: string };
      const args = [
        'get',
        String(o.kind),
        meta.name,
        ...(meta.namespace ? ['-n', meta.namespace] : []),
      ];
      const r = await k.run(args, { allowFailure: true });
      expect(`${kindAndName(o)}: ${r.code === 0 ? 'still there' : r.stderr}`).toMatch(
        /NotFound|not found/,
      );
    }
    const records = await k.run([
      'get',
      'secrets',
      '-n',
      releaseNs,
      '-l',
      `owner=helm,name=${release}`,
      '-o',
      'name',
    ]);
    expect(records.stdout.trim()).toBe('');
    expect((await helm.run(['list', '-n', releaseNs, '-q'])).stdout.trim()).toBe('');
    // Helm never deletes what it installed from crds/: the CRD, and every PodGroup, stay.
    expect((await k.run(['get', 'crd', podGroupCrdName, '-o', 'name'])).stdout.trim()).toBe(
      `customresourcedefinition.apiextensions.k8s.io/${podGroupCrdName}`,
    );
    expect((await k.run(['get', 'pg', '-n', appsNs, '-o', 'name'])).stdout.trim()).toBe(
      'podgroup.scheduling.x-k8s.io/train',
    );
    // Updating it the way docs/helm.md says (kubectl apply of crds/) works on Helm's copy.
    await applyPodGroupCrd(k);
  });
});
