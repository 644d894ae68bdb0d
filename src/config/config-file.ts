// The documents of a `--config` file: berth's plain keys, or a KubeSchedulerConfiguration (+ berth's part).
import type { KubeRelease } from '../model/kube-release.ts';
import {
  kubeSchedulerApiVersion,
  readKubeSchedulerConfiguration,
} from './kube-scheduler-config.ts';
import { ConfigError, type Fields, fields, knownKeys, optionalString } from './read.ts';

/** apiVersion of the document holding berth's own options next to a KubeSchedulerConfiguration. */
export const berthApiVersion = 'berth/v1';
/** kind of that document. */
export const berthKind = 'BerthConfiguration';

/** What a config file sets, split the way berth reads it. */
export interface LoadedConfig {
  /** `plain`: berth's own keys (the file format before profiles); `kube`: a KubeSchedulerConfiguration. */
  format: 'plain' | 'kube';
  /** Keys of berth's config, for `parseConfig` (recorded in the log header). */
  config: Fields;
  /** berth's run options in the plain file's keys (`leaderElection`, `metricsBindAddress`). */
  run: Fields;
  /** kube's clientConnection (a KubeSchedulerConfiguration only). */
  clientConnection: { kubeconfig?: string; qps?: number; burst?: number };
}

/** berth's keys that a BerthConfiguration document does not hold, and where they go. */
const notBerthDocument: Readonly<Record<string, string>> = {
  schedulerName: 'set profiles[].schedulerName in the KubeSchedulerConfiguration',
  percentageOfNodesToScore: 'set it in the KubeSchedulerConfiguration',
  backoff:
    'set podInitialBackoffSeconds and podMaxBackoffSeconds in the KubeSchedulerConfiguration',
  leaderElection: 'set it in the KubeSchedulerConfiguration',
  profiles: 'set them in the KubeSchedulerConfiguration',
};

function kindOf(doc: Fields, where: string): 'kube' | 'berth' | 'plain' {
  const apiVersion = optionalString(doc.apiVersion, `${where}apiVersion`);
  const kind = optionalString(doc.kind, `${where}kind`);
  if (kind === undefined && apiVersion === undefined) return 'plain';
  if (kind === 'KubeSchedulerConfiguration') {
    if (apiVersion !== kubeSchedulerApiVersion)
      throw new ConfigError(
        `${where}apiVersion`,
        `must be ${kubeSchedulerApiVersion} (the only KubeSchedulerConfiguration version berth reads), got ${JSON.stringify(apiVersion ?? '')}`,
      );
    return 'kube';
  }
  if (kind === berthKind) {
    if (apiVersion !== berthApiVersion)
      throw new ConfigError(
        `${where}apiVersion`,
        `must be ${berthApiVersion}, got ${JSON.stringify(apiVersion ?? '')}`,
      );
    return 'berth';
  }
  throw new ConfigError(
    `${where}kind`,
    `must be KubeSchedulerConfiguration or ${berthKind}, got ${JSON.stringify(kind ?? '')}`,
  );
}

/** The plain format's keys, which mention profiles only to say where they go. */
function plain(doc: Fields): LoadedConfig {
  if (Object.hasOwn(doc, 'profiles'))
    throw new ConfigError(
      'profiles',
      `profiles go in a KubeSchedulerConfiguration (apiVersion: ${kubeSchedulerApiVersion}, kind: KubeSchedulerConfiguration)`,
    );
  return { format: 'plain', config: doc, run: doc, clientConnection: {} };
}

/**
 * Reads the parsed YAML documents of a config file (null documents skipped). One document
 * without apiVersion and kind is berth's plain format (its keys are checked later, by
 * parseConfig and the run options). Otherwise one KubeSchedulerConfiguration, optionally
 * with one `berth/v1` BerthConfiguration document holding berth's own keys
 * (`maxParkedMs`, `flushIntervalMs`, `metricsBindAddress`) — kube-scheduler reads only
 * the first document of a file, so the same file still configures it. A
 * KubeSchedulerConfiguration's plugin lists are resolved against `release`'s default profile
 * (the release berth will emulate), and the config records that release. Throws ConfigError.
 */
export function readConfigDocuments(docs: readonly unknown[], release: KubeRelease): LoadedConfig {
  const present = docs.flatMap((d, i) => (d === null || d === undefined ? [] : [{ d, n: i + 1 }]));
  if (present.length === 0) return plain({});
  const several = present.length > 1;
  let kube: Fields | undefined;
  let berth: Fields | undefined;
  for (const { d, n } of present) {
    const where = several ? `(document ${n}) ` : '';
    const doc = fields(d, where.trim());
    const kind = kindOf(doc, where);
    if (kind === 'plain') {
      if (several)
        throw new ConfigError(
          `(document ${n})`,
          `has no apiVersion and kind: with several documents, each must be a KubeSchedulerConfiguration or a ${berthKind}`,
        );
      return plain(doc);
    }
    if (kind === 'kube') {
      if (kube !== undefined)
        throw new ConfigError(`(document ${n})`, 'a second KubeSchedulerConfiguration');
      kube = doc;
    } else {
      if (berth !== undefined) throw new ConfigError(`(document ${n})`, `a second ${berthKind}`);
      berth = doc;
    }
  }
  if (kube === undefined)
    throw new ConfigError(
      berthKind,
      'goes with a KubeSchedulerConfiguration document; without one, write its keys as a plain berth config file',
    );
  const settings = readKubeSchedulerConfiguration(kube, release);
  const own = berth ?? {};
  knownKeys(
    own,
    berthKind,
    ['apiVersion', 'kind', 'maxParkedMs', 'flushIntervalMs', 'metricsBindAddress'],
    notBerthDocument,
  );
  const config: Fields = { ...settings.config, emulatedVersion: release };
  for (const key of ['maxParkedMs', 'flushIntervalMs'])
    if (own[key] !== undefined) config[key] = own[key];
  const run: Fields = { leaderElection: settings.leaderElection };
  if (own.metricsBindAddress !== undefined) run.metricsBindAddress = own.metricsBindAddress;
  return { format: 'kube', config, run, clientConnection: settings.clientConnection };
}
