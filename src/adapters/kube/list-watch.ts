// ListWatchSources: paged lists streamed item by item (Pods and Nodes as protobuf) and bookmark watches, through DirectHttp.
import type { ObjectKind } from '../../cluster/cluster-objects.ts';
import { corePodGroupApiVersion } from '../../cluster/core-pod-groups.ts';
import { podGroupApiVersion } from '../../cluster/pod-groups.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { ProtoFormatError } from './protobuf/decode.ts';
import { decodeNodeItem, decodePodItem, type ProtoItemDecoder } from './protobuf/items.ts';
import type { ListWatchSource, WatchHandlers } from './watch-source.ts';

/** Tuning of a list/watch source. */
export interface SourceOptions {
  /** Objects per list page (client-go's reflector uses 500). */
  pageSize?: number;
  /** Timeout of each list page request. */
  listTimeoutMs?: number;
  /** Source of the randomised server-side watch timeout (default Math.random). */
  random?: () => number;
}

/** Pods and Nodes are listed as protobuf, as kube-scheduler lists them, each item decoded. */
interface ProtoOption {
  protobuf?: ProtoItemDecoder;
}

/** `/apis/GROUP/VERSION/PLURAL` → `GROUP/VERSION PLURAL`; `/api/v1/PLURAL` → `v1 PLURAL`. */
function resourceOf(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== 'api' && p !== 'apis');
  const plural = parts.pop() ?? path;
  return parts.length === 0 ? plural : `${parts.join('/')} ${plural}`;
}

/** The query of a list's first page: everything but `limit` and `continue`. */
type FirstPageQuery = Record<string, string | number | undefined>;

/** What a list hands each item to (see ListWatchSource.list). */
type OnItem = Parameters<ListWatchSource['list']>[1];

