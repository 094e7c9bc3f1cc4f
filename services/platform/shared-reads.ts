/**
 * Identical reads that overlap share one computation instead of each paying for its own (the
 * "single-flight" pattern): under load, a popular read costs one round trip per batch of readers.
 * Two kinds, by how fresh an answer must be:
 *
 * - FreshReads: a read joins only a computation that has not started yet, so every answer was
 *   computed after its own request arrived (whatever committed before that is in it). Per key one
 *   computation runs at a time; the reads that arrive while it runs wait and leave together as the
 *   next one.
 * - SnapshotReads: a read joins the computation under way, or reuses its answer until the time the
 *   computation said the answer stays valid (a snapshot of stated age, e.g. a leaderboard page).
 *
 * A failed computation fails the reads that shared it and is never kept.
 */

/** What became of one read: it began a computation, or it shared one (under way, waiting or kept). */
export type SharedReadOutcome = 'computed' | 'shared';

/** Told of every read's outcome (e.g. a metric of how many reads a computation serves). */
export type SharedReadObserver = (outcome: SharedReadOutcome) => void;

const ignore: SharedReadObserver = () => undefined;

/** How many keys may be remembered at once before the expired ones are swept. */
const DEFAULT_MAX_ENTRIES = 10_000;

interface Waiting<V> {
  compute: () => Promise<V>;
  promise: Promise<V>;
  resolve(value: V): void;
  reject(error: unknown): void;
}

function waiting<V>(compute: () => Promise<V>): Waiting<V> {
  let resolve!: (value: V) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<V>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { compute, promise, resolve, reject };
}

export class FreshReads<V> {
  /** Keys with a computation running; `next` gathers the reads that arrived since it started. */
  private readonly running = new Map<string, { next: Waiting<V> | undefined }>();

  constructor(private readonly observe: SharedReadObserver = ignore) {}

  /** `compute` is called only if no read of `key` is waiting to start: identical keys must mean identical reads. */
  read(key: string, compute: () => Promise<V>): Promise<V> {
    const state = this.running.get(key);
    if (state) {
      this.observe(state.next ? 'shared' : 'computed');
      state.next ??= waiting(compute);
      return state.next.promise;
    }
    this.observe('computed');
    const first = waiting(compute);
    const started = { next: undefined };
    this.running.set(key, started);
    this.run(key, started, first);
    return first.promise;
  }

  private run(key: string, state: { next: Waiting<V> | undefined }, flight: Waiting<V>): void {
    const settle = () => {
      const next = state.next;
      if (!next) {
        this.running.delete(key);
        return;
      }
      state.next = undefined;
      this.run(key, state, next);
    };
    // An async wrapper, so that a compute that throws before its promise fails its readers alike.
    (async () => flight.compute())().then(
      (value) => {
        flight.resolve(value);
        settle();
      },
      (error: unknown) => {
        flight.reject(error);
        settle();
      },
    );
  }
}

/** A snapshot's answer and until when (`now()` time) it may be answered again; no later than now keeps nothing. */
export interface Snapshot<V> {
  value: V;
  keepUntil: number;
}

export class SnapshotReads<V> {
  /** Answers being computed (until Infinity) or kept until `until`. */
  private readonly entries = new Map<string, { answer: Promise<V>; until: number }>();

  constructor(
    private readonly now: () => number,
    private readonly observe: SharedReadObserver = ignore,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  read(key: string, compute: () => Promise<Snapshot<V>>): Promise<V> {
    const kept = this.entries.get(key);
    if (kept && kept.until > this.now()) {
      this.observe('shared');
      return kept.answer;
    }
    this.observe('computed');
    const computed = (async () => compute())();
    const entry = { answer: computed.then((snapshot) => snapshot.value), until: Number.POSITIVE_INFINITY };
    if (this.entries.size >= this.maxEntries) this.sweep();
    this.entries.set(key, entry);
    computed.then(
      (snapshot) => {
        if (this.entries.get(key) !== entry) return;
        if (snapshot.keepUntil > this.now()) entry.until = snapshot.keepUntil;
        else this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.answer;
  }

  /** Drops the expired answers, then, if still full, every settled one (computations under way stay shared). */
  private sweep(): void {
    const now = this.now();
    for (const [key, kept] of this.entries) if (kept.until <= now) this.entries.delete(key);
    if (this.entries.size < this.maxEntries) return;
    for (const [key, kept] of this.entries) if (kept.until !== Number.POSITIVE_INFINITY) this.entries.delete(key);
  }
}
