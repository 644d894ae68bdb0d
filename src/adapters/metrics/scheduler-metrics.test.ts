// Tests that envelopes and cycles become kube-scheduler's metrics (and berth's) as a scrape shows them.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseSamples } from '../../../test/support/prometheus-text.ts';
import type { PendingCounts } from '../../core/scheduler.ts';
import type { BerthEvent, DecisionEvent, Envelope } from '../../events/types.ts';
import type { PodObject } from '../../model/objects.ts';
import { attemptsLabel } from './kube-instruments.ts';
import { SchedulerMetrics } from './scheduler-metrics.ts';

const pods = (name: string, opts: Partial<PodObject['spec']> & Record<string, unknown> = {}) => {
  const { uid, deletionTimestamp, phase, ...spec } = opts as Record<string, unknown>;
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: (uid as string | undefined) ?? `uid-${name}`,
      ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }),
    },
    spec: { schedulerName: 'berth', ...spec },
    ...(phase === undefined ? {} : { status: { phase } }),
  } as PodObject;
};

describe('SchedulerMetrics', () => {
  let seq: number;
  let pending: PendingCounts;
  let metrics: SchedulerMetrics;

  const feed = (time: number, event: BerthEvent): Envelope => {
    const env = { seq: ++seq, time, event };
    metrics.envelope(env);
    return env;
  };
  /** Feeds a cycle's decisions as live.ts does: envelopes first, then the cycle. */
  const cycle = (time: number, seconds: number, decisions: DecisionEvent[]) => {
    const envs = decisions.map((d) => feed(time, d) as Envelope<DecisionEvent>);
    metrics.cycle(envs, seconds);
  };
  const ref = (name: string, attempt: number) => ({
    uid: `uid-${name}`,
    key: `ns/${name}`,
    attempt,
  });
  const reserveAndBind = (time: number, seconds: number, name: string, attempt: number) =>
    cycle(time, seconds, [
      { type: 'PodReserved', ...ref(name, attempt), node: 'n1' },
      { type: 'BindRequested', ...ref(name, attempt), node: 'n1' },
    ]);
  const scrape = async () => parseSamples(await metrics.registry.metrics());
  const value = async (name: string, labels: Record<string, string> = {}) => {
    const hits = (await scrape()).filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    return hits.length === 0 ? undefined : hits.reduce((sum, s) => sum + s.value, 0);
  };
  const bucketBounds = async (histogram: string) =>
    (await scrape())
      .filter((s) => s.name === `${histogram}_bucket` && s.labels.le !== '+Inf')
      .map((s) => Number(s.labels.le));

  beforeEach(() => {
    seq = 0;
    pending = { active: 0, backoff: 0, unschedulable: 0, gated: 0 };
    metrics = new SchedulerMetrics({
      profile: 'berth',
      pending: () => pending,
      processMetrics: false,
    });
  });

  it('uses kube-scheduler 1.34’s histogram buckets exactly', async () => {
    feed(0, { type: 'PodUpserted', pod: pods('a') });
    reserveAndBind(10, 0.002, 'a', 1);
    feed(20, { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' });
    expect(await bucketBounds('scheduler_scheduling_attempt_duration_seconds')).toEqual([
      0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096,
      8.192, 16.384,
    ]);
    expect(await bucketBounds('scheduler_pod_scheduling_sli_duration_seconds')).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
      163.84, 327.68, 655.36, 1310.72, 2621.44, 5242.88,
    ]);
    expect(await bucketBounds('scheduler_pod_scheduling_attempts')).toEqual([1, 2, 4, 8, 16]);
    expect(await bucketBounds('scheduler_preemption_victims')).toEqual([1, 2, 4, 8, 16, 32, 64]);
  });

  it('counts each attempt once by result, a reserved one when its bind ends', async () => {
    for (const name of ['a', 'b', 'c', 'd']) feed(0, { type: 'PodUpserted', pod: pods(name) });
    reserveAndBind(1000, 0.004, 'a', 1);
    expect(await value('scheduler_schedule_attempts_total')).toBeUndefined();
    feed(1250, { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' });
    cycle(1300, 0.003, [{ type: 'PodUnschedulable', ...ref('b', 1), message: 'no' }]);
    cycle(1400, 0.02, [{ type: 'CycleFailed', ...ref('c', 1), plugin: 'P', message: 'boom' }]);
    reserveAndBind(1500, 0.001, 'd', 1);
    feed(1600, {
      type: 'BindFailed',
      ...ref('d', 1),
      node: 'n1',
      reason: 'Conflict',
      message: 'x',
    });
    const attempts = (result: string) =>
      value('scheduler_schedule_attempts_total', { result, profile: 'berth' });
    expect(await attempts('scheduled')).toBe(1);
    expect(await attempts('unschedulable')).toBe(1);
    expect(await attempts('error')).toBe(2);
    // Scheduled: 4 ms of cycle plus 250 ms of binding.
    const duration = 'scheduler_scheduling_attempt_duration_seconds';
    expect(await value(`${duration}_sum`, { result: 'scheduled' })).toBeCloseTo(0.254, 9);
    expect(await value(`${duration}_bucket`, { result: 'scheduled', le: '0.128' })).toBe(0);
    expect(await value(`${duration}_bucket`, { result: 'scheduled', le: '0.256' })).toBe(1);
    expect(await value(`${duration}_sum`, { result: 'unschedulable' })).toBeCloseTo(0.003, 9);
    expect(await value(`${duration}_count`, { result: 'error' })).toBe(2);
    expect(await value(`${duration}_sum`, { result: 'error' })).toBeCloseTo(0.02 + 0.101, 9);
  });

  it('ignores a bind result for an attempt that is not the one in flight', async () => {
    feed(0, { type: 'PodUpserted', pod: pods('a') });
    reserveAndBind(10, 0.001, 'a', 2);
    feed(20, { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' });
    feed(30, { type: 'BindFailed', ...ref('a', 3), node: 'n1', reason: 'Error', message: 'x' });
    expect(await value('scheduler_schedule_attempts_total')).toBeUndefined();
    expect(await value('berth_bind_results_total')).toBe(2);
  });

  it('counts a refused bind as an error attempt and as a bind failure by HTTP code', async () => {
    for (const name of ['a', 'b', 'c']) {
      feed(0, { type: 'PodUpserted', pod: pods(name) });
      reserveAndBind(10, 0.001, name, 1);
    }
    const forbidden = { reason: 'Error', message: 'forbidden', code: 403 } as const;
    feed(20, { type: 'BindFailed', ...ref('a', 1), node: 'n1', ...forbidden });
    feed(21, { type: 'BindFailed', ...ref('b', 1), node: 'n1', ...forbidden });
    feed(22, { type: 'BindFailed', ...ref('c', 1), node: 'n1', reason: 'Error', message: 'x' });
    expect(await value('scheduler_schedule_attempts_total', { result: 'error' })).toBe(3);
    expect(await value('berth_bind_failures_total', { code: '403' })).toBe(2);
    expect(await value('berth_bind_failures_total', { code: 'none' })).toBe(1);
  });

  it('reads scheduler_pending_pods from the pending function at every scrape', async () => {
    pending = { active: 3, backoff: 2, unschedulable: 5, gated: 1 };
    expect(await value('scheduler_pending_pods', { queue: 'active' })).toBe(3);
    expect(await value('scheduler_pending_pods', { queue: 'backoff' })).toBe(2);
    expect(await value('scheduler_pending_pods', { queue: 'unschedulable' })).toBe(5);
    expect(await value('scheduler_pending_pods', { queue: 'gated' })).toBe(1);
    pending = { active: 0, backoff: 0, unschedulable: 7, gated: 0 };
    expect(await value('scheduler_pending_pods', { queue: 'active' })).toBe(0);
    expect(await value('scheduler_pending_pods', { queue: 'unschedulable' })).toBe(7);
  });

  it('observes the SLI once, from entering the queue to the bind, labelled with the attempt', async () => {
    feed(1000, { type: 'PodUpserted', pod: pods('a') });
    cycle(1100, 0.001, [{ type: 'PodUnschedulable', ...ref('a', 1), message: 'no' }]);
    reserveAndBind(3000, 0.001, 'a', 2);
    feed(3050, { type: 'BindSucceeded', ...ref('a', 2), node: 'n1' });
    feed(3060, { type: 'PodUpserted', pod: pods('a', { nodeName: 'n1' }) });
    feed(3070, { type: 'BindSucceeded', ...ref('a', 2), node: 'n1' }); // a duplicate report
    const sli = 'scheduler_pod_scheduling_sli_duration_seconds';
    expect(await value(`${sli}_count`)).toBe(1);
    expect(await value(`${sli}_count`, { attempts: '2' })).toBe(1);
    expect(await value(`${sli}_sum`, { attempts: '2' })).toBeCloseTo(2.05, 9);
    expect(await value('scheduler_pod_scheduling_attempts_count')).toBe(1);
    expect(await value('scheduler_pod_scheduling_attempts_sum')).toBe(2);
    expect(await value('scheduler_pod_scheduling_attempts_bucket', { le: '1' })).toBe(0);
    expect(await value('scheduler_pod_scheduling_attempts_bucket', { le: '2' })).toBe(1);
  });

  it('caps the attempts label at "15+" as kube does', async () => {
    expect([1, 14, 15, 40].map(attemptsLabel)).toEqual(['1', '14', '15+', '15+']);
    feed(0, { type: 'PodUpserted', pod: pods('a') });
    reserveAndBind(500, 0.001, 'a', 21);
    feed(1000, { type: 'BindSucceeded', ...ref('a', 21), node: 'n1' });
    const sli = 'scheduler_pod_scheduling_sli_duration_seconds';
    expect(await value(`${sli}_count`, { attempts: '15+' })).toBe(1);
    expect(await value(`${sli}_sum`, { attempts: '15+' })).toBe(1);
  });

  it('counts pods entering the queues by kube’s queue and event labels', async () => {
    const incoming = (queue: string, event: string) =>
      value('scheduler_queue_incoming_pods_total', { queue, event });
    feed(0, { type: 'ResyncStarted', kind: 'Pod' });
    feed(0, { type: 'PodUpserted', pod: pods('a') });
    feed(0, { type: 'PodUpserted', pod: pods('g', { schedulingGates: [{ name: 'wait' }] }) });
    feed(0, { type: 'PodUpserted', pod: pods('other', { schedulerName: 'default-scheduler' }) });
    feed(0, { type: 'PodUpserted', pod: pods('running', { nodeName: 'n1' }) });
    feed(0, { type: 'PodUpserted', pod: pods('done', { phase: 'Succeeded' }) });
    feed(0, { type: 'ResyncDone', kind: 'Pod' });
    feed(5, { type: 'PodUpserted', pod: pods('a') }); // an update (or relist) is not an add
    expect(await incoming('active', 'UnschedulablePodAdd')).toBe(1);
    expect(await incoming('unschedulable', 'UnschedulablePodAdd')).toBe(1);
    feed(10, { type: 'PodUpserted', pod: pods('g') });
    expect(await incoming('active', 'UnschedulablePodUpdatePodSchedulingGatesEliminated')).toBe(1);
    cycle(20, 0.001, [{ type: 'PodUnschedulable', ...ref('a', 1), message: 'no' }]);
    cycle(30, 0.001, [{ type: 'CycleFailed', ...ref('g', 1), plugin: 'P', message: 'boom' }]);
    expect(await incoming('unschedulable', 'ScheduleAttemptFailure')).toBe(1);
    expect(await incoming('backoff', 'ScheduleAttemptFailure')).toBe(1);
    feed(1030, { type: 'TimerFired', timer: 'backoff', uid: 'uid-g', key: 'ns/g' });
    expect(await incoming('active', 'BackoffComplete')).toBe(1);
    reserveAndBind(1040, 0.001, 'g', 2);
    feed(1050, { type: 'BindFailed', ...ref('g', 2), node: 'n1', reason: 'Error', message: 'x' });
    expect(await incoming('backoff', 'ScheduleAttemptFailure')).toBe(2);
    expect(await value('scheduler_queue_incoming_pods_total')).toBe(7);
  });

  it('forgets every pod once it is bound, deleted, dropped by a relist or recreated', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) feed(0, { type: 'PodUpserted', pod: pods(name) });
    expect(metrics.trackedPods).toEqual({ pods: 5, keys: 5 });
    // a: the watch shows it bound before the bind result arrives; the result still counts.
    reserveAndBind(10, 0.001, 'a', 1);
    feed(20, { type: 'PodUpserted', pod: pods('a', { nodeName: 'n1' }) });
    expect(metrics.trackedPods.pods).toBe(5);
    feed(30, { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' });
    expect(await value('scheduler_schedule_attempts_total', { result: 'scheduled' })).toBe(1);
    // b: deleted while parked; c: bound by someone else; d: recreated under the same name.
    cycle(40, 0.001, [{ type: 'PodUnschedulable', ...ref('b', 1), message: 'no' }]);
    feed(50, { type: 'PodDeleted', uid: 'uid-b', key: 'ns/b' });
    feed(60, { type: 'PodUpserted', pod: pods('c', { nodeName: 'n2' }) });
    feed(70, { type: 'PodUpserted', pod: pods('d', { uid: 'uid-d2' }) });
    expect(metrics.trackedPods).toEqual({ pods: 2, keys: 2 });
    // A relist that no longer lists e nor d2: both are gone.
    feed(80, { type: 'ResyncStarted', kind: 'Pod' });
    feed(80, { type: 'ResyncDone', kind: 'Pod' });
    expect(metrics.trackedPods).toEqual({ pods: 0, keys: 0 });
  });

  it('keeps memory flat over many pods that come and go', async () => {
    for (let i = 0; i < 2000; i++) {
      const name = `p${i}`;
      feed(i, { type: 'PodUpserted', pod: pods(name) });
      reserveAndBind(i, 0.0001, name, 1);
      feed(i + 1, { type: 'BindSucceeded', ...ref(name, 1), node: 'n1' });
      feed(i + 2, { type: 'PodUpserted', pod: pods(name, { nodeName: 'n1' }) });
      feed(i + 3, { type: 'PodDeleted', uid: `uid-${name}`, key: `ns/${name}` });
    }
    expect(metrics.trackedPods).toEqual({ pods: 0, keys: 0 });
    expect(await value('scheduler_pod_scheduling_sli_duration_seconds_count')).toBe(2000);
  });

  it('counts berth’s own log events, decisions, bind results and leadership', async () => {
    feed(0, { type: 'PodUpserted', pod: pods('a') });
    feed(0, { type: 'PodUpserted', pod: pods('b') });
    reserveAndBind(10, 0.001, 'a', 1);
    reserveAndBind(10, 0.001, 'b', 1);
    feed(20, { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' });
    feed(20, { type: 'BindFailed', ...ref('b', 1), node: 'n1', reason: 'NotFound', message: 'x' });
    expect(await value('berth_log_events_total', { type: 'PodUpserted' })).toBe(2);
    expect(await value('berth_log_events_total', { type: 'BindRequested' })).toBe(2);
    expect(await value('berth_log_events_total')).toBe(8);
    expect(await value('berth_decisions_total', { type: 'PodReserved' })).toBe(2);
    expect(await value('berth_decisions_total')).toBe(4);
    expect(await value('berth_decisions_total', { type: 'PodUpserted' })).toBeUndefined();
    expect(await value('berth_bind_results_total', { result: 'succeeded' })).toBe(1);
    expect(await value('berth_bind_results_total', { result: 'failed', reason: 'NotFound' })).toBe(
      1,
    );
    expect(await value('berth_leader')).toBe(0);
    metrics.leading(true);
    expect(await value('berth_leader')).toBe(1);
    metrics.leading(false);
    expect(await value('berth_leader')).toBe(0);
  });

  it('can be called through detached callbacks, as a runtime may keep them', async () => {
    const { envelope, cycle: observeCycle, leading } = metrics;
    envelope({ seq: 1, time: 0, event: { type: 'PodUpserted', pod: pods('a') } });
    const decision: Envelope<DecisionEvent> = {
      seq: 2,
      time: 5,
      event: { type: 'PodUnschedulable', ...ref('a', 1), message: 'no' },
    };
    envelope(decision);
    observeCycle([decision], 0.001);
    leading(true);
    expect(await value('scheduler_schedule_attempts_total', { result: 'unschedulable' })).toBe(1);
    expect(await value('berth_leader')).toBe(1);
  });

  it('exposes the preemption metrics at zero before any preemption', async () => {
    expect(await value('scheduler_preemption_attempts_total')).toBe(0);
    expect(await value('scheduler_preemption_victims_count')).toBe(0);
  });

  it('counts a preemption attempt per PostFilter run and observes each nomination’s victims', async () => {
    for (const name of ['hi', 'mid', 'plain']) feed(0, { type: 'PodUpserted', pod: pods(name) });
    const victim = (n: number) => ({ uid: `uid-v${n}`, key: `ns/v${n}` });
    cycle(10, 0.001, [
      { type: 'PodNominated', ...ref('hi', 2), node: 'n1', message: 'm' },
      { type: 'VictimPreempted', ...ref('hi', 2), node: 'n1', victim: victim(1) },
      { type: 'VictimPreempted', ...ref('hi', 2), node: 'n1', victim: victim(2) },
      { type: 'VictimPreempted', ...ref('hi', 2), node: 'n1', victim: victim(3) },
      { type: 'NominationCleared', ...ref('hi', 2), node: 'n1', pod: { uid: 'u', key: 'ns/u' } },
    ]);
    expect(await value('scheduler_preemption_attempts_total')).toBe(1);
    expect(await value('scheduler_preemption_victims_count')).toBe(1);
    expect(await value('scheduler_preemption_victims_sum')).toBe(3);
    expect(await value('scheduler_preemption_victims_bucket', { le: '2' })).toBe(0);
    expect(await value('scheduler_preemption_victims_bucket', { le: '4' })).toBe(1);
    // PostFilter ran and found nothing to preempt: an attempt, no victims observed.
    const message =
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    cycle(20, 0.001, [{ type: 'PodUnschedulable', ...ref('mid', 1), message }]);
    // PostFilter did not run (e.g. preemptionPolicy Never): no attempt.
    cycle(30, 0.001, [
      { type: 'PodUnschedulable', ...ref('plain', 1), message: '0/2 nodes are available.' },
    ]);
    expect(await value('scheduler_preemption_attempts_total')).toBe(2);
    expect(await value('scheduler_preemption_victims_count')).toBe(1);
    expect(await value('berth_decisions_total', { type: 'VictimPreempted' })).toBe(3);
  });

  it('counts a nominating attempt as unschedulable, parked in the unschedulable queue, as kube does', async () => {
    feed(0, { type: 'PodUpserted', pod: pods('hi') });
    cycle(10, 0.002, [
      { type: 'PodNominated', ...ref('hi', 1), node: 'n1', message: 'no fit' },
      {
        type: 'VictimPreempted',
        ...ref('hi', 1),
        node: 'n1',
        victim: { uid: 'uid-v', key: 'ns/v' },
      },
    ]);
    expect(await value('scheduler_schedule_attempts_total', { result: 'unschedulable' })).toBe(1);
    expect(
      await value('scheduler_queue_incoming_pods_total', {
        queue: 'unschedulable',
        event: 'ScheduleAttemptFailure',
      }),
    ).toBe(1);
    // Its victims gone, the next attempt binds: the SLI runs from its first queueing.
    reserveAndBind(500, 0.001, 'hi', 2);
    feed(510, { type: 'BindSucceeded', ...ref('hi', 2), node: 'n1' });
    expect(await value('scheduler_pod_scheduling_sli_duration_seconds_sum')).toBeCloseTo(0.51, 9);
    expect(metrics.trackedPods).toEqual({ pods: 0, keys: 0 });
  });

  it('adds the process_* and nodejs_* metrics unless asked not to', async () => {
    const names = new Set((await scrape()).map((s) => s.name));
    expect(names.has('process_cpu_seconds_total')).toBe(false);
    metrics = new SchedulerMetrics({ profile: 'berth', pending: () => pending });
    const withProcess = new Set((await scrape()).map((s) => s.name));
    expect(withProcess.has('process_cpu_seconds_total')).toBe(true);
    expect(withProcess.has('process_resident_memory_bytes')).toBe(true);
    expect([...withProcess].some((n) => n.startsWith('nodejs_'))).toBe(true);
  });
});
