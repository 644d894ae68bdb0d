// Readiness of the bind path: binds refused for want of permission (401/403) make /readyz fail until one succeeds.
import type { BerthEvent, Envelope } from '../../events/types.ts';

/** What a BindHealth is built with. */
export interface BindHealthOptions {
  /** Monotonic time in ms (e.g. `performance.now`): how long ago the last refusal was. */
  now: () => number;
  /** Refusals in a row (no successful bind between them) that make the check fail (default 3). */
  threshold?: number;
  /**
   * The check clears when no bind has been refused for this long (default 5 min): nothing is
   * trying any more, so nothing says the permission is still missing.
   */
  windowMs?: number;
}

/** The last bind refused for want of permission. */
interface Refusal {
  code: number;
  message: string;
  at: number;
}

/** A missing permission is named when the API server's message says which. */
function hint(code: number, message: string): string {
  if (code === 401)
    return "authentication: the API server rejects berth's credentials (ServiceAccount token or kubeconfig)";
  if (message.includes('berth bind fence'))
    return "the chart's bind fence: the Lease the binds name is not held by this replica as the API server sees it";
  if (message.includes('"pods/binding"'))
    return "RBAC: berth's ClusterRole lacks create on pods/binding";
  return "the API server forbids berth's binds: check its RBAC (create on pods/binding) and admission webhooks";
}

/**
 * Watches bind results in the log (a LiveObserver) and says, for /readyz, when the install
 * is broken rather than a pod: `threshold` binds in a row refused with 401 or 403, the last
 * within `windowMs`. A successful bind clears it; other failures (conflicts, 5xx, timeouts)
 * neither count nor clear, since they say nothing about berth's permissions.
 */
export class BindHealth {
  private refusedInRow = 0;
  private last: Refusal | undefined;
  private readonly threshold: number;
  private readonly windowMs: number;

  constructor(private readonly opts: BindHealthOptions) {
    this.threshold = opts.threshold ?? 3;
    this.windowMs = opts.windowMs ?? 300_000;
    if (!(this.threshold >= 1))
      throw new RangeError(`threshold must be >= 1 (got ${opts.threshold})`);
    if (!(this.windowMs > 0)) throw new RangeError(`windowMs must be > 0 (got ${opts.windowMs})`);
  }

  /** Every envelope of the log, as it enters (bound: it may be passed detached). */
  readonly envelope = (env: Envelope<BerthEvent>): void => {
    const e = env.event;
    if (e.type === 'BindSucceeded') {
      this.refusedInRow = 0;
      this.last = undefined;
    } else if (e.type === 'BindFailed' && (e.code === 401 || e.code === 403)) {
      this.refusedInRow += 1;
      this.last = { code: e.code, message: e.message, at: this.opts.now() };
    }
  };

  /** Undefined while binds are allowed; else why not, naming the missing permission. */
  problem(): string | undefined {
    const last = this.last;
    if (last === undefined || this.refusedInRow < this.threshold) return undefined;
    const ago = Math.max(0, this.opts.now() - last.at);
    if (ago > this.windowMs) return undefined;
    const status = last.code === 401 ? '401 unauthorized' : '403 forbidden';
    return `bind: ${status}: ${last.message} (${hint(last.code, last.message)}; ${this.refusedInRow} binds refused in a row, the last ${Math.round(ago / 1000)} s ago, none succeeded since)`;
  }
}
