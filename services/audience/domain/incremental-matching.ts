/**
 * What the domain needs of incremental matching: to say that a commit recorded users
 * to re-match in the pending table (repositories/pending-matches.repository.ts). The work itself is
 * stored with the change; waking only starts it sooner (jobs/pending-match-drainer.ts).
 */
export interface MatchingWaker {
  wake(): void;
}
