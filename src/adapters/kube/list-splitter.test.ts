// Pins the list splitter: any list cut into any chunks gives the items JSON.parse would, in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListFormatError, ListSplitter } from './list-splitter.ts';

/** Splits `text` at `cuts` (positions, any order) and feeds the pieces through a splitter. */
function split(text: string, cuts: number[] = []) {
  const items: unknown[] = [];
  const splitter = new ListSplitter((t) => items.push(JSON.parse(t)));
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const c of [...at, text.length]) {
    splitter.push(text.slice(from, c));
    from = c;
  }
  return { items, metadata: splitter.end() };
}

/** JSON values whose strings are full of quotes, backslashes, brackets and commas. */
const tricky = fc.string({
  unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', 'é', '\n', ' ', '\u2028'),
  maxLength: 12,
});
const value = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('json'), { maxKeys: 3 }),
  ),
})).json;
const item = fc.record({ metadata: fc.record({ name: tricky }), spec: value });

describe('ListSplitter', () => {
  it('gives every item, and the metadata, however the body is cut', () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 6 }),
        fc.record({ resourceVersion: fc.string(), continue: tricky }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.boolean(),
        (items, metadata, cuts, spaced) => {
          const list = { kind: 'PodList', apiVersion: 'v1', metadata, items, extra: [1, '[x]'] };
          const text = spaced ? JSON.stringify(list, null, 2) : JSON.stringify(list);
          const got = split(text, cuts);
          expect(got.items).toEqual(JSON.parse(text).items);
          expect(got.metadata).toEqual({
            resourceVersion: metadata.resourceVersion,
            continue: metadata.continue === '' ? undefined : metadata.continue,
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hands an item over as soon as its last character arrives', () => {
    const seen: string[] = [];
    const s = new ListSplitter((t) => seen.push(t));
    s.push('{"metadata":{"resourceVersion":"9"},"items":[{"a":"}"},{"b"');
    expect(seen).toEqual(['{"a":"}"}']);
    s.push(':1}]}');
    expect(seen).toEqual(['{"a":"}"}', '{"b":1}']);
    expect(s.end()).toEqual({ resourceVersion: '9', continue: undefined });
  });

  it('keeps an items key inside metadata apart from the list’s own items', () => {
    const text = '{"metadata":{"items":[{"x":1}]},"items":[{"y":2}]}';
    expect(split(text).items).toEqual([{ y: 2 }]);
  });

  it('rejects bodies that are not lists: truncated, no items, scalar items, not JSON', () => {
    const bad = [
      '{"items":[{"a":1}',
      '{"metadata":{}}',
      '{"items":[1,2]}',
      '{"items":[{"a":1}]} trailing',
      '<html>proxy error</html>',
      '{"items":[{"a":"unterminated}]}',
      ']]',
    ];
    for (const text of bad) expect(() => split(text), text).toThrow(ListFormatError);
  });
});
