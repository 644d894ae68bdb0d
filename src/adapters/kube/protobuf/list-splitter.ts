// Splits a Kubernetes protobuf list body (magic, runtime.Unknown, XList) into items as its bytes arrive.

import type { ListMetadata } from '../list-splitter.ts';
import { ProtoFormatError } from './decode.ts';
import { hasK8sMagic, k8sMagic as magic, stringField } from './envelope.ts';

/** Reads a varint at `pos`; undefined when its bytes have not all arrived. */
function varintAt(buf: Buffer, pos: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = pos; i < buf.length && i < pos + 10; i++) {
    const b = buf[i] as number;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return { value, next: i + 1 };
    scale *= 128;
  }
  if (buf.length >= pos + 10) throw new ProtoFormatError('a varint longer than 10 bytes');
  return undefined;
}

/** The field at `pos`: its number, wire type and, for length-delimited ones, where the bytes are. */
interface FieldHead {
  number: number;
  wire: number;
  /** Start of the value (after the tag, and after the length for length-delimited fields). */
  start: number;
  /** Length of a length-delimited value. */
  length: number;
}

function fieldAt(buf: Buffer, pos: number): FieldHead | undefined {
  const tag = varintAt(buf, pos);
  if (tag === undefined) return undefined;
  const number = Math.floor(tag.value / 8);
  const wire = tag.value % 8;
  if (wire === 2) {
    const len = varintAt(buf, tag.next);
    return len === undefined ? undefined : { number, wire, start: len.next, length: len.value };
  }
  if (wire === 0) return { number, wire, start: tag.next, length: 0 };
  throw new ProtoFormatError(`a list field of wire type ${wire}`);
}

/**
 * Hands over each item of a protobuf list (its bytes, to decode) once all of them arrived,
 * while the rest of the body is still on the wire. The body is `k8s\0` then a
 * runtime.Unknown whose `raw` (field 2) is the XList: ListMeta (1), then items (2).
 */
export class ProtoListSplitter {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** Bytes dropped from the front of `buf` so far (offsets below are absolute). */
  private dropped = 0;
  private stage: 'magic' | 'envelope' | 'list' = 'magic';
  /** Absolute offset where the list (`raw`) ends. */
  private listEnd = 0;
  private sawList = false;
  private kind = '';
  private meta: ListMetadata = { resourceVersion: '', continue: undefined };

  constructor(private readonly onItem: (item: Buffer) => void) {}

  /** Takes the next chunk of the body and hands over every item it completes. */
  push(chunk: Buffer): void {
    this.buf =
      this.pos < this.buf.length ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : chunk;
    this.dropped += this.pos;
    this.pos = 0;
    while (this.step()) {}
  }

  /** Checks the body was a whole list; returns its resourceVersion and continue token. */
  end(): ListMetadata {
    if (this.pos < this.buf.length || this.stage !== 'envelope' || !this.sawList)
      throw new ProtoFormatError('the protobuf list ended early');
    if (!this.kind.endsWith('List'))
      throw new ProtoFormatError(
        `the protobuf body is a ${this.kind || 'nameless object'}, not a list`,
      );
    return this.meta;
  }

  /** Consumes one thing if its bytes are all there; false when it must wait for more. */
  private step(): boolean {
    const buf = this.buf;
    if (this.stage === 'magic') {
      if (buf.length - this.pos < magic.length) return false;
      if (!hasK8sMagic(buf.subarray(this.pos)))
        throw new ProtoFormatError('the body is not Kubernetes protobuf (no k8s\\0 prefix)');
      this.pos += magic.length;
      this.stage = 'envelope';
      return true;
    }
    if (this.stage === 'list' && this.dropped + this.pos >= this.listEnd) {
      if (this.dropped + this.pos > this.listEnd)
        throw new ProtoFormatError('a list item runs past the list');
      this.stage = 'envelope';
    }
    if (this.pos >= buf.length) return false;
    const head = fieldAt(buf, this.pos);
    if (head === undefined) return false;
    if (head.wire === 0) {
      const v = varintAt(buf, head.start);
      if (v === undefined) return false;
      this.pos = v.next;
      return true;
    }
    if (this.stage === 'envelope' && head.number === 2) {
      // runtime.Unknown.raw: the list itself, read field by field from here on.
      if (this.sawList) throw new ProtoFormatError('two lists in one body');
      this.sawList = true;
      this.stage = 'list';
      this.listEnd = this.dropped + head.start + head.length;
      this.pos = head.start;
      return true;
    }
    const end = head.start + head.length;
    if (end > buf.length) return false;
    const value = buf.subarray(head.start, end);
    this.pos = end;
    if (this.stage === 'envelope') {
      if (head.number === 1) this.kind = stringField(value, 2);
      else if (head.number === 3 && value.length > 0)
        throw new ProtoFormatError(`the protobuf list is encoded (${value.toString()})`);
    } else if (head.number === 2) this.onItem(value);
    else if (head.number === 1)
      this.meta = {
        resourceVersion: stringField(value, 2),
        continue: stringField(value, 3) || undefined,
      };
    return true;
  }
}
