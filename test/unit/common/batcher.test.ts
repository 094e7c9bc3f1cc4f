import { Batcher } from '../../../services/platform/batcher';

/** A batch function that records what it was asked and answers when the test says so. */
function controlledBatches() {
  const calls: Array<{ keys: number[]; answer(results?: Array<number | Error>): void; fail(error: Error): void }> = [];
  const run = (keys: number[]) =>
    new Promise<Array<number | Error>>((resolve, reject) => {
      calls.push({ keys, answer: (results) => resolve(results ?? keys.map((k) => k * 10)), fail: reject });
    });
  return { calls, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('sends the calls of one turn as one batch and answers each in order', async () => {
    const { calls, run } = controlledBatches();
    const batcher = new Batcher(run, { maxBatchSize: 100, maxInFlight: 2 });
    const answers = Promise.all([1, 2, 3].map((k) => batcher.load(k)));
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([[1, 2, 3]]);
    calls[0]!.answer();
    await expect(answers).resolves.toEqual([10, 20, 30]);
  });

  it('fails only the call whose result is an error, and every call when the batch throws', async () => {
    const { calls, run } = controlledBatches();
    const batcher = new Batcher(run, { maxBatchSize: 100, maxInFlight: 1 });
    const ok = batcher.load(1);
    const bad = batcher.load(2);
    await turn();
    calls[0]!.answer([10, new Error('invalid key 2')]);
    await expect(ok).resolves.toBe(10);
    await expect(bad).rejects.toThrow('invalid key 2');

    const a = batcher.load(3);
    const b = batcher.load(4);
    await turn();
    calls[1]!.fail(new Error('unavailable'));
    await expect(a).rejects.toThrow('unavailable');
    await expect(b).rejects.toThrow('unavailable');
  });

  it('splits at the batch size and holds later calls until a batch comes back', async () => {
    const { calls, run } = controlledBatches();
    const batcher = new Batcher(run, { maxBatchSize: 2, maxInFlight: 2 });
    const first = [1, 2, 3, 4, 5].map((k) => batcher.load(k));
    await turn();
    // Two batches travel; the fifth call waits for one of them.
    expect(calls.map((c) => c.keys)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const later = [6, 7].map((k) => batcher.load(k));
    await turn();
    expect(calls).toHaveLength(2);

    calls[0]!.answer();
    await turn();
    await turn();
    // The calls that waited leave together.
    expect(calls[2]!.keys).toEqual([5, 6]);
    calls[1]!.answer();
    calls[2]!.answer();
    await turn();
    await turn();
    expect(calls[3]!.keys).toEqual([7]);
    calls[3]!.answer();
    await expect(Promise.all([...first, ...later])).resolves.toEqual([10, 20, 30, 40, 50, 60, 70]);
  });
});
