// What a reflector lists and watches: the source's contract and how its failures are told apart.
import type { ResourceKind } from '../../events/types.ts';
import type { ApiFailure } from './api-error.ts';

/** Callbacks of one watch connection. */
export interface WatchHandlers {
  /** One watch event: `type` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
  onEvent(type: string, obj: unknown): void;
  /** The connection ended: normally (server timeout) when `err` is null/undefined. */
  onClose(err?: unknown): void;
}

/** Where a reflector lists and watches one kind of object. */
export interface ListWatchSource {
  /** What it lists, for messages (e.g. `scheduling.x-k8s.io/v1alpha1 podgroups`). */
  readonly resource?: string;
  /**
   * Lists every object, handing each to `onItem` as it arrives (raw JSON, or with `trimmed`
   * already projected as trimPod/trimNode would: a decoded protobuf item), and resolves with
   * the list's resourceVersion. A list that fails may have handed some objects over first.
   * With `fromCache` the API server may answer from its watch cache (resourceVersion=0, as
   * client-go's first list does): much cheaper, possibly a moment old, which the watch from
   * the list's version makes up for. Relists ask for the current state. A Pod source that
   * lists the pods bound to nodes before the pending ones calls `onAssignedListed` in between.
   */
  list(
    opts: { fromCache: boolean },
    onItem: (item: unknown, trimmed?: boolean) => void,
    onAssignedListed?: () => void,
  ): Promise<{ resourceVersion: string }>;
  /** Watches from `resourceVersion` (bookmarks requested). `onClose` is called at most once. */
  watch(resourceVersion: string, handlers: WatchHandlers): Promise<{ abort(): void }>;
}

/**
 * The one-line `unavailable` reason of an optional kind's relist when the API server answers
 * 404 for `resource` (e.g. `scheduling.x-k8s.io/v1alpha1 podgroups`).
 */
export function notServedMessage(kind: ResourceKind, resource: string | undefined): string {
  if (kind === 'CorePodGroup')
    return `the API server does not serve ${resource ?? 'scheduling.k8s.io/v1beta1 podgroups'} (it needs --runtime-config=scheduling.k8s.io/v1beta1=true and --feature-gates=GenericWorkload=true)`;
  return `the API server does not serve ${resource ?? `${kind} objects`} (is the ${kind} CRD installed?)`;
}

/** The API server does not serve the resource at all (its CRD is not installed, or deleted). */
export function isNotServed(f: ApiFailure): boolean {
  return f.code === 404;
}

/** A 410 Gone in any of its shapes: Status code/reason, HTTP status, or the message. */
export function isGone(f: ApiFailure): boolean {
  return (
    f.code === 410 ||
    f.reason === 'Expired' ||
    f.reason === 'Gone' ||
    /too old resource version/i.test(f.message)
  );
}
