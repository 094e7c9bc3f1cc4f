export interface PollOptions {
  /** Give up (and fail) after this long. */
  timeoutMs: number;
  intervalMs?: number;
  /** What is awaited, for the failure message. */
  what: string;
}

/**
 * Asks `probe` until it answers something truthy, and returns that answer; fails after
 * `timeoutMs`. The bound for asynchronous work in tests (never a sleep standing in for time).
 */
export async function pollUntil<T>(probe: () => Promise<T | undefined | null | false>, options: PollOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const answer = await probe();
      if (answer) return answer;
      last = answer;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what} (last answer: ${describe(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
