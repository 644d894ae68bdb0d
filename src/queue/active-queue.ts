// The activeQ: a binary heap of pods ready to schedule, highest priority then longest queued.

/**
 * What the heap orders by (kube's PrioritySort): priority, then the logical time the pod
 * entered the scheduling queue (kube's QueuedPodInfo.Timestamp: first sight, or its last
 * failure, so a pod that keeps failing goes behind pods queued before that failure), then
 * `order`, the queue's own entry counter, so that the order is total and deterministic.
 */
export interface QueuedPod {
  /** The pod's uid. */
  key: string;
  priority: number;
  enqueuedAt: number;
  order: number;
}

/** True when `a` must be scheduled before `b`. */
export function comesBefore(a: QueuedPod, b: QueuedPod): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.enqueuedAt !== b.enqueuedAt) return a.enqueuedAt < b.enqueuedAt;
  return a.order < b.order;
}

/** A queued pod with its current index in the heap array. */
interface Slot extends QueuedPod {
  at: number;
}

const slotOf = (p: QueuedPod, at: number): Slot => ({
  key: p.key,
  priority: p.priority,
  enqueuedAt: p.enqueuedAt,
  order: p.order,
  at,
});

const entryOf = (s: Slot): QueuedPod => ({
  key: s.key,
  priority: s.priority,
  enqueuedAt: s.enqueuedAt,
  order: s.order,
});

/**
 * A heap with O(log n) push/pop and O(log n) removal by key. Each slot keeps its own heap
 * index, so a sift moves slots without touching the key map (one map write per push or
 * removal, not one per level).
 */
export class ActiveQueue {
  private readonly heap: Slot[] = [];
  private readonly slots = new Map<string, Slot>();

  /** Number of queued pods. */
  get size(): number {
    return this.heap.length;
  }

  /** True when `key` is queued. */
  has(key: string): boolean {
    return this.slots.has(key);
  }

  /** The queued entry of `key`, if queued (a copy). */
  get(key: string): QueuedPod | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : entryOf(slot);
  }

  /** Adds a pod, or re-orders it if already queued. */
  push(pod: QueuedPod): void {
    const old = this.slots.get(pod.key);
    if (old !== undefined) {
      const slot = slotOf(pod, old.at);
      this.heap[old.at] = slot;
      this.slots.set(pod.key, slot);
      this.siftUp(slot.at);
      this.siftDown(slot.at);
      return;
    }
    const slot = slotOf(pod, this.heap.length);
    this.heap.push(slot);
    this.slots.set(pod.key, slot);
    this.siftUp(slot.at);
  }

  /** The queued entries in heap order (a copy), for a snapshot; `load` takes them back. */
  entries(): QueuedPod[] {
    return this.heap.map(entryOf);
  }

  /**
   * Fills an empty queue from `entries()` output (or its JSON round trip): the same heap
   * layout, so the same pops. Throws for a non-empty queue, a duplicate key or entries
   * that are not in heap order.
   */
  load(entries: readonly QueuedPod[]): void {
    if (this.heap.length > 0) throw new Error('activeQ: load into a non-empty queue');
    entries.forEach((e, i) => {
      if (this.slots.has(e.key)) throw new Error(`activeQ: ${e.key} is queued twice`);
      const slot = slotOf(e, i);
      const parent = this.heap[(i - 1) >> 1];
      if (i > 0 && parent !== undefined && comesBefore(slot, parent))
        throw new Error(`activeQ: entry ${i} (${e.key}) breaks the heap order`);
      this.heap.push(slot);
      this.slots.set(e.key, slot);
    });
  }

  /** Removes and returns the pod to schedule next. */
  pop(): QueuedPod | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return entryOf(top);
  }

  /** Removes `key` if queued; returns whether it was. */
  remove(key: string): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.removeAt(slot.at);
    return true;
  }

  private removeAt(at: number): void {
    const removed = this.heap[at] as Slot;
    const last = this.heap.pop() as Slot;
    this.slots.delete(removed.key);
    if (at < this.heap.length) {
      this.heap[at] = last;
      last.at = at;
      this.siftUp(at);
      this.siftDown(last.at);
    }
  }

  private siftUp(start: number): void {
    let i = start;
    const item = this.heap[i] as Slot;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = this.heap[parent] as Slot;
      if (!comesBefore(item, p)) break;
      this.heap[i] = p;
      p.at = i;
      i = parent;
    }
    this.heap[i] = item;
    item.at = i;
  }

  private siftDown(start: number): void {
    let i = start;
    const n = this.heap.length;
    const item = this.heap[i] as Slot;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && comesBefore(this.heap[right] as Slot, this.heap[left] as Slot))
        child = right;
      const c = this.heap[child] as Slot;
      if (!comesBefore(c, item)) break;
      this.heap[i] = c;
      c.at = i;
      i = child;
    }
    this.heap[i] = item;
    item.at = i;
  }
}
