// `--config FILE`: read, parsed as YAML/JSON documents, and split into config and run options.
import { parseAllDocuments } from 'yaml';
import { type LoadedConfig, readConfigDocuments } from '../config/config-file.ts';
import { ConfigError } from '../config/read.ts';
import { type BerthConfig, parseConfig, withFreshRunDefaults } from '../core/config.ts';
import {
  type KubeRelease,
  KubeReleaseError,
  latestKubeRelease,
  parseKubeRelease,
} from '../model/kube-release.ts';
import { CliError } from './errors.ts';
import { readTextFile } from './files.ts';

export type { LoadedConfig } from '../config/config-file.ts';

/**
 * Reads the config file at `path` (berth's plain keys, or a KubeSchedulerConfiguration with
 * an optional BerthConfiguration document); undefined without a path. A
 * KubeSchedulerConfiguration's plugins are merged with the default profile of the release
 * `--emulated-version` names (`emulatedVersion`; the latest without it), as that release's
 * kube-scheduler would merge them. Unreadable files, bad YAML and refused values become
 * one-line CliErrors (exit 1) naming the file or field; a release berth cannot emulate is a
 * usage error (exit 2).
 */
export function readConfigFile(
  path: string | undefined,
  emulatedVersion?: string,
): LoadedConfig | undefined {
  if (path === undefined) return undefined;
  const release = emulatedVersion === undefined ? latestKubeRelease : emulatedFlag(emulatedVersion);
  const text = readTextFile(path, 'config ');
  const docs: unknown[] = [];
  for (const doc of parseAllDocuments(text)) {
    const error = doc.errors[0];
    if (error !== undefined)
      throw new CliError(`config ${path} is not valid YAML/JSON: ${error.message.split('\n')[0]}`);
    docs.push(doc.toJS());
  }
  try {
    return readConfigDocuments(docs, release);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * The config that shapes decisions (recorded in the log header): the file's (defaults
 * without one), with `--scheduler-name` over a plain file's `schedulerName` and
 * `--emulated-version` over the file's `emulatedVersion`. A KubeSchedulerConfiguration
 * names its schedulers in its profiles, so `--scheduler-name` is a usage error (exit 2)
 * with one. Values parseConfig refuses are one-line CliErrors (exit 1); an emulated
 * version berth cannot emulate is a usage error.
 */
export function decisionConfig(
  file: LoadedConfig | undefined,
  name?: string,
  emulatedVersion?: string,
): BerthConfig {
  if (name !== undefined && file?.format === 'kube')
    throw new CliError(
      '--scheduler-name cannot be used with a KubeSchedulerConfiguration: name the schedulers in its profiles[].schedulerName',
      2,
    );
  const raw = file?.config ?? {};
  const release =
    emulatedVersion === undefined ? {} : { emulatedVersion: emulatedFlag(emulatedVersion) };
  try {
    return withFreshRunDefaults({
      ...parseConfig(name === undefined ? raw : { ...raw, schedulerName: name }),
      ...release,
    });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** Reads `--emulated-version`; a release berth cannot emulate is a usage error (exit 2). */
export function emulatedFlag(text: string): KubeRelease {
  try {
    return parseKubeRelease(text);
  } catch (error) {
    if (error instanceof KubeReleaseError)
      throw new CliError(`--emulated-version: ${error.message}`, 2);
    throw error;
  }
}
