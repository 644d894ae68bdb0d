// Turns the error shapes of berth's HTTP path and of @kubernetes/client-node 1.4 into one line and a status code.

/**
 * A non-2xx answer from the API server: its status code, its body as text (a Status JSON,
 * usually) and its headers. The same fields as client-node's `ApiException`, which
 * `describeApiError` reads alike.
 */
export class ApiStatusError extends Error {
  override name = 'ApiStatusError';

  constructor(
    readonly code: number,
    readonly body: string,
    readonly headers: Record<string, string | string[] | undefined>,
  ) {
    super(`HTTP ${code}`);
  }
}

/** What went wrong with an API call, reduced to what logs and events need. */
export interface ApiFailure {
  /** HTTP status (from the response or from a watch Status object), when there was one. */
  code: number | undefined;
  /** The Status `reason` (e.g. `Conflict`, `NotFound`, `Expired`), when the API sent one. */
  reason: string | undefined;
  /** One line: the API's Status message, or the network error. */
  message: string;
  /** True when the request never got an HTTP answer (refused, reset, DNS, TLS, timeout). */
  network: boolean;
}

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null ? (value as Loose) : undefined;
}

/** First line of `text`, trimmed; long texts are cut so a log line stays a line. */
export function oneLine(text: string, max = 500): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'unknown error';
  }
}

/** Parses a Status body: client-node 1.4 hands it over as the raw JSON text (or undefined). */
function statusOf(body: unknown): Loose | undefined {
  if (typeof body === 'string') {
    try {
      return asObject(JSON.parse(body));
    } catch {
      return body.trim() === '' ? undefined : { message: body };
    }
  }
  return asObject(body);
}

/** Describes a Kubernetes `Status` object (a watch ERROR event's object, or an error body). */
export function describeStatus(status: unknown, fallbackCode?: number): ApiFailure {
  const s = asObject(status) ?? {};
  const code = typeof s.code === 'number' ? s.code : fallbackCode;
  const reason = typeof s.reason === 'string' && s.reason !== '' ? s.reason : undefined;
  const message =
    typeof s.message === 'string' && s.message !== ''
      ? oneLine(s.message)
      : `${code ?? 'unknown'} ${reason ?? 'error'}`;
  return { code, reason, message, network: false };
}

/**
 * Describes any error thrown by an API call: an `ApiStatusError` or client-node's
 * `ApiException` (numeric `code`, `body` =
 * Status JSON text, or undefined for 401), a `Watch` start failure (`statusCode`, message =
 * HTTP status text, body discarded), a node-fetch `FetchError` (`type: 'system'`, `code` =
 * errno), an `AbortError`, or anything else. Never throws.
 */
export function describeApiError(err: unknown): ApiFailure {
  const e = asObject(err);
  if (e === undefined)
    return {
      code: undefined,
      reason: undefined,
      message: oneLine(safeString(err)),
      network: false,
    };
  if (typeof e.code === 'number') {
    const status = statusOf(e.body);
    if (status !== undefined) return describeStatus(status, e.code);
    return {
      code: e.code,
      reason: httpReason(e.code),
      message: `${e.code} ${httpReason(e.code)}`,
      network: false,
    };
  }
  if (typeof e.statusCode === 'number') {
    const text =
      typeof e.message === 'string' && e.message !== '' ? e.message : httpReason(e.statusCode);
    return {
      code: e.statusCode,
      reason: httpReason(e.statusCode),
      message: `${e.statusCode} ${text}`,
      network: false,
    };
  }
  if (e.name === 'AbortError' || e.type === 'aborted')
    return {
      code: undefined,
      reason: undefined,
      message: 'request aborted (timed out)',
      network: true,
    };
  const raw = typeof e.message === 'string' ? e.message : safeString(err);
  if (e.name === 'FetchError' || e.type === 'system' || typeof e.code === 'string') {
    // node-fetch: "request to https://h/p failed, reason: connect ECONNREFUSED 127.0.0.1:1234"
    const reason = /failed, reason: (.*)$/s.exec(raw)?.[1] ?? raw;
    return { code: undefined, reason: undefined, message: oneLine(reason), network: true };
  }
  return { code: undefined, reason: undefined, message: oneLine(raw), network: false };
}

const reasons: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function httpReason(code: number): string {
  return reasons[code] ?? 'Error';
}
