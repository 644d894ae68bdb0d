// ListWatchSources: paged raw-JSON lists through @kubernetes/client-node, bookmark watches through DirectHttp.
import type { ConfigurationOptions } from '@kubernetes/client-node';
import type { ObjectKind } from '../../cluster/cluster-objects.ts';
import { podGroupApiVersion } from '../../cluster/pod-groups.ts';
import type { KubeClients } from './config.ts';
import type { ListWatchSource, WatchHandlers } from './reflector.ts';
import { rawJsonOptions } from './request-options.ts';

/** Tuning of a list/watch source. */
export interface SourceOptions {
  /** Objects per list page (client-go's reflector uses 500). */
  pageSize?: number;
  /** Timeout of each list page request. */
  listTimeoutMs?: number;
  /** Source of the randomised server-side watch timeout (default Math.random). */
  random?: () => number;
}

type PageFetcher = (
  params: { limit: number; _continue?: string; resourceVersion?: string },
  options: ConfigurationOptions,
) => Promise<unknown>;

interface RawList {
  items?: unknown;
  metadata?: { resourceVersion?: unknown; continue?: unknown };
}

/** `/apis/GROUP/VERSION/PLURAL` → `GROUP/VERSION PLURAL`; `/api/v1/PLURAL` → `v1 PLURAL`. */
function resourceOf(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== 'api' && p !== 'apis');
  const plural = parts.pop() ?? path;
  return parts.length === 0 ? plural : `${parts.join('/')} ${plural}`;
}

function makeSource(
  clients: KubeClients,
  path: string,
  fetchPage: PageFetcher,
  opts: SourceOptions,
): ListWatchSource {
  const pageSize = opts.pageSize ?? 500;
  const listTimeoutMs = opts.listTimeoutMs ?? 60_000;
  const random = opts.random ?? Math.random;
  return {
    resource: resourceOf(path),
    async list(listOpts) {
      const items: unknown[] = [];
      let resourceVersion = '';
      let cont: string | undefined;
      do {
        const capture = rawJsonOptions(listTimeoutMs);
        const first = listOpts?.fromCache === true ? { resourceVersion: '0' } : {};
        await fetchPage(
          cont === undefined ? { limit: pageSize, ...first } : { limit: pageSize, _continue: cont },
          capture.options,
        );
        const page = (capture.json() ?? {}) as RawList;
        // A loop, not push(...items): a server that ignores `limit` may send 100k items.
        if (Array.isArray(page.items)) for (const item of page.items) items.push(item);
        const meta = page.metadata ?? {};
        if (typeof meta.resourceVersion === 'string') resourceVersion = meta.resourceVersion;
        cont =
          typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
      } while (cont !== undefined);
      return { items, resourceVersion };
    },
    async watch(resourceVersion: string, handlers: WatchHandlers) {
      // The server ends each watch after 5–10 min (like client-go) so connections rotate.
      const timeoutSeconds = 300 + Math.floor(random() * 300);
      return clients.http.watch(
        path,
        {
          resourceVersion: resourceVersion === '' ? undefined : resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        {
          onEvent: (type, obj) => handlers.onEvent(type, obj),
          onClose: (err) => handlers.onClose(err),
        },
      );
    },
  };
}

/** Lists and watches all Nodes (`/api/v1/nodes`). */
export function nodeSource(clients: KubeClients, opts: SourceOptions = {}): ListWatchSource {
  return makeSource(
    clients,
    '/api/v1/nodes',
    (params, options) => clients.core.listNode(params, options),
    opts,
  );
}

/** Lists and watches all Pods in all namespaces (`/api/v1/pods`). */
export function podSource(clients: KubeClients, opts: SourceOptions = {}): ListWatchSource {
  return makeSource(
    clients,
    '/api/v1/pods',
    (params, options) => clients.core.listPodForAllNamespaces(params, options),
    opts,
  );
}

/** Where berth lists, watches and writes PodGroups: group, version and plural of the CRD. */
export const podGroupResource = {
  group: podGroupApiVersion.split('/')[0] as string,
  version: podGroupApiVersion.split('/')[1] as string,
  plural: 'podgroups',
} as const;

/** Where each object kind is listed and watched (all namespaces), and how a page is fetched. */
function objectEndpoint(clients: KubeClients, kind: ObjectKind): [string, PageFetcher] {
  const { core, apps, storage, policy, custom } = clients;
  switch (kind) {
    case 'Namespace':
      return ['/api/v1/namespaces', (p, o) => core.listNamespace(p, o)];
    case 'Service':
      return ['/api/v1/services', (p, o) => core.listServiceForAllNamespaces(p, o)];
    case 'ReplicationController':
      return [
        '/api/v1/replicationcontrollers',
        (p, o) => core.listReplicationControllerForAllNamespaces(p, o),
      ];
    case 'ReplicaSet':
      return ['/apis/apps/v1/replicasets', (p, o) => apps.listReplicaSetForAllNamespaces(p, o)];
    case 'StatefulSet':
      return ['/apis/apps/v1/statefulsets', (p, o) => apps.listStatefulSetForAllNamespaces(p, o)];
    case 'PersistentVolumeClaim':
      return [
        '/api/v1/persistentvolumeclaims',
        (p, o) => core.listPersistentVolumeClaimForAllNamespaces(p, o),
      ];
    case 'PersistentVolume':
      return ['/api/v1/persistentvolumes', (p, o) => core.listPersistentVolume(p, o)];
    case 'StorageClass':
      return ['/apis/storage.k8s.io/v1/storageclasses', (p, o) => storage.listStorageClass(p, o)];
    case 'CSINode':
      return ['/apis/storage.k8s.io/v1/csinodes', (p, o) => storage.listCSINode(p, o)];
    case 'PodDisruptionBudget':
      return [
        '/apis/policy/v1/poddisruptionbudgets',
        (p, o) => policy.listPodDisruptionBudgetForAllNamespaces(p, o),
      ];
    case 'PodGroup': {
      const { group, version, plural } = podGroupResource;
      return [
        `/apis/${group}/${version}/${plural}`,
        (p, o) => custom.listClusterCustomObject({ group, version, plural, ...p }, o),
      ];
    }
  }
}

/** Lists and watches every object of `kind` (all namespaces). */
export function objectSource(
  clients: KubeClients,
  kind: ObjectKind,
  opts: SourceOptions = {},
): ListWatchSource {
  const [path, fetchPage] = objectEndpoint(clients, kind);
  return makeSource(clients, path, fetchPage, opts);
}
