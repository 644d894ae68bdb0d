// Tests KubeReports' reportGroup for Kubernetes' own PodGroups: the PodGroupInitiallyScheduled condition as kube writes it.
import { describe, expect, it } from 'vitest';
import { report, setup } from '../../../test/support/group-reports-harness.ts';
import { headersAfter } from '../../../test/support/kube-api-doubles.ts';
import type { GroupReport } from '../../core/ports.ts';

describe("KubeReports reportGroup of Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1)", () => {
  const key = 'ml/train (scheduling.k8s.io)';
  const core = (
    status: 'True' | 'False',
    message = '',
    event?: GroupReport['event'],
  ): GroupReport => ({
    ...report(key, 'Pending'),
    initiallyScheduled: {
      status,
      reason: status === 'True' ? 'Scheduled' : 'Unschedulable',
      message,
      observedGeneration: 2,
    },
    ...(event === undefined ? {} : { event }),
  });

  it('strategic-merge-patches only the PodGroupInitiallyScheduled condition, as kube-scheduler writes it', async () => {
    const t = setup();
    t.reports.execute({
      kind: 'reportGroup',
      report: core('False', 'minCount (3) cannot be satisfied: 2 scheduled, 0 remaining'),
    });
    await t.reports.settled();
    expect(t.calls.status.map((c) => c.param)).toEqual([
      {
        group: 'scheduling.k8s.io',
        version: 'v1beta1',
        plural: 'podgroups',
        namespace: 'ml',
        name: 'train',
        body: {
          status: {
            conditions: [
              {
                type: 'PodGroupInitiallyScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message: 'minCount (3) cannot be satisfied: 2 scheduled, 0 remaining',
                observedGeneration: 2,
                lastTransitionTime: '2030-01-02T03:04:05Z',
              },
            ],
          },
        },
      },
    ]);
    const headers = await headersAfter(t.calls.status[0]?.options);
    expect(headers['Content-Type']).toBe('application/strategic-merge-patch+json');
  });

  it('writes nothing before the group’s first step, and names the core PodGroup in its Events', async () => {
    const t = setup();
    const event = { type: 'Warning' as const, reason: 'GangTimeout', message: 'released' };
    t.reports.execute({ kind: 'reportGroup', report: { ...report(key, 'Pending'), event } });
    await t.reports.settled();
    expect(t.calls.status).toEqual([]);
    expect(t.calls.event.map((c) => (c.param.body as { regarding: unknown }).regarding)).toEqual([
      { apiVersion: 'scheduling.k8s.io/v1beta1', kind: 'PodGroup', name: 'train', namespace: 'ml' },
    ]);
    expect(t.calls.event[0]?.param.namespace).toBe('ml');
  });

  it('keeps lastTransitionTime while the status stays, and does not send an unchanged condition again', async () => {
    let time = Date.parse('2030-01-02T03:04:05Z');
    const t = setup({ now: () => new Date(time) });
    const sent = () =>
      t.calls.status.map((c) => {
        const [cond] = (c.param.body as { status: { conditions: Record<string, unknown>[] } })
          .status.conditions;
        return `${String(cond?.status)} ${String(cond?.lastTransitionTime)} ${String(cond?.message)}`;
      });
    t.reports.execute({ kind: 'reportGroup', report: core('False', 'a') });
    await t.reports.settled();
    time += 60_000;
    t.reports.execute({ kind: 'reportGroup', report: core('False', 'a') });
    t.reports.execute({ kind: 'reportGroup', report: core('False', 'b') });
    await t.reports.settled();
    time += 60_000;
    t.reports.execute({ kind: 'reportGroup', report: core('True') });
    await t.reports.settled();
    expect(sent()).toEqual([
      'False 2030-01-02T03:04:05Z a',
      'False 2030-01-02T03:04:05Z b',
      'True 2030-01-02T03:06:05Z ',
    ]);
  });
});
