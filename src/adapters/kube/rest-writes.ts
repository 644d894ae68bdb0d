// The writes besides binds and pod Events (pod status patches, victim deletes, PodGroup status and Events), as plain JSON through DirectHttp.
import type { DirectHttp } from './direct-http.ts';
import type { CallOptions } from './request-options.ts';

const segment = encodeURIComponent;

/** The answer's JSON (undefined for an empty body; the text itself if it is not JSON). */
function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function send(
  http: DirectHttp,
  method: string,
  path: string,
  body: unknown,
  opts: CallOptions,
): Promise<unknown> {
  const json = body === undefined ? undefined : JSON.stringify(body);
  return parsed(await http.request(method, path, json, opts));
}

/** Pod writes of the core group. A non-2xx answer throws an ApiStatusError. */
export class CoreWrites {
  constructor(private readonly http: DirectHttp) {}

  /** PATCH the pod's status subresource (`opts.contentType` names the patch type). */
  patchNamespacedPodStatus(
    p: { name: string; namespace: string; body: unknown },
    opts: CallOptions,
  ): Promise<unknown> {
    const path = `/api/v1/namespaces/${segment(p.namespace)}/pods/${segment(p.name)}/status`;
    return send(this.http, 'PATCH', path, p.body, opts);
  }

  /** DELETE the pod, with DeleteOptions (preconditions, grace period) as the body. */
  deleteNamespacedPod(
    p: { name: string; namespace: string; body?: unknown },
    opts: CallOptions,
  ): Promise<unknown> {
    const path = `/api/v1/namespaces/${segment(p.namespace)}/pods/${segment(p.name)}`;
    return send(this.http, 'DELETE', path, p.body, opts);
  }
}

/** events.k8s.io/v1 Events. */
export class EventWrites {
  constructor(private readonly http: DirectHttp) {}

  /** POST an Event into `namespace`. */
  createNamespacedEvent(
    p: { namespace: string; body: unknown },
    opts: CallOptions,
  ): Promise<unknown> {
    const path = `/apis/events.k8s.io/v1/namespaces/${segment(p.namespace)}/events`;
    return send(this.http, 'POST', path, p.body, opts);
  }
}

/** Status patches of PodGroups: scheduler-plugins' (a CRD) and Kubernetes' own (scheduling.k8s.io/v1beta1). */
export class CustomObjectWrites {
  constructor(private readonly http: DirectHttp) {}

  /** PATCH the status subresource of a namespaced custom object. */
  patchNamespacedCustomObjectStatus(
    p: {
      group: string;
      version: string;
      plural: string;
      namespace: string;
      name: string;
      body: unknown;
    },
    opts: CallOptions,
  ): Promise<unknown> {
    const path =
      `/apis/${segment(p.group)}/${segment(p.version)}/namespaces/${segment(p.namespace)}` +
      `/${segment(p.plural)}/${segment(p.name)}/status`;
    return send(this.http, 'PATCH', path, p.body, opts);
  }
}
