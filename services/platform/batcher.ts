/**
 * Coalesces concurrent calls into batch calls (the DataLoader pattern): under load, many requests
 * share one round trip and one query instead of paying for their own.
 *
 * A call is sent at the end of the current turn of the event loop, together with every other call
 * made in that turn. At most `maxInFlight` batches travel at once; calls made meanwhile wait for a
 * batch to come back and then leave together. So a lone call waits for nothing, and the busier it
 * gets, the larger (and cheaper per call) the batches become, as in a database's group commit.
 */
export interface BatcherOptions {
  maxBatchSize: number;
  maxInFlight: number;
}

export class Batcher<K, V> {
  private pending: Array<{ key: K; resolve(value: V): void; reject(error: unknown): void }> = [];
  private scheduled = false;
  private inFlight = 0;

  /**
   * @param runBatch answers every key, in order: a value, or an Error for that key alone. A thrown
   *   error (e.g. the service is unavailable) fails every call of the batch.
   */
  constructor(
    private readonly runBatch: (keys: K[]) => Promise<Array<V | Error>>,
    private readonly options: BatcherOptions,
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after this turn's I/O callbacks, so requests that arrived together leave together.
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.inFlight < this.options.maxInFlight && this.pending.length > 0) {
      const batch = this.pending.splice(0, this.options.maxBatchSize);
      this.inFlight += 1;
      this.runBatch(batch.map((call) => call.key))
        .then(
          (results) => {
            batch.forEach((call, index) => {
              const result = results[index];
              if (result instanceof Error) call.reject(result);
              else if (result === undefined) call.reject(new Error('the batch returned no result for this key'));
              else call.resolve(result);
            });
          },
          (error: unknown) => {
            for (const call of batch) call.reject(error);
          },
        )
        .finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
    }
  }
}
