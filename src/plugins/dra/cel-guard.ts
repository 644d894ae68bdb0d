// Hooks into a checked cel-js AST: a runtime cost meter for comprehensions and kube's `in` on attribute/capacity domains.
//
// cel-js 8.0.0 has no cost tracking and no way to overload `in` for maps, so this module
// wraps the `evaluate` of chosen AST nodes. It relies on cel-js internals (nodes carry `op`,
// `args` and a `meta` with `alternate`/`macro`; a node's first `evaluate` call replaces itself
// with an own property), which is why the library is pinned exactly; the tests of the cost
// limit and of `"domain" in device.attributes` fail if an upgrade changes them.

/** The error CEL-go reports when the runtime cost limit is hit; kube passes it through. */
export const costLimitExceeded = 'operation cancelled: actual cost limit exceeded';

/** The cost budget of one evaluation. */
export interface CostMeter {
  remaining: number;
  exceeded: boolean;
}

/** Thrown by a metered node when the budget is spent. */
export class CostLimitError extends Error {
  constructor() {
    super(costLimitExceeded);
  }
}

/** The meter of the evaluation in progress (evaluation is synchronous, so one at a time). */
let activeMeter: CostMeter | undefined;

/** Runs `fn` with `meter` charged by metered nodes. */
export function withMeter<T>(meter: CostMeter, fn: () => T): T {
  const previous = activeMeter;
  activeMeter = meter;
  try {
    return fn();
  } finally {
    activeMeter = previous;
  }
}

function charge(weight: number): void {
  const m = activeMeter;
  if (m === undefined) return;
  m.remaining -= weight;
  if (m.remaining < 0) {
    m.exceeded = true;
    throw new CostLimitError();
  }
}

/** The structural view of a cel-js AST node that these hooks rely on. */
interface Node {
  op: string;
  args: unknown;
  readonly meta?: { alternate?: unknown; macro?: unknown };
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
}

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
}

/** Every node reachable from `root`: arguments, comprehension parts, macro expansions. */
export function allNodes(root: unknown): Node[] {
  const seen = new Set<unknown>();
  const out: Node[] = [];
  const visit = (x: unknown, depth: number): void => {
    if (typeof x !== 'object' || x === null || seen.has(x) || depth > 8) return;
    seen.add(x);
    if (isNode(x)) {
      out.push(x);
      visit(x.args, 0);
      visit(x.meta?.alternate, 0);
      visit(x.meta?.macro, 0);
      return;
    }
    // Argument lists, map entries, comprehension and macro records: look one level in.
    for (const v of Array.isArray(x) ? x : Object.values(x)) visit(v, depth + 1);
  };
  visit(root, 0);
  return out;
}

/**
 * Wraps a node's evaluation: `before` runs first, `after` maps the result. The accessor
 * swallows cel-js's self-replacing assignment so the wrapper stays in place.
 */
function hookEvaluate(node: Node, before?: () => void, after?: (v: unknown) => unknown): void {
  const first = node.evaluate;
  let inner: Node['evaluate'] | undefined;
  let resolving = false;
  const wrapper = function (this: Node, ev: unknown, ast: unknown, ctx: unknown): unknown {
    let v: unknown;
    if (inner !== undefined) {
      // The re-entrant call made while `first` resolves itself was already charged.
      if (!resolving) before?.();
      v = inner.call(this, ev, ast, ctx);
    } else {
      before?.();
      resolving = true;
      try {
        v = first.call(this, ev, ast, ctx);
      } finally {
        resolving = false;
      }
    }
    return after === undefined ? v : after(v);
  };
  Object.defineProperty(node, 'evaluate', {
    configurable: true,
    get: () => wrapper,
    set: (f: Node['evaluate']) => {
      inner = f;
    },
  });
}

/** CEL-go's name of a value's Go type, for its "expected iterable type" error. */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'types.Null';
  const names: Record<string, string> = {
    bigint: 'types.Int',
    number: 'types.Double',
    boolean: 'types.Bool',
    string: 'types.String',
  };
  return (
    names[typeof v] ?? `cel.${(v as object).constructor?.name.replace(/^Cel/, '') ?? 'Object'}`
  );
}

/** Only lists and maps can be ranged over; cel-js would also walk an object's own keys. */
function checkIterable(v: unknown): unknown {
  if (Array.isArray(v) || v instanceof Map || v instanceof Set) return v;
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype)
    return v;
  throw new Error(`got '${goTypeName(v)}', expected iterable type`);
}

/**
 * Installs the hooks on a checked AST and returns its static size (its node count).
 * - Each comprehension step is charged the size of its own subtree per iteration, which
 *   bounds runaway nested macros the way CEL-go's runtime cost limit does.
 * - A comprehension's range must be a list or a map, as in CEL-go (cel-js walks any object).
 * - The right operand of every `in` goes through `honest`, so a map that answers missing
 *   keys with a default (kube's attribute domains) still says a missing key is not in it.
 */
export function installHooks(root: unknown, honest: (v: unknown) => unknown): number {
  const nodes = allNodes(root);
  for (const node of nodes) {
    if (node.op === 'in' && Array.isArray(node.args) && isNode(node.args[1])) {
      hookEvaluate(node.args[1], undefined, honest);
    }
    if (node.op === 'comprehension') {
      const { step, iterable } = node.args as { step?: unknown; iterable?: unknown };
      if (isNode(iterable)) hookEvaluate(iterable, undefined, checkIterable);
      if (isNode(step)) {
        const weight = allNodes(step).length;
        hookEvaluate(step, () => charge(weight));
      }
    }
  }
  return nodes.length;
}
