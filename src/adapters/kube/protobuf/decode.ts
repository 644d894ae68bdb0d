// Decodes one Kubernetes protobuf message into the object its JSON form parses to, keeping only what a trim shape keeps.

import protobuf from 'protobufjs/minimal.js';
import type { Projection, Shape } from '../../trim.ts';
import { ListFormatError } from '../list-splitter.ts';
import type { CompiledSchema, ProtoField } from './schema.ts';

type Reader = protobuf.Reader;
type Loose = Record<string, unknown>;

/** What to keep of a message: everything (`true`), a trim shape, or a trim projection. */
export type KeepRule = true | Shape | Projection;

/**
 * A protobuf body berth cannot read: not a list, cut short, or an item that is not the
 * message the schema describes (wrong wire type, a length past its end, a type berth has no
 * JSON form for). The list source then lists that resource as JSON.
 */
export class ProtoFormatError extends ListFormatError {
  override name = 'ProtoFormatError';
}

const wireVarint = 0;
const wireBytes = 2;

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: metav1.Time marshals it as null. */
const zeroTimeSeconds = -62135596800;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function int64(r: Reader): number {
  const v = r.int64() as unknown as number | { toNumber(): number };
  return typeof v === 'number' ? v : v.toNumber();
}

/** The last time rfc3339 formatted (objects listed together mostly share their seconds). */
let lastTime = { seconds: Number.NaN, text: '' };

/** RFC 3339 in UTC with whole seconds, as metav1.Time writes JSON. */
function rfc3339(seconds: number): string {
  if (seconds !== lastTime.seconds)
    lastTime = { seconds, text: `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z` };
  return lastTime.text;
}

/** Reads the fields of a small message into number → last value, via `read` per field. */
function readSmall(r: Reader, read: (n: number, wire: number) => void): void {
  const end = r.uint32() + r.pos;
  while (r.pos < end) {
    const tag = r.uint32();
    read(tag >>> 3, tag & 7);
  }
  if (r.pos !== end) throw new ProtoFormatError('a message runs past its length');
}

/** The messages whose JSON form is not their fields (Quantity, Time, IntOrString, FieldsV1). */
function readSpecial(r: Reader, type: string): unknown {
  switch (type) {
    case '@Quantity': {
      let text = '';
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 10) text = r.string();
        else r.skipType(tag & 7);
      }
      if (r.pos !== end) throw new ProtoFormatError('a Quantity runs past its length');
      return text;
    }
    case '@Time': {
      // kube writes a zero time as an empty message; either way its JSON is null.
      let seconds = zeroTimeSeconds;
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 8) seconds = int64(r);
        else r.skipType(tag & 7);
      }
      if (r.pos !== end) throw new ProtoFormatError('a Time runs past its length');
      return seconds === zeroTimeSeconds ? null : rfc3339(seconds);
    }
    case '@IntOrString': {
      let kind = 0;
      let int = 0;
      let str = '';
      readSmall(r, (n, wire) => {
        if (n === 1 && wire === wireVarint) kind = int64(r);
        else if (n === 2 && wire === wireVarint) int = r.int32();
        else if (n === 3 && wire === wireBytes) str = r.string();
        else r.skipType(wire);
      });
      return kind === 1 ? str : int;
    }
    case '@FieldsV1': {
      let raw = '';
      readSmall(r, (n, wire) => {
        if (n === 1 && wire === wireBytes) raw = asBuffer(r.bytes()).toString('utf8');
        else r.skipType(wire);
      });
      try {
        return raw === '' ? null : JSON.parse(raw);
      } catch {
        throw new ProtoFormatError('a FieldsV1 is not JSON');
      }
    }
    default:
      throw new ProtoFormatError(`berth cannot decode ${type.slice(1)} from protobuf`);
  }
}

/** A value JSON's omitempty leaves out (null: a zero metav1.Time). */
function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false || value === null;
}

/** What to do with one field of a message under one keep rule. */
interface Step {
  field: ProtoField;
  /** What to keep of its value (of each element, for a repeated field). */
  rule: KeepRule;
  /** An inlined struct: its fields are decoded into the enclosing object. */
  inline: boolean;
}

/** The steps of a message's kept fields, and the projections to apply once it is read. */
interface Plan {
  steps: Map<number, Step>;
  projections: [string, Projection][];
}

/** Decodes the decoder's reader over a whole Kubernetes object (or a part of one). */
export class MessageDecoder {
  constructor(private readonly schema: CompiledSchema) {}

  /**
   * Decodes `bytes`, a whole message of `type`, keeping what `keep` keeps. Anything wrong
   * with the bytes (cut short, a bad wire type) throws a ProtoFormatError.
   */
  decodeObject(bytes: Uint8Array, type: string, keep: KeepRule): Loose {
    try {
      return this.decode(protobuf.Reader.create(bytes), bytes.length, type, keep);
    } catch (err) {
      if (err instanceof ProtoFormatError) throw err;
      // protobufjs throws a RangeError past the end and an Error on an unknown wire type.
      const message = err instanceof Error ? err.message : String(err);
      throw new ProtoFormatError(`a ${type} is not valid protobuf: ${message}`, { cause: err });
    }
  }

  /** Per keep rule object, per message type: what to do with each field number. */
  private readonly plans = new WeakMap<object, Map<string, Plan>>();
  /** The plans of messages kept whole (`keep === true`). */
  private readonly wholePlans = new Map<string, Plan>();

