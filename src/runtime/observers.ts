// One LiveObserver that hands every callback to several (metrics, bind health).
import type { LiveObserver } from '../events/observer.ts';

/**
 * A LiveObserver that calls each of `observers` in turn. One that throws does not keep the
 * others from seeing the callback; the first error is rethrown after all have run (the live
 * loop logs it).
 */
export function observeAll(...observers: LiveObserver[]): LiveObserver {
  const each = (call: (o: LiveObserver) => void): void => {
    let failure: { error: unknown } | undefined;
    for (const o of observers) {
      try {
        call(o);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  };
  return {
    envelope: (env) => each((o) => o.envelope?.(env)),
    cycle: (decisions, seconds) => each((o) => o.cycle?.(decisions, seconds)),
    leading: (leading) => each((o) => o.leading?.(leading)),
  };
}
