// Round-robin assignment of pods to nodes: the null binder's only "decision".

/** Hands out `names` in turn, starting with the first, wrapping at the end. */
export class RoundRobin {
  private next = 0;

  constructor(private readonly names: readonly string[]) {
    if (names.length === 0) throw new RangeError('round robin over no names');
  }

  /** The next name in turn. */
  take(): string {
    const name = this.names[this.next] as string;
    this.next = (this.next + 1) % this.names.length;
    return name;
  }
}
