// Draws a flat machine's config as Mermaid stateDiagram-v2 (root transitions from every non-final state).

/** One transition of a config, normalized: its trigger, guard name and target state keys. */
export interface ConfigTransition {
  /** The event type, `after <delay>`, or `always`. */
  trigger: string;
  guard: string | undefined;
  targets: string[];
}

/** A state of a flat config, as the diagram needs it. */
export interface ConfigState {
  key: string;
  type: string | undefined;
  description: string | undefined;
  transitions: ConfigTransition[];
}

type Raw = Record<string, unknown>;

/** `'.deleted'`, `'#pod.pending'` or `'pending'` → the state key. */
function stateKey(target: string): string {
  return target.slice(target.lastIndexOf('.') + 1);
}

function guardName(guard: unknown): string | undefined {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null) return String((guard as Raw).type);
  return guard === undefined ? undefined : 'guard';
}

/** A config's transitions for one trigger (a target string, an object, or a list of them). */
function transitionsOf(trigger: string, value: unknown): ConfigTransition[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((t) => {
    const object = (typeof t === 'string' ? { target: t } : (t ?? {})) as Raw;
    const target = object.target;
    const targets = target === undefined ? [] : Array.isArray(target) ? target : [target];
    return { trigger, guard: guardName(object.guard), targets: targets.map(String).map(stateKey) };
  });
}

/** A state node config's transitions, in order: `on`, then `after`, then `always`. */
export function configTransitions(node: Raw): ConfigTransition[] {
  const on = Object.entries((node.on ?? {}) as Raw).flatMap(([event, v]) =>
    transitionsOf(event, v),
  );
  const after = Object.entries((node.after ?? {}) as Raw).flatMap(([delay, v]) =>
    transitionsOf(`after ${delay}`, v),
  );
  const always = node.always === undefined ? [] : transitionsOf('always', node.always);
  return [...on, ...after, ...always];
}

/** The states of a flat machine config, in declaration order (nested states are refused). */
export function configStates(config: Raw): ConfigState[] {
  return Object.entries((config.states ?? {}) as Raw).map(([key, value]) => {
    const node = value as Raw;
    if (node.states !== undefined)
      throw new Error(`cannot draw ${key}: nested states are not drawn (the machines are flat)`);
    return {
      key,
      type: node.type as string | undefined,
      description: node.description as string | undefined,
      transitions: configTransitions(node),
    };
  });
}

function label(t: ConfigTransition): string {
  return t.guard === undefined ? t.trigger : `${t.trigger} [${t.guard}]`;
}

/**
 * Renders a flat machine's config as Mermaid `stateDiagram-v2`: the initial state, each
 * state's description, its transitions (guards in brackets, `after <delay>`), transitions
 * declared on the root drawn from every non-final state, and final states to `[*]`.
 */
export function toMermaid(machineConfig: unknown): string {
  const config = machineConfig as Raw;
  const lines = ['stateDiagram-v2'];
  if (typeof config.initial === 'string') lines.push(`  [*] --> ${stateKey(config.initial)}`);
  const states = configStates(config);
  for (const s of states)
    if (s.description !== undefined) lines.push(`  ${s.key} : ${s.description}`);
  const edge = (from: string, t: ConfigTransition) =>
    t.targets.map((to) => `  ${from} --> ${to} : ${label(t)}`);
  for (const s of states) for (const t of s.transitions) lines.push(...edge(s.key, t));
  for (const t of configTransitions(config))
    for (const s of states) if (s.type !== 'final') lines.push(...edge(s.key, t));
  for (const s of states) if (s.type === 'final') lines.push(`  ${s.key} --> [*]`);
  return `${lines.join('\n')}\n`;
}
