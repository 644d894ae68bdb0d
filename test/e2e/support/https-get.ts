// GETs over HTTPS as a scraper does: optional bearer token, the server's certificate trusted or not checked (curl -k).
import { request as httpsRequest } from 'node:https';

/** What an HTTPS GET returned. */
export interface ServedResponse {
  status: number;
  contentType: string;
  body: string;
}

/** How to GET: a bearer token, and a CA to verify with (default: no verification, like curl -k). */
export interface HttpsGetOptions {
  token?: string;
  ca?: string;
  timeoutMs?: number;
}

/** GETs `url`; resolves with any HTTP answer, rejects on a connection or TLS failure. */
export function httpsGet(url: string, opts: HttpsGetOptions = {}): Promise<ServedResponse> {
  const headers = opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` };
  const tls = opts.ca === undefined ? { rejectUnauthorized: false } : { ca: opts.ca };
  const timeout = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ...tls, headers, timeout }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
