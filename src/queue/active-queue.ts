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

/** A heap with O(log n) push/pop and O(log n) removal by key. */
export class ActiveQueue {
  private readonly heap: QueuedPod[] = [];
  private readonly position = new Map<string, number>();

  /** Number of queued pods. */
  get size(): number {
    return this.heap.length;
  }

  /** True when `key` is queued. */
  has(key: string): boolean {
    return this.position.has(key);
  }

  /** The queued entry of `key`, if queued. */
  get(key: string): QueuedPod | undefined {
    const at = this.position.get(key);
    return at === undefined ? undefined : this.heap[at];
  }

  /** Adds a pod, or re-orders it if already queued. */
  push(pod: QueuedPod): void {
    const at = this.position.get(pod.key);
    if (at !== undefined) {
      this.heap[at] = pod;
      this.siftUp(at);
      this.siftDown(this.position.get(pod.key) as number);
      return;
    }
    this.heap.push(pod);
    this.position.set(pod.key, this.heap.length - 1);
    this.siftUp(this.heap.length - 1);
  }

  /** The queued entries in heap order (a copy), for a snapshot; `load` takes them back. */
  entries(): QueuedPod[] {
    return this.heap.map((p) => ({ ...p }));
  }

  /**
   * Fills an empty queue from `entries()` output (or its JSON round trip): the same heap
   * layout, so the same pops. Throws for a non-empty queue, a duplicate key or entries
   * that are not in heap order.
   */
  load(entries: readonly QueuedPod[]): void {
    if (this.heap.length > 0) throw new Error('activeQ: load into a non-empty queue');
    entries.forEach((e, i) => {
      if (this.position.has(e.key)) throw new Error(`activeQ: ${e.key} is queued twice`);
      const entry = { key: e.key, priority: e.priority, enqueuedAt: e.enqueuedAt, order: e.order };
      const parent = this.heap[(i - 1) >> 1];
      if (i > 0 && parent !== undefined && comesBefore(entry, parent))
        throw new Error(`activeQ: entry ${i} (${e.key}) breaks the heap order`);
      this.heap.push(entry);
      this.position.set(e.key, i);
    });
  }

  /** Removes and returns the pod to schedule next. */
  pop(): QueuedPod | undefined {
    const top = this.heap[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  /** Removes `key` if queued; returns whether it was. */
  remove(key: string): boolean {
    const at = this.position.get(key);
    if (at === undefined) return false;
    this.removeAt(at);
    return true;
  }

  private removeAt(at: number): void {
    const removed = this.heap[at] as QueuedPod;
    const last = this.heap.pop() as QueuedPod;
    this.position.delete(removed.key);
    if (at < this.heap.length) {
      this.heap[at] = last;
      this.position.set(last.key, at);
      this.siftUp(at);
      this.siftDown(this.position.get(last.key) as number);
    }
  }

  private siftUp(start: number): void {
    let i = start;
    const item = this.heap[i] as QueuedPod;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = this.heap[parent] as QueuedPod;
      if (!comesBefore(item, p)) break;
      this.heap[i] = p;
      this.position.set(p.key, i);
      i = parent;
    }
    this.heap[i] = item;
    this.position.set(item.key, i);
  }

  private siftDown(start: number): void {
    let i = start;
    const n = this.heap.length;
    const item = this.heap[i] as QueuedPod;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && comesBefore(this.heap[right] as QueuedPod, this.heap[left] as QueuedPod))
        child = right;
      const c = this.heap[child] as QueuedPod;
      if (!comesBefore(c, item)) break;
      this.heap[i] = c;
      this.position.set(c.key, i);
      i = child;
    }
    this.heap[i] = item;
    this.position.set(item.key, i);
  }
}
