// Per-call client-node options: request timeouts and patch content types.
import {
  type ConfigurationOptions,
  Observable,
  type ObservableMiddleware,
  type PatchStrategy,
  type RequestContext,
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
