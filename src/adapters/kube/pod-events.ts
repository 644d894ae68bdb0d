// The events.k8s.io/v1 Events berth writes about pods (Scheduled, FailedScheduling, Preempted).
import type { PodRef } from '../../events/types.ts';
import { type EventNamer, eventNote } from './event-names.ts';
import { formatMicroTime } from './lease-record.ts';
import { splitKey } from './preemption-effects.ts';

/** A v1 ObjectReference to a pod (an Event's `regarding` or `related`). */
export function podReference(pod: PodRef) {
  const { namespace, name } = splitKey(pod.key);
  return { apiVersion: 'v1', kind: 'Pod', name, namespace, uid: pod.uid };
}

/** A v1 ObjectReference to a core PodGroup (scheduling.k8s.io/v1beta1), keyed `namespace/name`. */
export function podGroupReference(group: PodRef) {
  const { namespace, name } = splitKey(group.key);
  return {
    apiVersion: 'scheduling.k8s.io/v1beta1',
    kind: 'PodGroup',
    name,
    namespace,
    uid: group.uid,
  };
}

/** What a pod Event says. */
export interface PodEvent {
  pod: PodRef;
  type: string;
  reason: string;
  action: string;
  note: string;
  /** The Event's `related` pod (the preemptor of a Preempted Event). */
  related?: PodRef;
  /** The Event's `related` PodGroup (the preemptor of a group's Preempted Event); wins over `related`. */
  relatedGroup?: PodRef;
}

/** Who reports the Event, and when. */
export interface EventSource {
  namer: EventNamer;
  reportingController: string;
  reportingInstance: string;
  timeMs: number;
}

/**
 * The body of an events.k8s.io/v1 Event about `event.pod`, named `<pod>.<hex time>`, its
 * note within the API's limit; `regarding` carries the pod's uid, so that
 * `kubectl describe pod` finds the Event, and only for this pod.
 */
export function podEventBody(event: PodEvent, source: EventSource) {
  const { namespace, name } = splitKey(event.pod.key);
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: source.namer.name(name, source.timeMs), namespace },
    eventTime: formatMicroTime(new Date(source.timeMs)),
    reportingController: source.reportingController,
    reportingInstance: source.reportingInstance,
    action: event.action,
    reason: event.reason,
    type: event.type,
    note: eventNote(event.note),
    regarding: podReference(event.pod),
    ...(event.relatedGroup !== undefined
      ? { related: podGroupReference(event.relatedGroup) }
      : event.related === undefined
        ? {}
        : { related: podReference(event.related) }),
  };
}
