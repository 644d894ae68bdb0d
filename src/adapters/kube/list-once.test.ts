// Pins how PodGroups are listed (the CustomObjectsApi, paged) and a one-shot list of a kind the server does not serve.
import { type ConfigurationOptions, KubeConfig, ResponseContext } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../../test/support/kube-api-doubles.ts';
import type { KubeClients } from './config.ts';
import { ListError, listKind } from './list-once.ts';
import { objectSource } from './list-watch.ts';
import type { ListWatchSource } from './reflector.ts';

/** Answers a call as the API server would: runs the per-call middleware on a 200 with `body`. */
async function answer(options: ConfigurationOptions | undefined, body: unknown): Promise<unknown> {
  const text = JSON.stringify(body);
  let rsp = new ResponseContext(
    200,
    { 'content-type': 'application/json' },
    { text: async () => text, binary: async () => Buffer.from(text) },
  );
  for (const m of options?.middleware ?? []) rsp = await m.post(rsp).toPromise();
  return JSON.parse(await rsp.body.text());
}

function failing(error: unknown, resource?: string): ListWatchSource {
  return {
    ...(resource === undefined ? {} : { resource }),
    list: () => Promise.reject(error),
    watch: () => Promise.reject(new Error('not used')),
  };
}

describe('objectSource PodGroup', () => {
  it('pages through every namespace with the CustomObjectsApi and keeps the raw JSON', async () => {
    const calls: Record<string, unknown>[] = [];
    const pages = [
      {
        items: [
          { metadata: { name: 'a', namespace: 'x', creationTimestamp: '2025-01-01T00:00:00Z' } },
        ],
        metadata: { resourceVersion: '5', continue: 'next' },
      },
      { items: [{ metadata: { name: 'b', namespace: 'y' } }], metadata: { resourceVersion: '6' } },
    ];
    const clients = {
      kc: new KubeConfig(),
      custom: {
        listClusterCustomObject: (
          param: Record<string, unknown>,
          options?: ConfigurationOptions,
        ) => {
          calls.push(param);
          return answer(options, pages[calls.length - 1]);
        },
      },
    } as unknown as KubeClients;
    const source = objectSource(clients, 'PodGroup', { pageSize: 1 });
    expect(source.resource).toBe('scheduling.x-k8s.io/v1alpha1 podgroups');
    expect(await source.list()).toEqual({
      items: [
        // The timestamp stays a string: the generated deserializer never saw the body.
        { metadata: { name: 'a', namespace: 'x', creationTimestamp: '2025-01-01T00:00:00Z' } },
        { metadata: { name: 'b', namespace: 'y' } },
      ],
      resourceVersion: '6',
    });
    const where = { group: 'scheduling.x-k8s.io', version: 'v1alpha1', plural: 'podgroups' };
    expect(calls).toEqual([
      { ...where, limit: 1 },
      { ...where, limit: 1, _continue: 'next' },
    ]);
  });
});

describe('listKind', () => {
  const notFound = apiError(404, 'NotFound', 'the server could not find the requested resource');

  it('lists an optional kind the API server does not serve as empty and unavailable', async () => {
    const source = failing(notFound, 'scheduling.x-k8s.io/v1alpha1 podgroups');
    expect(await listKind('PodGroup', source, true)).toEqual([
      { type: 'ResyncStarted', kind: 'PodGroup' },
      {
        type: 'ResyncDone',
        kind: 'PodGroup',
        unavailable:
          'the API server does not serve scheduling.x-k8s.io/v1alpha1 podgroups (is the PodGroup CRD installed?)',
      },
    ]);
  });

  it('fails on a 404 of a kind that is not optional, and on other failures of an optional one', async () => {
    await expect(listKind('Service', failing(notFound), false)).rejects.toThrow(
      new ListError('Service', 'the server could not find the requested resource (404)'),
    );
    const forbidden = apiError(403, 'Forbidden', 'podgroups is forbidden');
    await expect(listKind('PodGroup', failing(forbidden), true)).rejects.toThrow(
      'cannot list PodGroup objects: podgroups is forbidden (403)',
    );
  });
});
