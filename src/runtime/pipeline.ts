// The RxJS edge of the runtime: merges event sources into the scheduler's single log.
import { merge, type Observable, type Subscription } from 'rxjs';
import type { InputEvent } from '../events/types.ts';

/**
 * Merges every source into one ordered stream and hands each event to `ingest` in
 * arrival order. The returned subscription disconnects all sources.
 */
export function connectSources(
  sources: Observable<InputEvent>[],
  ingest: (event: InputEvent) => void,
): Subscription {
  return merge(...sources).subscribe({ next: ingest });
}
