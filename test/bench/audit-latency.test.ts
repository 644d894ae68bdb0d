// The end-to-end bench's audit-log reader: per-pod create → bind times on kube-apiserver's clock.
import { describe, expect, it } from 'vitest';
import { auditLatencies, auditTimeMs, podAuditPolicy } from '../../bench/e2e/audit-latency.ts';

interface Line {
  name: string;
  binding?: 'subresource' | 'resource';
  received: string;
  answered: string;
  code?: number;
  stage?: string;
}

function line(l: Line): string {
  const objectRef =
    l.binding === 'subresource'
      ? { resource: 'pods', namespace: 'bench', name: l.name, subresource: 'binding' }
      : l.binding === 'resource'
        ? { resource: 'bindings', namespace: 'bench', name: l.name }
        : { resource: 'pods', namespace: 'bench', name: l.name };
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    stage: l.stage ?? 'ResponseComplete',
    verb: 'create',
    objectRef,
    responseStatus: { code: l.code ?? 201 },
    requestReceivedTimestamp: `2026-11-25T06:53:${l.received}Z`,
    stageTimestamp: `2026-11-25T06:53:${l.answered}Z`,
  });
}

describe('auditTimeMs', () => {
  it('keeps the microseconds Date.parse drops', () => {
    const whole = Date.parse('2026-11-25T06:53:18Z');
    expect(auditTimeMs('2026-11-25T06:53:18.203475Z')).toBeCloseTo(whole + 203.475, 6);
    expect(auditTimeMs('2026-11-25T06:53:18Z')).toBe(whole);
    expect(auditTimeMs('2026-11-25T06:53:18.5Z')).toBe(whole + 500);
  });

  it('refuses what is not an RFC 3339 UTC time', () => {
    expect(auditTimeMs(undefined)).toBeUndefined();
    expect(auditTimeMs('2026-11-25 06:53:18Z')).toBeUndefined();
    expect(auditTimeMs('2026-11-25T06:53:18.1+01:00')).toBeUndefined();
    expect(auditTimeMs('2026-13-45T06:53:18Z')).toBeUndefined();
  });
});

/** A pod create answered at `answered` seconds past 06:53 (received 1 ms before). */
const created = (name: string, answered: number, stage?: string) =>
  line({ name, received: secs(answered - 0.001), answered: secs(answered), stage });

/** A binding of `name` received and answered at these seconds past 06:53. */
const bound = (
  name: string,
  received: number,
  answered: number,
  extra: { binding?: Line['binding']; code?: number } = {},
) =>
  line({
    name,
    binding: extra.binding ?? 'subresource',
    received: secs(received),
    answered: secs(answered),
    code: extra.code,
  });

const secs = (s: number) => s.toFixed(6).padStart(9, '0');
const rounded = (xs: number[]) => xs.map((x) => +x.toFixed(3));

describe('auditLatencies', () => {
  it("measures each pod's share from create answered to bind received, and the bind itself", () => {
    const text = [
      created('a-0', 18.004),
      bound('a-0', 18.00525, 18.007),
      created('a-1', 19.001),
      bound('a-1', 19.003, 19.01, { binding: 'resource' }),
    ].join('\n');
    const r = auditLatencies(text, ['a-0', 'a-1']);
    expect(rounded(r.schedulerMs)).toEqual([1.25, 2]);
    expect(rounded(r.bindMs)).toEqual([1.75, 7]);
    expect(rounded(r.createToBoundMs)).toEqual([3, 9]);
    expect(r).toMatchObject({ unbound: 0, malformed: 0 });
  });

  it('takes the binding that succeeded, not a refused one before or after it', () => {
    const text = [
      created('a-0', 18.001),
      bound('a-0', 18.002, 18.003, { code: 409 }),
      bound('a-0', 18.01, 18.012),
      // A second scheduler (or a retry) binding the pod again is refused.
      bound('a-0', 18.02, 18.021, { code: 409 }),
    ].join('\n');
    expect(rounded(auditLatencies(text, ['a-0']).schedulerMs)).toEqual([9]);
  });

  it('counts pods never bound, and leaves out pods not asked for and other stages', () => {
    const text = [
      created('warm-up', 17.001),
      bound('warm-up', 17.002, 17.003),
      created('a-0', 18.001),
      created('a-1', 18.001, 'ResponseStarted'),
    ].join('\n');
    expect(auditLatencies(text, ['a-0', 'a-1'])).toEqual({
      schedulerMs: [],
      bindMs: [],
      createToBoundMs: [],
      unbound: 1,
      malformed: 0,
    });
  });

  it('skips and counts a corrupt line and an event without usable times', () => {
    const noTime = JSON.stringify({
      stage: 'ResponseComplete',
      verb: 'create',
      objectRef: { resource: 'pods', name: 'a-0' },
      responseStatus: { code: 201 },
      requestReceivedTimestamp: 'yesterday',
    });
    const text = [
      created('a-0', 18.001),
      '{"kind":"Event",',
      noTime,
      '',
      bound('a-0', 18.002, 18.003),
    ];
    const r = auditLatencies(text.join('\n'), ['a-0']);
    expect(r.malformed).toBe(2);
    expect(rounded(r.schedulerMs)).toEqual([1]);
  });
});

describe('podAuditPolicy', () => {
  it('logs only creates of pods and bindings in the namespace, at Metadata level', () => {
    const policy = podAuditPolicy('bench');
    expect(policy).toContain('namespaces: ["bench"]');
    expect(policy).toContain(
      'resources: [{ group: "", resources: ["pods", "pods/binding", "bindings"] }]',
    );
    expect(policy).toContain('verbs: ["create"]');
    expect(policy.trimEnd().endsWith('- level: None')).toBe(true);
  });
});
