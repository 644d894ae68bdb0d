// Fencing: a write leaves the process only while it may (the lease is held and fresh).
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** What a fenced client asks immediately before each write it sends. */
export interface WriteFence {
  /** undefined when a write may go out now; otherwise why not (one line, for logs). */
  refusal(): string | undefined;
}

/** A write the fence refused: it was never sent, so the API server never saw it. */
export class FencedWriteError extends Error {
  override name = 'FencedWriteError';
  constructor(method: string, path: string, reason: string) {
    super(`${method} ${path} not sent: ${reason}`);
  }
}

/** Whether `error` is a write the fence refused (nothing reached the API server). */
export function isFencedWrite(error: unknown): error is FencedWriteError {
  return error instanceof FencedWriteError;
}

/** Methods that only read: they are never fenced. */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Throws FencedWriteError when `method` writes and `fence` refuses it now. */
export function checkFence(fence: WriteFence | undefined, method: string, path: string): void {
  if (fence === undefined || readMethods.has(method.toUpperCase())) return;
  const reason = fence.refusal();
  if (reason !== undefined) throw new FencedWriteError(method, path, reason);
}

/** Whether `socket` can take bytes for the server now (connected and, for TLS, handshaken). */
function established(socket: Socket): boolean {
  if (socket.connecting) return false;
  if (!(socket instanceof TLSSocket)) return true;
  const protocol = socket.getProtocol();
  return protocol !== null && protocol !== 'unknown';
}

/**
 * Sends `req` with `body`. A write with a fence is held until the request has a socket that
 * is connected (a keep-alive pool may make it wait for one, a new connection for its
 * handshake), and the fence is asked right then: bytes that reach the server were allowed at
 * the moment they left. A refusal destroys the request with a FencedWriteError.
 */
export function endFenced(
  req: ClientRequest,
  fence: WriteFence | undefined,
  method: string,
  path: string,
  body: string | undefined,
): void {
  if (fence === undefined || readMethods.has(method.toUpperCase())) {
    req.end(body);
    return;
  }
  req.once('socket', (socket: Socket) => {
    const send = () => {
      try {
        checkFence(fence, method, path);
      } catch (error) {
        req.destroy(error as Error);
        return;
      }
      req.end(body);
    };
    if (established(socket)) send();
    else socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', send);
  });
}
