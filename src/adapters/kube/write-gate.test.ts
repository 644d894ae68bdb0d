// Tests that reports wait while scheduling writes are busy and go once they thin out.
import { describe, expect, it } from 'vitest';
import { WriteGate } from './write-gate.ts';

function deferred() {
  let resolve: () => void = () => {};
  let reject: (e: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('WriteGate', () => {
  it('is open below the threshold and closed at it', async () => {
    const gate = new WriteGate(2);
    const a = deferred();
    const b = deferred();
    gate.hold(a.promise);
    let opened = false;
    await gate.whenOpen();
    gate.hold(b.promise);
    expect(gate.writes).toBe(2);
    void gate.whenOpen().then(() => {
      opened = true;
    });
    await flush();
    expect(opened).toBe(false);
    // A failed write counts as done too.
    b.reject(new Error('409'));
    await flush();
    expect(opened).toBe(true);
    expect(gate.writes).toBe(1);
    a.resolve();
  });

  it('open() lets every waiter go', async () => {
    const gate = new WriteGate(1);
    gate.hold(new Promise(() => {}));
    let released = 0;
    void gate.whenOpen().then(() => released++);
    void gate.whenOpen().then(() => released++);
    await flush();
    expect(released).toBe(0);
    gate.open();
    await flush();
    expect(released).toBe(2);
  });

  it('refuses a threshold below 1', () => {
    expect(() => new WriteGate(0)).toThrow(RangeError);
  });
});
