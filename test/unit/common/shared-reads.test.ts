import { FreshReads, type SharedReadOutcome, SnapshotReads } from '../../../services/platform/shared-reads';

/**
 * A store whose reads answer when the test says so: each read records the version of the data it
 * began at (what a database snapshot taken then would hold).
 */
function controlledStore() {
  let version = 0;
  const reads: Array<{ startedAt: number; answer(): void; fail(error: Error): void }> = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const startedAt = version;
      reads.push({ startedAt, answer: () => resolve(startedAt), fail: reject });
    });
  return { reads, read, write: () => (version += 1) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function counted() {
  const outcomes: SharedReadOutcome[] = [];
  return { outcomes, observe: (outcome: SharedReadOutcome) => outcomes.push(outcome) };
}

describe('FreshReads', () => {
  it('answers reads that arrive while one runs with one next read, begun after they arrived, so a write before them is in their answer', async () => {
    const store = controlledStore();
    const { outcomes, observe } = counted();
    const fresh = new FreshReads<number>(observe);
    const first = fresh.read('user-1', store.read);
    await turn();
    expect(store.reads).toHaveLength(1);

    // A write commits while the first read runs; the reads that arrive after it must see it.
    store.write();
    const later = Array.from({ length: 49 }, () => fresh.read('user-1', store.read));
    await turn();
    expect(store.reads).toHaveLength(1);

    store.reads[0]!.answer();
    await expect(first).resolves.toBe(0);
    await turn();
    expect(store.reads).toHaveLength(2);
    store.reads[1]!.answer();
    expect(await Promise.all(later)).toEqual(Array(49).fill(1));
    expect(outcomes.filter((o) => o === 'computed')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'shared')).toHaveLength(48);

    // Nothing is kept: the next read reads again.
    const again = fresh.read('user-1', store.read);
    await turn();
    expect(store.reads).toHaveLength(3);
    store.reads[2]!.answer();
    await expect(again).resolves.toBe(1);
  });

  it('never shares between keys, and a failed read fails only the reads that shared it', async () => {
    const store = controlledStore();
    const fresh = new FreshReads<number>();
    const a = fresh.read('a', store.read);
    const b = fresh.read('b', store.read);
    await turn();
    expect(store.reads).toHaveLength(2);
    const aLater = fresh.read('a', store.read);
    store.reads[0]!.fail(new Error('unavailable'));
    await expect(a).rejects.toThrow('unavailable');
    await turn();
    store.reads[1]!.answer();
    store.reads[2]!.answer();
    await expect(b).resolves.toBe(0);
    await expect(aLater).resolves.toBe(0);
  });

  it('fails the readers of a computation that throws before returning a promise, and carries on', async () => {
    const fresh = new FreshReads<number>();
    await expect(
      fresh.read('k', () => {
        throw new Error('bad request');
      }),
    ).rejects.toThrow('bad request');
    await expect(fresh.read('k', () => Promise.resolve(7))).resolves.toBe(7);
  });
});

describe('SnapshotReads', () => {
  it('shares a read under way, keeps its answer until the time it says, then reads again', async () => {
    const store = controlledStore();
    let now = 1_000;
    const { outcomes, observe } = counted();
    const snapshots = new SnapshotReads<number>(() => now, observe);
    const read = async () => ({ value: await store.read(), keepUntil: now + 1_000 });
    const concurrent = Array.from({ length: 50 }, () => snapshots.read('page-1', read));
    await turn();
    expect(store.reads).toHaveLength(1);
    store.reads[0]!.answer();
    expect(await Promise.all(concurrent)).toEqual(Array(50).fill(0));

    store.write();
    now += 999;
    await expect(snapshots.read('page-1', read)).resolves.toBe(0);
    expect(store.reads).toHaveLength(1);

    now += 1;
    const fresh = snapshots.read('page-1', read);
    await turn();
    store.reads[1]!.answer();
    await expect(fresh).resolves.toBe(1);
    expect(outcomes).toEqual(['computed', ...Array(49).fill('shared'), 'shared', 'computed']);
  });

  it('keeps nothing when the answer is valid no later than now, nor a failed read', async () => {
    const store = controlledStore();
    const now = 5;
    const snapshots = new SnapshotReads<number>(() => now);
    const read = async () => ({ value: await store.read(), keepUntil: now });
    const first = snapshots.read('k', read);
    await turn();
    store.reads[0]!.answer();
    await first;
    const second = snapshots.read('k', read);
    await turn();
    expect(store.reads).toHaveLength(2);
    store.reads[1]!.fail(new Error('unavailable'));
    await expect(second).rejects.toThrow('unavailable');
    const third = snapshots.read('k', read);
    await turn();
    expect(store.reads).toHaveLength(3);
    store.reads[2]!.answer();
    await expect(third).resolves.toBe(0);
  });

  it('stays within its size: a full map drops the expired answers first, then the settled ones', async () => {
    let now = 0;
    const snapshots = new SnapshotReads<number>(() => now, undefined, 3);
    let computed = 0;
    const read = (keepFor: number) => async () => ({ value: (computed += 1), keepUntil: now + keepFor });
    await snapshots.read('short', read(10));
    await snapshots.read('long-1', read(1_000));
    await snapshots.read('long-2', read(1_000));
    now = 20;
    await snapshots.read('new', read(1_000));
    expect(computed).toBe(4);
    // The expired one went; the others are still kept.
    await snapshots.read('long-1', read(1_000));
    await snapshots.read('long-2', read(1_000));
    expect(computed).toBe(4);
  });
});
