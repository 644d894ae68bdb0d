// `berth run --record`: the recording's sink (one file or rotated segments), flushed every 200 ms.
import type { LiveOptions } from '../runtime/live.ts';
import { openLogFile } from './log-file.ts';
import type { RunFlags } from './run-flags.ts';
import { openSegmentedLog } from './segmented-log.ts';

/** An open recording: what the live run writes to, and how it is closed. */
export interface RunRecording {
  /** The live run's `record`, `recordKey` and `rotation` options (none without `--record`). */
  options: Pick<LiveOptions, 'record' | 'recordKey' | 'rotation'>;
  /** Stops the flushing and closes the file. */
  close(): void;
}

/** Opens `--record` (segmented with `--record-segment-size`); a crash loses at most 200 ms. */
export function openRunRecording(
  flags: Pick<RunFlags, 'record' | 'recordKey' | 'segments'>,
): RunRecording {
  const { record, recordKey, segments } = flags;
  const segmented =
    record === undefined || segments === undefined ? undefined : openSegmentedLog(record, segments);
  const log = record === undefined ? undefined : (segmented ?? openLogFile(record));
  // A crash (kill -9) loses at most the last 200 ms of the recording.
  const flusher = log === undefined ? undefined : setInterval(() => log.flush(), 200);
  flusher?.unref();
  return {
    options: {
      ...(log === undefined ? {} : { record: log.sink }),
      ...(recordKey === undefined ? {} : { recordKey }),
      ...(segmented === undefined ? {} : { rotation: segmented }),
    },
    close: () => {
      clearInterval(flusher);
      log?.close();
    },
  };
}
