// NodeAffinityArgs of a profile: addedAffinity's node selector terms, checked as kube parses them.
import type {
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PreferredSchedulingTerm,
} from '../model/objects.ts';
import type { NodeAffinityArgs } from '../plugins/node-affinity.ts';
import { parseInt64 } from '../plugins/node-selector.ts';
import { labelValueProblem, qualifiedNameProblem } from './names.ts';
import {
  at,
  ConfigError,
  checkTypeMeta,
  child,
  fields,
  knownKeys,
  list,
  optionalInt,
  optionalString,
  requiredString,
} from './read.ts';

const labelOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const fieldOperators = ['In', 'NotIn'];
const int32 = 2 ** 31 - 1;

function values(raw: unknown, path: string): string[] {
  return list(raw, path).map((v, i) => optionalString(v, at(path, i)) ?? '');
}

/** kube's labels.NewRequirement checks, for one matchExpressions entry. */
function expression(raw: unknown, path: string): NodeSelectorRequirement {
  const r = fields(raw, path);
  knownKeys(r, path, ['key', 'operator', 'values']);
  const key = optionalString(r.key, child(path, 'key')) ?? '';
  const why = qualifiedNameProblem(key);
  if (why !== undefined) throw new ConfigError(child(path, 'key'), `"${key}" ${why}`);
  const operator = requiredString(r.operator, child(path, 'operator'));
  if (!labelOperators.includes(operator))
    throw new ConfigError(
      child(path, 'operator'),
      `unsupported value "${operator}" (supported: ${labelOperators.join(', ')})`,
    );
  const vPath = child(path, 'values');
  const vs = values(r.values, vPath);
  if ((operator === 'In' || operator === 'NotIn') && vs.length === 0)
    throw new ConfigError(vPath, `must be specified when operator is ${operator}`);
  if ((operator === 'Exists' || operator === 'DoesNotExist') && vs.length > 0)
    throw new ConfigError(vPath, `may not be specified when operator is ${operator}`);
  if (operator === 'Gt' || operator === 'Lt') {
    if (vs.length !== 1)
      throw new ConfigError(vPath, `must have exactly one value when operator is ${operator}`);
    if (parseInt64(vs[0] as string) === undefined)
      throw new ConfigError(at(vPath, 0), `"${vs[0]}" must be an integer for ${operator}`);
  } else {
    vs.forEach((v, i) => {
      const bad = labelValueProblem(v);
      if (bad !== undefined) throw new ConfigError(at(vPath, i), `"${v}" ${bad}`);
    });
  }
  return { key, operator, ...(vs.length === 0 ? {} : { values: vs }) };
}

/** One matchFields entry: In or NotIn with exactly one value. */
function fieldRequirement(raw: unknown, path: string): NodeSelectorRequirement {
  const r = fields(raw, path);
  knownKeys(r, path, ['key', 'operator', 'values']);
  const key = optionalString(r.key, child(path, 'key')) ?? '';
  const operator = requiredString(r.operator, child(path, 'operator'));
  if (!fieldOperators.includes(operator))
    throw new ConfigError(
      child(path, 'operator'),
      `unsupported value "${operator}" (supported: In, NotIn)`,
    );
  const vs = values(r.values, child(path, 'values'));
  if (vs.length !== 1) throw new ConfigError(child(path, 'values'), 'must have one element');
  return { key, operator, values: vs };
}

function term(raw: unknown, path: string): NodeSelectorTerm {
  const t = fields(raw, path);
  knownKeys(t, path, ['matchExpressions', 'matchFields']);
  const ePath = child(path, 'matchExpressions');
  const fPath = child(path, 'matchFields');
  const matchExpressions = list(t.matchExpressions, ePath).map((e, i) =>
    expression(e, at(ePath, i)),
  );
  const matchFields = list(t.matchFields, fPath).map((f, i) => fieldRequirement(f, at(fPath, i)));
  return {
    ...(matchExpressions.length === 0 ? {} : { matchExpressions }),
    ...(matchFields.length === 0 ? {} : { matchFields }),
  };
}

/**
 * NodeAffinityArgs at `path`: `addedAffinity` with required node selector terms and
 * weighted preferred terms, every requirement checked the way kube's NewNodeSelector parses
 * it (operators, value counts, integer Gt/Lt, key and value syntax). Undefined when there is
 * no added affinity.
 */
export function nodeAffinityArgs(raw: unknown, path: string): NodeAffinityArgs | undefined {
  const args = fields(raw, path);
  knownKeys(args, path, ['apiVersion', 'kind', 'addedAffinity']);
  checkTypeMeta(args, path, 'NodeAffinity');
  if (args.addedAffinity === undefined || args.addedAffinity === null) return undefined;
  const aPath = child(path, 'addedAffinity');
  const added = fields(args.addedAffinity, aPath);
  const requiredKey = 'requiredDuringSchedulingIgnoredDuringExecution';
  const preferredKey = 'preferredDuringSchedulingIgnoredDuringExecution';
  knownKeys(added, aPath, [requiredKey, preferredKey]);
  const result: NonNullable<NodeAffinityArgs['addedAffinity']> = {};
  if (added[requiredKey] !== undefined && added[requiredKey] !== null) {
    const rPath = child(aPath, requiredKey);
    const selector = fields(added[requiredKey], rPath);
    knownKeys(selector, rPath, ['nodeSelectorTerms']);
    const tPath = child(rPath, 'nodeSelectorTerms');
    result[requiredKey] = {
      nodeSelectorTerms: list(selector.nodeSelectorTerms, tPath).map((t, i) =>
        term(t, at(tPath, i)),
      ),
    };
  }
  const pPath = child(aPath, preferredKey);
  const preferred = list(added[preferredKey], pPath).map((raw, i): PreferredSchedulingTerm => {
    const p = at(pPath, i);
    const t = fields(raw, p);
    knownKeys(t, p, ['weight', 'preference']);
    const weight = optionalInt(t.weight, child(p, 'weight'), -int32 - 1, int32) ?? 0;
    return { weight, preference: term(t.preference, child(p, 'preference')) };
  });
  if (preferred.length > 0) result[preferredKey] = preferred;
  return { addedAffinity: result };
}
