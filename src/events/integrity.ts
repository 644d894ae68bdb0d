// Well-formedness of one logged event, by type: the fields the core reads, with their types.

import { isObjectKind, objectKinds } from '../model/kinds.ts';
import { isRecord } from '../model/record.ts';
import type { BerthEvent } from './types.ts';

type Fields = Record<string, unknown>;

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** `"name" string` / `"attempt" positive integer` problems, in the order the fields are checked. */
function missing(field: string, what: string, value: unknown): string {
  return value === undefined
    ? `has no "${field}" (${what})`
    : `has "${field}" ${JSON.stringify(value) ?? String(value)}, not ${what}`;
}

function podRefProblem(e: Fields): string | undefined {
  if (!nonEmptyString(e.uid)) return missing('uid', 'a non-empty string', e.uid);
  if (!nonEmptyString(e.key)) return missing('key', 'a namespace/name string', e.key);
  return undefined;
}

/** A nested pod reference (`field`: victim, pod) with its uid and key. */
function podRefField(ref: unknown, field: string): string | undefined {
  if (typeof ref !== 'object' || ref === null || Array.isArray(ref))
    return missing(field, 'an object with uid and key', ref);
  const problem = podRefProblem(ref as Fields);
  return problem === undefined ? undefined : `${field} ${problem}`;
}

/** A claim to deallocate: `key` (namespace/name), `uid`, an optional `resourceVersion`. */
function claimField(e: Fields): string | undefined {
  const c = e.claim;
  if (!isRecord(c)) return missing('claim', 'an object with key and uid', c);
  if (!nonEmptyString(c.key)) return `claim ${missing('key', 'a namespace/name string', c.key)}`;
  if (!nonEmptyString(c.uid)) return `claim ${missing('uid', 'a non-empty string', c.uid)}`;
  const rv = c.resourceVersion;
  if (c.delete !== undefined && c.delete !== true)
    return `claim ${missing('delete', 'true when present', c.delete)}`;
  return rv === undefined || typeof rv === 'string'
    ? undefined
    : `claim ${missing('resourceVersion', 'a string', rv)}`;
}

function attemptProblem(e: Fields): string | undefined {
  const ref = podRefProblem(e);
  if (ref !== undefined) return ref;
  const a = e.attempt;
  if (typeof a !== 'number' || !Number.isInteger(a) || a < 1)
    return missing('attempt', 'a positive integer', a);
  return undefined;
}

function stringField(e: Fields, field: string): string | undefined {
  return typeof e[field] === 'string' ? undefined : missing(field, 'a string', e[field]);
}

/** An optional `code`: an HTTP status (an integer from 100 to 599). */
function httpCodeField(e: Fields): string | undefined {
  const c = e.code;
  if (c === undefined || (typeof c === 'number' && Number.isInteger(c) && c >= 100 && c <= 599))
    return undefined;
  return missing('code', 'an HTTP status code', c);
}

function optionalString(e: Fields, field: string): string | undefined {
  return e[field] === undefined ? undefined : stringField(e, field);
}

function nodeField(e: Fields): string | undefined {
  return nonEmptyString(e.node) ? undefined : missing('node', 'a node name', e.node);
}

/** An object of the API with a named `metadata`; `uid`, when given, a string. */
function objectProblem(e: Fields, field: 'pod' | 'node' | 'object'): string | undefined {
  const obj = e[field];
  if (!isRecord(obj)) return missing(field, 'an object', obj);
  const meta = obj.metadata;
  if (!isRecord(meta)) return missing(`${field}.metadata`, 'an object', meta);
  if (!nonEmptyString(meta.name)) return missing(`${field}.metadata.name`, 'a name', meta.name);
  if (meta.uid !== undefined && typeof meta.uid !== 'string')
    return missing(`${field}.metadata.uid`, 'a string', meta.uid);
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string')
    return missing(`${field}.metadata.namespace`, 'a string', meta.namespace);
  return undefined;
}

const resourceKinds: ReadonlySet<unknown> = new Set(['Node', 'Pod', ...objectKinds]);
const kindsText = `"Node", "Pod" or one of ${objectKinds.join(', ')}`;
const bindFailureReasons: ReadonlySet<unknown> = new Set(['Conflict', 'NotFound', 'Error']);
const podTimers: ReadonlySet<unknown> = new Set(['backoff', 'permit', 'bindingConditions']);
const timersText = 'backoff, permit, bindingConditions or flush';

