// The path a pod's machine took, read from the committed golden logs, and the one-line errors for bad input.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { podKeyOfObject } from '../model/keys.ts';
import { CliError } from './errors.ts';
import { type PodTrace, tracePodPath } from './trace-path.ts';
import { renderTraceJson, renderTraceMermaid, renderTraceText } from './trace-render.ts';

const logs = fileURLToPath(new URL('../../test/fixtures/logs/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-trace-'));

/** Each step as `seq event from->state`, per uid. */
const compact = (trace: PodTrace) =>
  trace.uids.map((u) => u.steps.map((s) => `${s.seq} ${s.event} ${s.from ?? '*'}->${s.state}`));

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('berth export-machines --trace: the path on the golden logs', () => {
  it('shop/urgent in sim-preemption: nominated (preempting), backs off when its victims go, then binds', () => {
    const trace = tracePodPath('shop/urgent', join(logs, 'sim-preemption.jsonl'));
    expect(trace.uids.map((u) => u.uid)).toEqual(['00000000-0000-4000-8000-000000000008']);
    expect(compact(trace)).toEqual([
      [
        '16 PodUpserted *->pending',
        // One envelope holds the cycle's SCHEDULE and its decision: filtering is not seen.
        '19 PodNominated pending->preempting',
        '27 PodDeleted preempting->backoff',
        '30 TimerFired backoff->pending',
        '31 PodReserved pending->filtering',
        '32 BindRequested filtering->binding',
        '33 BindSucceeded binding->boundUnconfirmed',
        '34 PodUpserted boundUnconfirmed->bound',
      ],
    ]);
    expect(trace.uids[0]?.steps[2]).toEqual({
      from: 'preempting',
      state: 'backoff',
      event: 'PodDeleted',
      seq: 27,
      time: 5,
    });
  });

  it('ml/llama-worker-0 in sim-gang: held with its group, unschedulable, backs off and is parked again', () => {
    const trace = tracePodPath('ml/llama-worker-0', join(logs, 'sim-gang.jsonl'));
    expect(compact(trace)).toEqual([
      [
        '16 PodUpserted *->pending',
        '31 PodHeld pending->filtering',
        '33 PodUnschedulable filtering->unschedulable',
        '47 PodUpserted unschedulable->backoff',
        '53 TimerFired backoff->pending',
        '54 PodUnschedulable pending->unschedulable',
      ],
    ]);
  });

  it('default/huge in the recorded e2e log: unschedulable until node n3 joins, then bound there', () => {
    const trace = tracePodPath('default/huge', join(logs, 'e2e-kwok.jsonl'));
    expect(compact(trace)).toEqual([
      [
        '25 PodUpserted *->pending',
        '26 PodUnschedulable pending->unschedulable',
        '29 PodDeleted unschedulable->pending',
        '30 PodUnschedulable pending->unschedulable',
        '43 NodeUpserted unschedulable->pending',
        '44 PodReserved pending->filtering',
        '45 BindRequested filtering->binding',
        '46 BindSucceeded binding->boundUnconfirmed',
        '47 PodUpserted boundUnconfirmed->bound',
      ],
    ]);
  });

  it('default/web-1 in the recorded e2e log was deleted and recreated: each uid has its own path, in order', () => {
    const trace = tracePodPath('default/web-1', join(logs, 'e2e-kwok.jsonl'));
    expect(trace.uids.map((u) => u.uid)).toEqual([
      '078d2cbb-da5e-42fd-9c61-bcad3b1a9b8a',
      'ea9d9bb1-49ed-4eb8-b735-ebf0db856840',
    ]);
    expect(compact(trace).map((steps) => steps.at(-1))).toEqual([
      '10 PodUpserted binding->bound',
      '34 PodUpserted binding->bound',
    ]);
  });

  it('a pod deleted while parked ends in deleted (a log cut after its PodDeleted)', () => {
    const head = readFileSync(join(logs, 'e2e-kwok.jsonl'), 'utf8').split('\n').slice(0, 31);
    const deleted = {
      seq: 31,
      time: 1795469227000,
      event: {
        type: 'PodDeleted',
        uid: '397ec059-82c8-45cc-98b7-4ad33f38ece2',
        key: 'default/huge',
      },
    };
    const cut = join(work, 'huge-deleted.jsonl');
    writeFileSync(cut, `${[...head, JSON.stringify(deleted)].join('\n')}\n`);
    expect(compact(tracePodPath('default/huge', cut))[0]?.slice(-2)).toEqual([
      '30 PodUnschedulable pending->unschedulable',
      '31 PodDeleted unschedulable->deleted',
    ]);
  });

  // The oracle is the log itself, not the core: what berth recorded about each pod must
  // show in the path at the same seq, on every golden log.
  const expectedAt: Record<string, string> = {
    PodUnschedulable: 'unschedulable',
    PodNominated: 'preempting',
    BindRequested: 'binding',
    BindFailed: 'backoff',
  };
  // format1-demo.jsonl is a format this berth does not replay (see the errors below).
  const replayable = readdirSync(logs).filter(
    (f) => f.endsWith('.jsonl') && f !== 'format1-demo.jsonl',
  );
  for (const file of replayable) {
    it(`${file}: every pod's path agrees with the decisions and watch events the log recorded`, () => {
      const envelopes = readFileSync(join(logs, file), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"seq"'))
        .map((l) => JSON.parse(l) as { seq: number; event: Record<string, unknown> });
      const keys = new Set(
        envelopes
          .filter((e) => e.event.type === 'PodUpserted')
          .map((e) => podKeyOfObject(e.event.pod) as string),
      );
      let checked = 0;
      // The first 20 pods of each log: each trace replays the whole log.
      for (const key of [...keys].slice(0, 20)) {
        let trace: PodTrace;
        try {
          trace = tracePodPath(key, join(logs, file));
        } catch (error) {
          expect((error as Error).message).toMatch(/never had a machine in berth/);
          continue;
        }
        for (const { uid, steps } of trace.uids) {
          const at = new Map(steps.map((s) => [s.seq, s.state]));
          for (const e of envelopes) {
            const want = expectedAt[String(e.event.type)];
            if (want === undefined || e.event.uid !== uid) continue;
            expect(`#${e.seq} ${at.get(e.seq)}`).toBe(`#${e.seq} ${want}`);
            checked++;
          }
          const seenBound = envelopes.some((e) => {
            const pod = e.event.pod as {
              metadata?: { uid?: string };
              spec?: { nodeName?: string };
            };
            return pod?.metadata?.uid === uid && pod.spec?.nodeName !== undefined;
          });
          if (seenBound) expect(steps.at(-1)?.state).toBe('bound');
          else expect(steps.at(-1)?.state).not.toBe('bound');
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});

describe('berth export-machines --trace: rendering', () => {
  const trace = tracePodPath('default/web-1', join(logs, 'e2e-kwok.jsonl'));

  it('JSON holds the pod, the log and every step with state, event, seq and time', () => {
    const doc = JSON.parse(renderTraceJson(trace));
    expect(doc.pod).toBe('default/web-1');
    expect(doc.machine).toBe('pod');
    expect(doc.uids[1].steps[0]).toEqual({
      from: null,
      state: 'pending',
      event: 'PodUpserted',
      seq: 31,
      time: 1795469227183,
    });
  });

  it('Mermaid is the pod machine with the visited states marked and each step a numbered edge', () => {
    const lines = renderTraceMermaid(trace).split('\n');
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('  binding --> boundUnconfirmed : BIND_SUCCEEDED [isCurrentAttempt]');
    expect(lines).toContain('  [*] --> pending : 1. PodUpserted #7 at 1795469223592 uid 078d2cbb');
    expect(lines).toContain(
      '  binding --> bound : 8. PodUpserted #34 at 1795469227191 uid ea9d9bb1',
    );
    expect(lines).toContain('  class pending,filtering,binding,bound taken');
    expect(lines.filter((l) => l.startsWith('  classDef taken '))).toHaveLength(1);
  });

  it('the table has one line per step under each uid', () => {
    const text = renderTraceText(trace);
    expect(text).toContain('uid ea9d9bb1-49ed-4eb8-b735-ebf0db856840');
    expect(text).toContain('  9  1795469223624  BindRequested  filtering -> binding');
  });
});

describe('berth export-machines --trace: bad input is one line, exit 2', () => {
  const log = join(logs, 'e2e-kwok.jsonl');
  const fails = (pod: string, path: string, message: RegExp) => {
    let caught: unknown;
    try {
      tracePodPath(pod, path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).exitCode).toBe(2);
    expect((caught as CliError).message).toMatch(message);
    expect((caught as CliError).message).not.toContain('\n');
  };

  it('names an unknown pod', () =>
    fails('default/nope', log, /e2e-kwok\.jsonl: no pod default\/nope in the log/));
  it('refuses a malformed NS/POD', () => fails('a/b/c', log, /NAMESPACE\/NAME, got "a\/b\/c"/));
  it('refuses an empty pod', () => fails('', log, /--trace needs a pod/));
  it('names a log that cannot be read', () =>
    fails('default/huge', join(work, 'missing.jsonl'), /cannot read .*missing\.jsonl: .*ENOENT/));

  it('refuses a log in a format this berth does not replay', () =>
    fails('default/x', join(logs, 'format1-demo.jsonl'), /line 1: unsupported log format 1/));

  it('names the line of a corrupt log', () => {
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[5] = '{"seq": 6, "time": "not a time"';
    const bad = join(work, 'corrupt.jsonl');
    writeFileSync(bad, lines.join('\n'));
    fails('default/huge', bad, /corrupt\.jsonl: line 6: /);
  });

  it('refuses a log whose decisions berth does not make again', () => {
    const text = readFileSync(log, 'utf8').replace(
      '"key":"default/huge","attempt":3,"node":"n3"}}',
      '"key":"default/huge","attempt":3,"node":"n1"}}',
    );
    const forged = join(work, 'forged.jsonl');
    writeFileSync(forged, text);
    fails('default/huge', forged, /forged\.jsonl: .*the log does not replay: at seq 44/);
  });
});
