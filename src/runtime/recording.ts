// Starts a recording: the log header every run writes, whatever drives it.

import { berthVersion } from '../adapters/version.ts';
import type { BerthConfig } from '../core/config.ts';
import { logFormatVersion } from '../events/log-format.ts';
import { type LineSink, Recorder } from '../events/recorder.ts';
import type { SealKey } from '../events/seal.ts';

/**
 * A recorder whose header carries this berth's version, the seed and the config; a rotated
 * recording's first segment also says `segment: 1`. With `key`, the recording is sealed.
 */
export function startRecording(
  sink: LineSink,
  seed: number,
  config: BerthConfig,
  rotated = false,
  key?: SealKey,
): Recorder {
  return new Recorder(
    sink,
    {
      kind: 'header',
      format: logFormatVersion,
      berthVersion,
      seed,
      config: config as unknown as Record<string, unknown>,
      ...(rotated ? { segment: 1 } : {}),
    },
    key,
  );
}
