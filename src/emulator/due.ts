// Things that happen by themselves when the emulator clock passes a time: settlements, expiries,
// webhook retries. A min-heap of (time, job, id); `run()` is called at the start of every
// request (lazy evaluation on read) and by one timer armed for the earliest item (so webhooks
// fire with nobody asking). Jobs re-check their object, so stale or duplicate items are harmless.
import type { Clock } from './clock.js';

interface Item {
  at: number;
  job: string;
  id: string;
}

export type Job = (id: string, now: number) => void;

export class DueQueue {
  private heap: Item[] = [];
  private readonly jobs = new Map<string, Job>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running = false;
  private stopped = false;
  /** While the disk fails nothing runs (its changes could not be kept); resume() re-arms. */
  private paused = false;

  constructor(
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
  ) {}

  register(job: string, fn: Job): void {
    this.jobs.set(job, fn);
  }

  push(at: number, job: string, id: string): void {
    const heap = this.heap;
    heap.push({ at, job, id });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= heap[i]!.at) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
    if (!this.running) this.arm();
  }

  private pop(): Item {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l]!.at < heap[m]!.at) m = l;
        if (r < heap.length && heap[r]!.at < heap[m]!.at) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
    return top;
  }

  /** When the earliest item is due (emulator ms), undefined when none is queued. */
  get nextAt(): number | undefined {
    return this.heap[0]?.at;
  }

  /** Runs every item due by now; returns how many ran. Cheap when nothing is due. */
  run(): number {
    if (this.running || this.stopped || this.paused) return 0;
    const now = this.clock.now();
    if (this.heap.length === 0 || this.heap[0]!.at > now) return 0;
    this.running = true;
    let ran = 0;
    try {
      while (this.heap.length > 0 && this.heap[0]!.at <= now) {
        const item = this.pop();
        ran++;
        try {
          this.jobs.get(item.job)?.(item.id, now);
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.running = false;
    }
    this.arm();
    return ran;
  }

  /** One timer, for the earliest item. */
  private arm(): void {
    if (this.stopped) return;
    if (this.paused) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Infinity;
      return;
    }
    const next = this.heap[0]?.at ?? Infinity;
    if (next === this.timerAt && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    const delay = Math.min(Math.max(next - this.clock.now(), 0), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.run();
      this.arm();
    }, delay);
    this.timer.unref();
  }

  get size(): number {
    return this.heap.length;
  }

  clear(): void {
    this.heap = [];
    this.arm();
  }

  pause(): void {
    this.paused = true;
    this.arm();
  }

  resume(): void {
    this.paused = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
