/**
 * A moment by which an answer must be on its way: the caller's gRPC deadline less a margin for the
 * answer's trip back. Work that cannot finish by then gives up and says what it did, instead of
 * finishing after the caller has been told it timed out. (Real time, not the injected clock: this
 * is about how long a caller waits, not about business time.)
 */
export class Deadline {
  private constructor(private readonly at: number) {}

  /** No caller deadline: bounded only by `fallbackMs`. */
  static after(ms: number): Deadline {
    return new Deadline(Date.now() + ms);
  }

  /** The caller's deadline, less `marginMs`; without one, `fallbackMs` from now. */
  static before(callerDeadline: Date | undefined, marginMs: number, fallbackMs: number): Deadline {
    return callerDeadline ? new Deadline(callerDeadline.getTime() - marginMs) : Deadline.after(fallbackMs);
  }

  remainingMs(): number {
    return Math.max(0, this.at - Date.now());
  }
}

/** Resolves with the promise's value, or with `undefined` once `ms` have passed (the promise runs on). */
export async function withinMs<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
