// The null binder: a "scheduler" that makes no decisions — binds each pending pod of its name to the next node in turn and writes its Scheduled Event.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../../src/adapters/kube/config.ts';
import { DirectHttp } from '../../src/adapters/kube/direct-http.ts';
import { EventNamer } from '../../src/adapters/kube/event-names.ts';
import { podEventBody } from '../../src/adapters/kube/pod-events.ts';
import { TokenBucket } from '../../src/adapters/kube/rate-limiter.ts';
import { RoundRobin } from './round-robin.ts';

// Run bundled (null-binder-process.ts), as `node null-binder.cjs --kubeconfig F --name N --qps Q --burst B`:
// one process, so its CPU and RSS are read from /proc as a scheduler's are. It lists the
// nodes once, lists and then watches the pending pods with `spec.schedulerName=N`, and for
// each one: a token of the bind bucket, the Binding, a token of the Event bucket, the
// events.k8s.io/v1 Scheduled Event (berth's own Event body, kube-scheduler's reason, action
// and note). Two buckets of qps/burst, as kube-scheduler's two clients (and berth's
// --qps/--events-qps); requests go through berth's DirectHttp (keep-alive pool, no gzip).

interface PodItem {
  metadata: { name: string; namespace: string; uid: string; resourceVersion?: string };
  spec?: { nodeName?: string };
}

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    name: { type: 'string', default: 'null-binder' },
    qps: { type: 'string', default: '50' },
    burst: { type: 'string', default: '100' },
  },
});
const name = values.name;
const limits = { qps: Number(values.qps), burst: Number(values.burst) };
const http = new DirectHttp(loadKubeConfig({ kubeconfig: values.kubeconfig }));
const bindBucket = new TokenBucket(limits);
const eventBucket = new TokenBucket(limits);
const namer = new EventNamer();
const instance = `${name}-${hostname()}`;
const timeoutMs = 30_000;
const seen = new Set<string>();
const counts = { bound: 0, events: 0, failed: 0 };

function log(msg: string, extra: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ msg, ...counts, ...extra })}\n`);
}

async function bindAndReport(pod: PodItem, node: string): Promise<void> {
  const { namespace, name: podName, uid } = pod.metadata;
  const path = `/api/v1/namespaces/${namespace}/pods/${podName}`;
  const binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: podName, namespace, uid },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
  try {
    await bindBucket.take();
    await http.request('POST', `${path}/binding`, JSON.stringify(binding), { timeoutMs });
    counts.bound++;
    const event = podEventBody(
      {
        pod: { key: `${namespace}/${podName}`, uid },
        type: 'Normal',
        reason: 'Scheduled',
        action: 'Binding',
        note: `Successfully assigned ${namespace}/${podName} to ${node}`,
      },
      { namer, reportingController: name, reportingInstance: instance, timeMs: Date.now() },
    );
    await eventBucket.take();
    await http.request(
      'POST',
      `/apis/events.k8s.io/v1/namespaces/${namespace}/events`,
      JSON.stringify(event),
      { timeoutMs },
    );
    counts.events++;
  } catch (error) {
    counts.failed++;
    log('bind or Event failed', { pod: `${namespace}/${podName}`, error: String(error) });
  }
}

async function main(): Promise<void> {
  const nodes: string[] = [];
  await http.list('/api/v1/nodes', {}, { timeoutMs }, (item) => {
    nodes.push((item as { metadata: { name: string } }).metadata.name);
  });
  const turn = new RoundRobin(nodes);
  const pending = (pod: PodItem) => {
    if (pod.spec?.nodeName !== undefined || seen.has(pod.metadata.uid)) return;
    seen.add(pod.metadata.uid);
    void bindAndReport(pod, turn.take());
  };
  const fieldSelector = `spec.schedulerName=${name},spec.nodeName=`;
  const listPending = async () => {
    const meta = await http.list('/api/v1/pods', { fieldSelector }, { timeoutMs }, (item) =>
      pending(item as PodItem),
    );
    return meta.resourceVersion;
  };
  let resourceVersion = await listPending();
  log('listed', { nodes: nodes.length, pending: seen.size });
  const watch = async (): Promise<void> => {
    let gone = false;
    await http.watch(
      '/api/v1/pods',
      { fieldSelector, resourceVersion, allowWatchBookmarks: true },
      {
        onEvent(type, object) {
          if (type === 'ERROR') gone = (object as { code?: number }).code === 410;
          else {
            const rv = (object as PodItem).metadata.resourceVersion;
            if (rv !== undefined) resourceVersion = rv;
            if (type === 'ADDED' || type === 'MODIFIED') pending(object as PodItem);
          }
        },
        onClose() {
          void (async () => {
            if (gone) resourceVersion = await listPending();
            await watch();
          })();
        },
      },
    );
  };
  await watch();
}

process.once('SIGTERM', () => {
  log('stopping');
  process.exit(0);
});
main().catch((error: unknown) => {
  log('failed', { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
});