function makeSource(
  clients: KubeClients,
  path: string,
  opts: SourceOptions & ProtoOption,
): ListWatchSource & { pages: (first: FirstPageQuery, onItem: OnItem) => Promise<string> } {
  const pageSize = opts.pageSize ?? 500;
  let protobuf = opts.protobuf;
  const listTimeoutMs = opts.listTimeoutMs ?? 60_000;
  const random = opts.random ?? Math.random;
  /** Lists every page from `first` on; resolves with the list's resourceVersion. */
  const pages = async (first: FirstPageQuery, onItem: OnItem): Promise<string> => {
    let resourceVersion = '';
    let cont: string | undefined;
    do {
      // A continued page names the same selector; its version is in the continue token.
      const query =
        cont !== undefined
          ? { limit: pageSize, continue: cont, fieldSelector: first.fieldSelector }
          : { limit: pageSize, ...first };
      const page = await clients.http
        .list(path, query, { timeoutMs: listTimeoutMs, protobuf }, onItem)
        .catch((err: unknown) => {
          // A body berth cannot decode is not retried as protobuf: JSON always works.
          if (protobuf === undefined || !(err instanceof ProtoFormatError)) throw err;
          protobuf = undefined;
          throw new ProtoFormatError(`${err.message}; listing ${path} as JSON from now on`);
        });
      if (page.resourceVersion !== '') resourceVersion = page.resourceVersion;
      cont = page.continue;
    } while (cont !== undefined);
    return resourceVersion;
  };
  return {
    resource: resourceOf(path),
    pages,
    async list(listOpts, onItem) {
      const first = { resourceVersion: listOpts.fromCache ? '0' : undefined };
      return { resourceVersion: await pages(first, onItem) };
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
  return makeSource(clients, '/api/v1/nodes', { protobuf: decodeNodeItem, ...opts });
}

/** The field selectors that split the pods into those bound to a node and those pending. */
export const assignedPods = 'spec.nodeName!=';
export const unassignedPods = 'spec.nodeName=';

/**
 * Lists and watches all Pods in all namespaces (`/api/v1/pods`). A list comes in two parts
 * at one resourceVersion: first the pods bound to a node (`onAssignedListed` is called when
 * they are all handed over), then the pending ones, listed `Exact`ly at the first part's
 * version, so that the two parts are one snapshot and the watch resumes from it. A server
 * that refuses the second part (say, one that cannot list at an exact version) is answered
 * by listing every pod again at the current version, whose resourceVersion the watch then
 * starts from: nothing is missed, the bound pods are only handed over twice.
 */
export function podSource(
  clients: KubeClients,
  opts: SourceOptions & {
    /**
     * The first list asks for the pending pods once this settles (`berth run`: when the nodes
     * are listed), so that decoding pods no cycle can place yet does not slow the node list
     * every cycle needs. Relists do not wait.
     */
    pendingAfter?: Promise<unknown>;
  } = {},
): ListWatchSource {
  const source = makeSource(clients, '/api/v1/pods', { protobuf: decodePodItem, ...opts });
  return {
    resource: source.resource,
    watch: source.watch,
    async list(listOpts, onItem, onAssignedListed) {
      const resourceVersion = await source.pages(
        { resourceVersion: listOpts.fromCache ? '0' : undefined, fieldSelector: assignedPods },
        onItem,
      );
      onAssignedListed?.();
      if (listOpts.fromCache) await opts.pendingAfter;
      try {
        // The first list asks for the pending pods in one answer, as a list from the watch
        // cache gets them: pages would each wait behind the binds already going out, holding
        // back the end of the list, and so the watch.
        await source.pages(
          {
            resourceVersion,
            resourceVersionMatch: 'Exact',
            fieldSelector: unassignedPods,
            ...(listOpts.fromCache ? { limit: undefined } : {}),
          },
          onItem,
        );
        return { resourceVersion };
      } catch (error) {
        const code = describeApiError(error).code;
        // Only an answer from the server (400, 410, …) is worked around; a transport
        // failure fails the list, which the reflector retries.
        if (resourceVersion === '' || code === undefined || code >= 500) throw error;
        return { resourceVersion: await source.pages({}, onItem) };
      }
    },
  };
}

/** Where berth lists, watches and writes PodGroups: group, version and plural of the CRD. */
export const podGroupResource = {
  group: podGroupApiVersion.split('/')[0] as string,
  version: podGroupApiVersion.split('/')[1] as string,
  plural: 'podgroups',
} as const;

/** Where berth lists, watches and writes Kubernetes' own PodGroups (gate GenericWorkload). */
export const corePodGroupResource = {
  group: corePodGroupApiVersion.split('/')[0] as string,
  version: corePodGroupApiVersion.split('/')[1] as string,
  plural: 'podgroups',
} as const;

/** Where each object kind is listed and watched (all namespaces). */
function objectPath(kind: ObjectKind): string {
  switch (kind) {
    case 'Namespace':
      return '/api/v1/namespaces';
    case 'Service':
      return '/api/v1/services';
    case 'ReplicationController':
      return '/api/v1/replicationcontrollers';
    case 'ReplicaSet':
      return '/apis/apps/v1/replicasets';
    case 'StatefulSet':
      return '/apis/apps/v1/statefulsets';
    case 'PersistentVolumeClaim':
      return '/api/v1/persistentvolumeclaims';
    case 'PersistentVolume':
      return '/api/v1/persistentvolumes';
    case 'StorageClass':
      return '/apis/storage.k8s.io/v1/storageclasses';
    case 'CSINode':
      return '/apis/storage.k8s.io/v1/csinodes';
    case 'PodDisruptionBudget':
      return '/apis/policy/v1/poddisruptionbudgets';
    case 'PodGroup': {
      const { group, version, plural } = podGroupResource;
      return `/apis/${group}/${version}/${plural}`;
    }
    case 'CorePodGroup': {
      const { group, version, plural } = corePodGroupResource;
      return `/apis/${group}/${version}/${plural}`;
    }
    case 'ResourceClaim':
      return '/apis/resource.k8s.io/v1/resourceclaims';
    case 'DeviceClass':
      return '/apis/resource.k8s.io/v1/deviceclasses';
    case 'ResourceSlice':
      return '/apis/resource.k8s.io/v1/resourceslices';
    case 'DeviceTaintRule':
      return '/apis/resource.k8s.io/v1/devicetaintrules';
  }
}

/** Lists and watches every object of `kind` (all namespaces). */
export function objectSource(
  clients: KubeClients,
  kind: ObjectKind,
  opts: SourceOptions = {},
): ListWatchSource {
  return makeSource(clients, objectPath(kind), opts);
}
