// Pins ProtoListSplitter: every item handed over once whole, however the body is cut into chunks, and a clear error on what is not a list.
import fc from 'fast-check';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { ProtoFormatError } from './decode.ts';
import { ProtoListSplitter } from './list-splitter.ts';

type Value = string | Uint8Array | number;

function msg(...fields: [number, Value][]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const [n, v] of fields) {
    if (typeof v === 'string') w.uint32((n << 3) | 2).string(v);
    else if (v instanceof Uint8Array) w.uint32((n << 3) | 2).bytes(v);
    else w.uint32(n << 3).int64(v);
  }
  return w.finish();
}

const magic = Buffer.from('k8s\0', 'latin1');

/** A protobuf list body as kube-apiserver writes it: magic, then runtime.Unknown{typeMeta, raw}. */
function body(items: Uint8Array[], opts: { kind?: string; encoding?: string; cont?: string } = {}) {
  const list = msg(
    [1, msg([2, '99'], [3, opts.cont ?? ''], [4, 12])],
    ...items.map((item): [number, Value] => [2, item]),
  );
  const unknown = msg(
    [1, msg([1, 'v1'], [2, opts.kind ?? 'PodList'])],
    [2, list],
    [3, opts.encoding ?? ''],
    [4, ''],
  );
  return Buffer.concat([magic, unknown]);
}

/** Feeds `bytes` cut at `cuts` (offsets), collecting the items and the end's metadata. */
function split(bytes: Buffer, cuts: number[]) {
  const items: string[] = [];
  const s = new ProtoListSplitter((item) => items.push(Buffer.from(item).toString('latin1')));
  let from = 0;
  for (const at of [...cuts].sort((a, b) => a - b)) {
    s.push(bytes.subarray(from, at));
    from = at;
  }
  s.push(bytes.subarray(from));
  return { items, meta: s.end() };
}

describe('ProtoListSplitter', () => {
  it('hands over every item whole and reads the list metadata, however the body is cut', () => {
    const arbItem = fc.uint8Array({ minLength: 0, maxLength: 300 });
    fc.assert(
      fc.property(
        fc.array(arbItem, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (items, rawCuts, cont) => {
          const bytes = body(items, { cont });
          const cuts = rawCuts.map((c) => c % (bytes.length + 1));
          const out = split(bytes, cuts);
          expect(out.items).toEqual(items.map((i) => Buffer.from(i).toString('latin1')));
          expect(out.meta).toEqual({ resourceVersion: '99', continue: cont });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hands an item over while the rest of the list is still to come', () => {
    const bytes = body([msg([1, 'a']), msg([1, 'b'])]);
    const seen: number[] = [];
    const s = new ProtoListSplitter((item) => seen.push(item.length));
    // The body ends with the two empty envelope fields (2 bytes each) after the list.
    s.push(bytes.subarray(0, bytes.length - 6));
    expect(seen).toEqual([3]);
    s.push(bytes.subarray(bytes.length - 6, bytes.length - 4));
    expect(seen).toEqual([3, 3]);
  });

  it('refuses a body without the k8s prefix, cut short, of another kind, or encoded', () => {
    expect(() => split(Buffer.from('{"items":[]}'), [])).toThrow(/not Kubernetes protobuf/);
    const whole = body([msg([1, 'a'])]);
    expect(() => split(whole.subarray(0, whole.length - 8), [])).toThrow(/ended early/);
    expect(() => split(body([], { kind: 'Status' }), [])).toThrow(/a Status, not a list/);
    expect(() => split(body([], { encoding: 'gzip' }), [])).toThrow(/encoded \(gzip\)/);
    expect(() => split(whole.subarray(0, 2), [])).toThrow(ProtoFormatError);
  });
});
