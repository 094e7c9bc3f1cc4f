/** A reward tier: an audience segment of the project that carries a tier rank. */
export interface TierView {
  id: string;
  name: string;
  rank: number;
}

/** What the agency needs to know of one audience segment. */
export interface SegmentSummary {
  id: string;
  name: string;
  type: 'static' | 'dynamic';
  /** Set when the segment is a tier. */
  tierRank: number | null;
}

/**
 * What the agency asks the audience service (which owns segments, entries and tier ranks). Implemented over gRPC (grpc/audience-directory.ts); an unreachable audience service
 * is an UnavailableError, so the caller's request fails cleanly and may be retried. Tiers are not
 * asked for: the agency keeps them as a projection of the audience service's events
 * (repositories/segment-tier.repository.ts).
 */
export interface AudienceDirectory {
  /** The project's segment, or undefined when the project has none with this id. */
  segment(projectId: string, segmentId: string): Promise<SegmentSummary | undefined>;
}

/**
 * Many users' tiers at once: each user's current tier (the highest-ranked tier segment it is in, or
 * null), in the order asked, and the named tiers that still are tiers of the project.
 */
export interface TierLookup {
  current: Array<TierView | null>;
  byId: Map<string, TierView>;
}

/** The higher of two tiers (either may be missing), by the audience service's order of ranks. */
export function higherTier(a: TierView | null, b: TierView | null): TierView | null {
  if (!a) return b;
  if (!b) return a;
  return outranks(a, b) ? a : b;
}

/** True when tier a is above tier b. */
export function outranks(a: TierView, b: TierView): boolean {
  return a.rank > b.rank;
}
