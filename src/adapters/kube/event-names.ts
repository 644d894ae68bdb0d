// Names and notes of the events.k8s.io/v1 Events berth writes (shared by pod and PodGroup Events).

/** The events.k8s.io/v1 `note` limit (1 kB); longer notes are rejected by the API. */
export const noteLimit = 1024;

/** `text` cut to at most `limit` bytes of UTF-8, ending in `...` when it was cut. */
export function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let out = text.slice(0, limit);
  while (Buffer.byteLength(out) > limit - 3) out = out.slice(0, -1);
  return `${out}...`;
}

/** An Event's `note`: `text` within the API's 1 kB limit. */
export function eventNote(text: string): string {
  return truncateBytes(text, noteLimit);
}

/**
 * Names Events `<object>.<hex time>`, as client-go's event recorder does, unique within one
 * millisecond for one namer. (`generateName: '<object>.'` is rejected: events.k8s.io
 * validates the prefix as a DNS subdomain, which cannot end in a dot.)
 */
export class EventNamer {
  private seq = 0;

  /** The name of an Event about the object called `object`, recorded at `timeMs`. */
  name(object: string, timeMs: number): string {
    this.seq = (this.seq + 1) % 1_000_000;
    const suffix = (BigInt(timeMs) * 1_000_000n + BigInt(this.seq)).toString(16);
    return `${object.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }
}
