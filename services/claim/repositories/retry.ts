import { isTransientConflict } from '../../platform/db/errors';

const ATTEMPTS = 5;

/**
 * Runs a transaction again when PostgreSQL rolled it back for a deadlock or a serialization
 * conflict (nothing of it was kept). Writes that touch shared rows (claim checks, leaderboard
 * totals, resubmitted conversions) take their locks in key order, so this is rare. `alsoRetry`
 * names another error after which the whole transaction may simply run again.
 */
export async function retryTransient<T>(work: () => Promise<T>, alsoRetry: (error: unknown) => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !(isTransientConflict(error) || alsoRetry(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 10 + Math.floor(Math.random() * 20)));
    }
  }
}
