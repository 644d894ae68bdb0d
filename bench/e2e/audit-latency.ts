// The scheduler's share of each pod's latency, from kube-apiserver's audit log: create answered → bind received.
import { createsAuditPolicy } from '../../test/e2e/support/audit-policy.ts';

/**
 * An audit policy that logs, at Metadata level, only pod creates and bindings in
 * `namespace`: two short lines per pod, nothing for node heartbeats or watches.
 */
export function podAuditPolicy(namespace: string): string {
  return createsAuditPolicy(namespace, [
    { group: '', resources: ['pods', 'pods/binding', 'bindings'] },
  ]);
}

/** What the audit log says about the pods asked for, all on kube-apiserver's clock. */
export interface AuditLatencies {
  /** Per pod found both created and bound: bind received − create answered, ms (may be slightly < 0). */
  schedulerMs: number[];
  /** Per pod found bound: bind answered − bind received, ms (kube-apiserver and etcd at work). */
  bindMs: number[];
  /** Per pod found created and bound: bind answered − create answered, ms (share + bind). */
  createToBoundMs: number[];
  /** Pods asked for that the log shows created but never bound with 201. */
  unbound: number;
  /** Lines that are not audit events this reader understands (each skipped, none fatal). */
  malformed: number;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  objectRef?: { resource?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
}

const stamp = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/;

/**
 * An RFC 3339 UTC timestamp with up to nanoseconds as ms since the epoch, keeping the
 * microseconds `Date.parse` would drop; undefined when it is not one.
 */
export function auditTimeMs(text: string | undefined): number | undefined {
  const m = text === undefined ? null : stamp.exec(text);
  if (m === null) return undefined;
  const seconds = Date.parse(`${m[1]}Z`);
  if (Number.isNaN(seconds)) return undefined;
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`);
  return seconds + fraction * 1000;
}

/** The pod name a binding event is for: pods/NAME/binding, or a POST to bindings. */
function boundName(e: AuditEvent): string | undefined {
  const ref = e.objectRef;
  if (ref?.resource === 'pods' && ref.subresource === 'binding') return ref.name;
  if (ref?.resource === 'bindings') return ref.name;
  return undefined;
}

/**
 * Reads the JSON-lines audit log `text` and, for each pod in `names`, takes the time its
 * create was answered and its successful (201) binding's received and answered times.
 */
export function auditLatencies(text: string, names: readonly string[]): AuditLatencies {
  const wanted = new Set(names);
  const created = new Map<string, number>();
  const bound = new Map<string, { received: number; answered: number }>();
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let e: AuditEvent;
    try {
      e = JSON.parse(line) as AuditEvent;
    } catch {
      malformed++;
      continue;
    }
    if (e.stage !== 'ResponseComplete' || e.verb !== 'create') continue;
    const received = auditTimeMs(e.requestReceivedTimestamp);
    const answered = auditTimeMs(e.stageTimestamp);
    if (received === undefined || answered === undefined) {
      malformed++;
      continue;
    }
    if (e.responseStatus?.code !== 201) continue;
    const bindingOf = boundName(e);
    if (bindingOf !== undefined) {
      if (wanted.has(bindingOf)) bound.set(bindingOf, { received, answered });
    } else if (e.objectRef?.resource === 'pods' && e.objectRef.subresource === undefined) {
      const name = e.objectRef.name;
      if (name !== undefined && wanted.has(name)) created.set(name, answered);
    }
  }
  const schedulerMs: number[] = [];
  const bindMs: number[] = [];
  const createToBoundMs: number[] = [];
  let unbound = 0;
  for (const [name, at] of created) {
    const b = bound.get(name);
    if (b === undefined) {
      unbound++;
      continue;
    }
    schedulerMs.push(b.received - at);
    bindMs.push(b.answered - b.received);
    createToBoundMs.push(b.answered - at);
  }
  return { schedulerMs, bindMs, createToBoundMs, unbound, malformed };
}
