// The last unschedulable message reported per pod, so that a repeat is not written again.

/**
 * Remembers each pod's last reported `<reason>: <message>` by uid, the oldest forgotten
 * beyond `max` (a Map keeps insertion order, so the first key is the oldest).
 */
export class ReportedMessages {
  private readonly last = new Map<string, string>();

  constructor(private readonly max: number) {}

  /** True when `message` is the last one reported for `uid`. */
  isLast(uid: string, message: string): boolean {
    return this.last.get(uid) === message;
  }

  /** Makes `message` the last one reported for `uid` (the newest entry). */
  remember(uid: string, message: string): void {
    this.last.delete(uid);
    this.last.set(uid, message);
    while (this.last.size > this.max) {
      const oldest = this.last.keys().next().value;
      if (oldest === undefined) break;
      this.last.delete(oldest);
    }
  }

  /** Forgets `uid`'s last message: its next report is written even if it repeats. */
  forget(uid: string): void {
    this.last.delete(uid);
  }

  /** Forgets `message` if it is still `uid`'s last one (it was not written after all). */
  unremember(uid: string, message: string): void {
    if (this.last.get(uid) === message) this.last.delete(uid);
  }
}
