// Pins how PodGroups are listed (paged, streamed from a real local server) and a one-shot list of a kind the server does not serve.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../../test/support/kube-api-doubles.ts';
import { localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import type { KubeClients } from './config.ts';
import { DirectHttp } from './direct-http.ts';
import { ListError, listKind } from './list-once.ts';
import { objectSource } from './list-watch.ts';
import type { ListWatchSource } from './watch-source.ts';

function failing(error: unknown, resource?: string): ListWatchSource {
  return {
    ...(resource === undefined ? {} : { resource }),
    list: () => Promise.reject(error),
    watch: () => Promise.reject(new Error('not used')),
  };
}

describe('objectSource PodGroup', () => {
  it('pages through every namespace and keeps the raw JSON', async () => {
    const pages = [
      {
        items: [
          { metadata: { name: 'a', namespace: 'x', creationTimestamp: '2025-01-01T00:00:00Z' } },
        ],
        metadata: { resourceVersion: '5', continue: 'next' },
      },
      { items: [{ metadata: { name: 'b', namespace: 'y' } }], metadata: { resourceVersion: '6' } },
    ];
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(pages[asked.length - 1]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const kc = localKubeConfig(`http://127.0.0.1:${port}`);
    const http = new DirectHttp(kc);
    try {
      const source = objectSource({ http } as unknown as KubeClients, 'PodGroup', { pageSize: 1 });
      expect(source.resource).toBe('scheduling.x-k8s.io/v1alpha1 podgroups');
      const items: unknown[] = [];
      expect(await source.list({ fromCache: true }, (i) => items.push(i))).toEqual({
        resourceVersion: '6',
      });
      // The timestamp stays a string: the objects are exactly what the server sent.
      expect(items).toEqual([...(pages[0]?.items ?? []), ...(pages[1]?.items ?? [])]);
      const path = '/apis/scheduling.x-k8s.io/v1alpha1/podgroups';
      expect(asked).toEqual([`${path}?limit=1&resourceVersion=0`, `${path}?limit=1&continue=next`]);
    } finally {
      http.destroy();
      server.closeAllConnections();
      server.close();
    }
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