  /** What `keep` keeps of a `type` message, worked out once per (rule, type). */
  private planFor(type: string, keep: KeepRule): Plan {
    let byType = keep === true ? this.wholePlans : this.plans.get(keep);
    if (byType === undefined) {
      byType = new Map();
      this.plans.set(keep as object, byType);
    }
    let plan = byType.get(type);
    if (plan === undefined) {
      plan = this.makePlan(type, keep);
      byType.set(type, plan);
    }
    return plan;
  }

  private makePlan(type: string, keep: KeepRule): Plan {
    const fields = this.schema.get(type);
    if (fields === undefined) throw new ProtoFormatError(`no schema for ${type}`);
    const steps = new Map<number, Step>();
    const projections: [string, Projection][] = [];
    for (const [number, field] of fields) {
      if (field.inline) {
        steps.set(number, { field, rule: keep, inline: true });
        continue;
      }
      let rule: KeepRule | undefined;
      if (keep === true || typeof keep === 'function') rule = true;
      else rule = Object.hasOwn(keep, field.json) ? keep[field.json] : undefined;
      if (rule === undefined) continue;
      // An `each(shape)` projection is applied while reading; any other after the message.
      if (typeof rule === 'function') {
        if (rule.element !== undefined) rule = rule.element;
        else {
          projections.push([field.json, rule]);
          rule = true;
        }
      }
      steps.set(number, { field, rule, inline: false });
    }
    return { steps, projections };
  }

  /** Decodes the message of type `type` filling [r.pos, end) with what `keep` keeps. */
  decode(r: Reader, end: number, type: string, keep: KeepRule, out: Loose = {}): Loose {
    const plan = this.planFor(type, keep);
    const steps = plan.steps;
    while (r.pos < end) {
      const tag = r.uint32();
      const wire = tag & 7;
      const step = steps.get(tag >>> 3);
      if (step === undefined) {
        r.skipType(wire);
        continue;
      }
      if (step.inline) {
        this.expectBytes(step.field, wire);
        const len = r.uint32();
        this.decode(r, r.pos + len, step.field.type, keep, out);
        continue;
      }
      this.readField(r, wire, step.field, step.rule, out);
    }
    if (r.pos !== end) throw new ProtoFormatError(`a ${type} runs past its length`);
    for (const [json, projection] of plan.projections) {
      if (!Object.hasOwn(out, json)) continue;
      const kept = projection(out[json]);
      if (kept === undefined) delete out[json];
      else out[json] = kept;
    }
    return out;
  }

  private expectBytes(field: ProtoField, wire: number): void {
    if (wire !== wireBytes)
      throw new ProtoFormatError(`field ${field.json} has wire type ${wire}, not length-delimited`);
  }

  private readField(r: Reader, wire: number, field: ProtoField, keep: KeepRule, out: Loose): void {
    const json = field.json;
    if (field.type === 'map') {
      this.expectBytes(field, wire);
      out[json] ??= {};
      const map = out[json] as Loose;
      const end = r.uint32() + r.pos;
      let key = '';
      let value: unknown;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag >>> 3 === 1) key = r.string();
        else if (tag >>> 3 === 2)
          value = this.readValue(r, tag & 7, field, field.mapValue ?? '', true);
        else r.skipType(tag & 7);
      }
      if (r.pos !== end) throw new ProtoFormatError(`a ${json} entry runs past its length`);
      map[key] = value ?? this.zeroOf(field.mapValue ?? '');
      return;
    }
    if (field.repeated) {
      out[json] ??= [];
      const list = out[json] as unknown[];
      if (wire === wireBytes && isPackable(field.type)) {
        const end = r.uint32() + r.pos;
        while (r.pos < end) list.push(this.readScalar(r, field.type));
        return;
      }
      list.push(this.readValue(r, wire, field, field.type, keep));
      return;
    }
    const value = this.readValue(r, wire, field, field.type, keep);
    if (field.omitZero && isZero(value)) return;
    out[json] = value;
  }

  private readValue(
    r: Reader,
    wire: number,
    field: ProtoField,
    type: string,
    keep: KeepRule,
  ): unknown {
    if (isScalar(type)) {
      if ((type === 'string' || type === 'bytes') !== (wire === wireBytes))
        throw new ProtoFormatError(`field ${field.json} has wire type ${wire} for a ${type}`);
      return this.readScalar(r, type);
    }
    this.expectBytes(field, wire);
    if (type.startsWith('@')) return readSpecial(r, type);
    const len = r.uint32();
    return this.decode(r, r.pos + len, type, keep);
  }

  private readScalar(r: Reader, type: string): unknown {
    switch (type) {
      case 'string':
        return r.string();
      case 'bytes':
        return asBuffer(r.bytes()).toString('base64');
      case 'bool':
        return r.bool();
      case 'int32':
        return r.int32();
      case 'uint32':
        return r.uint32();
      case 'int64':
      case 'uint64':
        return int64(r);
      case 'double':
        return r.double();
      case 'float':
        return r.float();
      default:
        throw new ProtoFormatError(`unknown scalar ${type}`);
    }
  }

  private zeroOf(type: string): unknown {
    if (type === 'string' || type === '@Quantity') return '';
    if (isScalar(type)) return type === 'bool' ? false : 0;
    return {};
  }
}

const scalarTypes = new Set([
  'string',
  'bytes',
  'bool',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'double',
  'float',
]);

function isScalar(type: string): boolean {
  return scalarTypes.has(type);
}

function isPackable(type: string): boolean {
  return isScalar(type) && type !== 'string' && type !== 'bytes';
}
