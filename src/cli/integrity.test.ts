// What replay and explain say about a log's integrity, and which logs need --allow-unsealed.
import { describe, expect, it } from 'vitest';
import { integrityNote, integrityProblem, type LogIntegrity } from './integrity.ts';

const seal = { alg: 'HMAC-SHA-256', keyId: '0123abcd' };
const log = (over: Partial<LogIntegrity>): LogIntegrity => ({
  file: 'r.jsonl',
  seal: { info: undefined, verified: false, lastMac: undefined },
  closed: true,
  completeLines: 40,
  ...over,
});
const sealed = (verified: boolean) => ({ info: seal, verified, lastMac: '0'.repeat(64) });

describe('integrityNote and integrityProblem', () => {
  it.each<[string, LogIntegrity, RegExp, RegExp | undefined]>([
    [
      'an unsealed log is refused: digests protect against accidents only',
      log({}),
      /^integrity: digests protect against accidents, not forgery \(log not sealed\)$/,
      /^r\.jsonl: the log is not sealed, .* pass --allow-unsealed to accept it$/,
    ],
    [
      'a sealed log read without its key passes, saying the seal was not checked',
      log({ seal: sealed(false) }),
      /sealed with key id 0123abcd, but the seal was not checked \(no --record-key\)/,
      undefined,
    ],
    [
      'a sealed log verified with its key passes',
      log({ seal: sealed(true) }),
      /^integrity: sealed with key id 0123abcd; every line's seal verified$/,
      undefined,
    ],
    [
      'a verified log without its closing line is refused as truncated',
      log({ seal: sealed(true), closed: false }),
      /its 40 complete lines verified, but its closing line is missing/,
      /^r\.jsonl: truncated after line 40: the closing digest line is missing/,
    ],
    [
      'an unsealed log without its closing line: truncated first',
      log({ closed: false, completeLines: 7 }),
      /not forgery \(log not sealed\)/,
      /truncated after line 7/,
    ],
  ])('%s', (_, input, note, problem) => {
    expect(integrityNote(input)).toMatch(note);
    const found = integrityProblem(input);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
