/**
 * Coalesces calls made in the same turn of the event loop into one batch call (the DataLoader
 * pattern): under load, many concurrent requests share one round trip and one query instead of
 * paying for their own. A lone call waits only until the end of the current turn.
 */
export class Batcher<K, V> {
  private pending: Array<{ key: K; resolve(value: V): void; reject(error: unknown): void }> = [];
  private scheduled = false;

  /**
   * @param runBatch answers every key, in order: a value, or an Error for that key alone. A thrown
   *   error (e.g. the service is unavailable) fails every call of the batch.
   */
  constructor(
    private readonly runBatch: (keys: K[]) => Promise<Array<V | Error>>,
    private readonly maxBatchSize: number,
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      if (this.pending.length >= this.maxBatchSize) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after this turn's I/O callbacks, so requests that arrived together batch together.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.runBatch(batch.map((call) => call.key)).then(
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
    );
  }
}