/** eventProblem for the DRA events that name an attempt (PreBind's wait, PostFilter's deallocation). */
function draProblem(
  e: Fields,
  type:
    | 'ClaimsReserved'
    | 'BindingConditionsMet'
    | 'BindingConditionsFailed'
    | 'ClaimDeallocationRequested'
    | 'ClaimDeallocationFailed',
): string | undefined {
  const problem = attemptProblem(e);
  if (problem !== undefined) return problem;
  if (type === 'ClaimDeallocationRequested') return claimField(e);
  if (type === 'ClaimDeallocationFailed') return claimField(e) ?? stringField(e, 'message');
  if (type === 'BindingConditionsFailed') return nodeField(e) ?? stringField(e, 'message');
  return nodeField(e);
}

/**
 * What is wrong with an event whose `type` is known, e.g. `has no "key" (a namespace/name
 * string)`; undefined when every field the core reads is there with the right type.
 */
export function eventProblem(event: BerthEvent): string | undefined {
  const e = event as unknown as Fields;
  switch (event.type) {
    case 'NodeUpserted':
      return objectProblem(e, 'node');
    case 'PodUpserted':
      return objectProblem(e, 'pod');
    case 'NodeDeleted':
      return nonEmptyString(e.name) ? undefined : missing('name', 'a node name', e.name);
    case 'PodDeleted':
      return podRefProblem(e);
    case 'ResyncStarted':
    case 'ResyncDone':
      return resourceKinds.has(e.kind) ? undefined : missing('kind', kindsText, e.kind);
    case 'ObjectUpserted':
      return isObjectKind(e.kind)
        ? objectProblem(e, 'object')
        : missing('kind', `one of ${objectKinds.join(', ')}`, e.kind);
    case 'ObjectDeleted':
      return isObjectKind(e.kind)
        ? nonEmptyString(e.key)
          ? undefined
          : missing('key', 'an object key', e.key)
        : missing('kind', `one of ${objectKinds.join(', ')}`, e.kind);
    case 'BindSucceeded':
    case 'PodReserved':
    case 'BindRequested':
      return attemptProblem(e) ?? nodeField(e);
    case 'ClaimsReserved':
    case 'BindingConditionsMet':
    case 'BindingConditionsFailed':
    case 'ClaimDeallocationRequested':
    case 'ClaimDeallocationFailed':
      return draProblem(e, event.type);
    case 'BindFailed':
      return (
        attemptProblem(e) ??
        nodeField(e) ??
        (bindFailureReasons.has(e.reason)
          ? (stringField(e, 'message') ?? httpCodeField(e) ?? optionalString(e, 'plugin'))
          : missing('reason', 'Conflict, NotFound or Error', e.reason))
      );
    case 'TimerFired':
      if (e.timer === 'flush') return undefined;
      if (!podTimers.has(e.timer)) return missing('timer', timersText, e.timer);
      return podRefProblem(e);
    case 'LeadershipChanged':
      return typeof e.leading === 'boolean'
        ? stringField(e, 'identity')
        : missing('leading', 'true or false', e.leading);
    case 'PodWaiting': {
      const t = e.timeoutMs;
      const timeout =
        typeof t === 'number' && Number.isFinite(t) && t >= 0
          ? undefined
          : missing('timeoutMs', 'a number of ms', t);
      return attemptProblem(e) ?? nodeField(e) ?? timeout;
    }
    case 'PodUnreserved':
      return attemptProblem(e) ?? nodeField(e) ?? stringField(e, 'reason');
    case 'PodUnschedulable':
      return attemptProblem(e) ?? stringField(e, 'message');
    case 'CycleFailed':
      return attemptProblem(e) ?? stringField(e, 'plugin') ?? stringField(e, 'message');
    case 'PodNominated':
      return attemptProblem(e) ?? nodeField(e) ?? stringField(e, 'message');
    case 'PodHeld':
      return attemptProblem(e) ?? nodeField(e) ?? stringField(e, 'group');
    case 'VictimPreempted':
      return attemptProblem(e) ?? nodeField(e) ?? podRefField(e.victim, 'victim');
    case 'NominationCleared':
      return attemptProblem(e) ?? nodeField(e) ?? podRefField(e.pod, 'pod');
    case 'PreemptionFailed':
      return (
        attemptProblem(e) ??
        nodeField(e) ??
        podRefField(e.victim, 'victim') ??
        stringField(e, 'message')
      );
    default: {
      const unreachable: never = event;
      return `unknown event type ${JSON.stringify((unreachable as { type: unknown }).type)}`;
    }
  }
}
