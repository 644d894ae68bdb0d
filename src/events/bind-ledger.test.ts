// The bind ledger's view of a held bind: ClaimsReserved must name an open bind and leaves it open for its result.
import { describe, expect, it } from 'vitest';
import { BindLedger } from './bind-ledger.ts';

const bind = { type: 'BindRequested', uid: 'u', key: 'ns/p', attempt: 1, node: 'n1' } as const;
const held = { ...bind, type: 'ClaimsReserved' } as const;
const done = { ...bind, type: 'BindSucceeded' } as const;

describe('BindLedger and ClaimsReserved', () => {
  it('keeps the bind open after ClaimsReserved, so its result still answers it', () => {
    const ledger = new BindLedger();
    ledger.request(bind);
    expect(ledger.check(held)).toBeUndefined();
    expect(ledger.size).toBe(1);
    expect(ledger.answer(done)).toBeUndefined();
    expect(ledger.size).toBe(0);
  });

  it('refuses a ClaimsReserved that names no open bind, or another node', () => {
    const ledger = new BindLedger();
    expect(ledger.check(held)).toBe(
      'ClaimsReserved of ns/p (uid u) attempt 1 answers no open BindRequested (never requested, or already answered)',
    );
    ledger.request(bind);
    expect(ledger.check({ ...held, node: 'n2' })).toBe(
      'ClaimsReserved of ns/p (uid u) attempt 1 names node n2, but its BindRequested named n1',
    );
  });
});
