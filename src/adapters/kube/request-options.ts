// Per-call client-node options: request timeouts, patch content types, raw JSON bodies.
import {
  type ConfigurationOptions,
  Observable,
  type ObservableMiddleware,
  type PatchStrategy,
  type RequestContext,
  ResponseContext,
} from '@kubernetes/client-node';

// client-node 1.4's object-parameter API passes per-call middleware straight to its
// Observable layer, so middleware must return that layer's own minimal `Observable`.
function resolved<T>(value: T | Promise<T>): Observable<T> {
  return new Observable(Promise.resolve(value));
}

function withMiddleware(
  pre: (ctx: RequestContext) => void,
  post?: ObservableMiddleware['post'],
): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (ctx) => {
      pre(ctx);
      return resolved(ctx);
    },
    post: post ?? ((rsp) => resolved(rsp)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

/**
 * Options that abort the request after `timeoutMs` (client-node requests have no timeout of
 * their own; a half-open connection would hang forever). The rejection is an `AbortError`.
 */
export function timeoutOptions(timeoutMs: number, patch?: PatchStrategy): ConfigurationOptions {
  return withMiddleware((ctx) => {
    ctx.setSignal(AbortSignal.timeout(timeoutMs));
    if (patch !== undefined) ctx.setHeaderParam('Content-Type', patch);
  });
}

/** A request whose successful response body is kept as the raw JSON text. */
export interface RawCapture {
  options: ConfigurationOptions;
  /** The captured body parsed as JSON (throws if there was none or it is not JSON). */
  json(): unknown;
}

/**
 * Options that time the request out and capture the raw body of a 2xx answer. The generated
 * deserializer then sees `{}` instead: it would turn timestamps into `Date` objects and drop
 * unknown fields, and berth's log must hold the objects exactly as the API sent them (a
 * watch sends plain JSON; a listed object must look the same).
 */
export function rawJsonOptions(timeoutMs: number): RawCapture {
  let text: string | undefined;
  const options = withMiddleware(
    (ctx) => ctx.setSignal(AbortSignal.timeout(timeoutMs)),
    (rsp) => {
      if (rsp.httpStatusCode < 200 || rsp.httpStatusCode > 299) return resolved(rsp);
      const captured = rsp.body.text().then((body) => {
        text = body;
        const emptyBody = { text: async () => '{}', binary: async () => Buffer.from('{}') };
        return new ResponseContext(rsp.httpStatusCode, rsp.headers, emptyBody);
      });
      return resolved(captured);
    },
  );
  return {
    options,
    json: () => {
      if (text === undefined) throw new Error('no response body was captured');
      return JSON.parse(text) as unknown;
    },
  };
}
