// Pins the requests berth's writes send (method, path, content type, body) against a real local HTTP server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import { describeApiError } from './api-error.ts';
import { DirectHttp } from './direct-http.ts';
import { PatchType, timeoutOptions } from './request-options.ts';
import { CoreWrites, CustomObjectWrites, EventWrites } from './rest-writes.ts';

interface Seen {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}

const seen: Seen[] = [];
let answer = { code: 200, body: '{"kind":"Pod"}' };

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (b: Buffer) => chunks.push(b));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      contentType: req.headers['content-type'],
      body: text === '' ? undefined : JSON.parse(text),
    });
    res.writeHead(answer.code, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
}

let server: Server;
let http: DirectHttp;

beforeAll(async () => {
  server = createServer(handle);
  http = new DirectHttp(localKubeConfig(await listenOnLoopback(server)));
});

afterAll(async () => {
  http.destroy();
  await new Promise((r) => server.close(r));
});

describe('berth API writes', () => {
  it('patches a pod status, deletes a pod, posts an Event and patches a PodGroup status', async () => {
    seen.length = 0;
    answer = { code: 200, body: '{"kind":"Pod"}' };
    const opts = timeoutOptions(2000);
    const patched = await new CoreWrites(http).patchNamespacedPodStatus(
      { name: 'web 0', namespace: 'shop', body: { status: { phase: 'x' } } },
      timeoutOptions(2000, PatchType.StrategicMerge),
    );
    expect(patched).toEqual({ kind: 'Pod' });
    await new CoreWrites(http).deleteNamespacedPod(
      { name: 'web-1', namespace: 'shop', body: { preconditions: { uid: 'u1' } } },
      opts,
    );
    await new EventWrites(http).createNamespacedEvent(
      { namespace: 'shop', body: { note: 'n' } },
      opts,
    );
    await new CustomObjectWrites(http).patchNamespacedCustomObjectStatus(
      {
        group: 'scheduling.x-k8s.io',
        version: 'v1alpha1',
        plural: 'podgroups',
        namespace: 'shop',
        name: 'g',
        body: { status: { phase: 'Running' } },
      },
      timeoutOptions(2000, PatchType.Merge),
    );
    expect(seen).toEqual([
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/shop/pods/web%200/status',
        contentType: 'application/strategic-merge-patch+json',
        body: { status: { phase: 'x' } },
      },
      {
        method: 'DELETE',
        path: '/api/v1/namespaces/shop/pods/web-1',
        contentType: 'application/json',
        body: { preconditions: { uid: 'u1' } },
      },
      {
        method: 'POST',
        path: '/apis/events.k8s.io/v1/namespaces/shop/events',
        contentType: 'application/json',
        body: { note: 'n' },
      },
      {
        method: 'PATCH',
        path: '/apis/scheduling.x-k8s.io/v1alpha1/namespaces/shop/podgroups/g/status',
        contentType: 'application/merge-patch+json',
        body: { status: { phase: 'Running' } },
      },
    ]);
  });

  it('throws the API error with its code and message', async () => {
    answer = {
      code: 409,
      body: JSON.stringify({
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        message: 'uid differs',
      }),
    };
    const err = await new CoreWrites(http)
      .deleteNamespacedPod({ name: 'p', namespace: 'ns' }, timeoutOptions(2000))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(describeApiError(err)).toMatchObject({ code: 409, message: 'uid differs' });
  });
});
