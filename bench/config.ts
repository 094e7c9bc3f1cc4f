/**
 * Sizes and knobs of `npm run bench`. The defaults are the full-size numbers of bench/README.md; BENCH_SCALE shrinks the
 * data sets for quick iterations (e.g. BENCH_SCALE=0.05) and BENCH_DURATION_S the lookup runs.
 */
function numberEnv(name: string, fallback: number, { min = 0, integer = false } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a number${integer ? ' (integer)' : ''} >= ${min}; got ${raw}`);
  }
  return value;
}

const scale = numberEnv('BENCH_SCALE', 1, { min: 0.0001 });

export interface BenchConfig {
  scale: number;
  ingest: {
    /** Entries sent through the gateway (and loaded with COPY). */
    entries: number;
    /** Entries per batch request (the API's maximum). */
    batchSize: number;
    /** Batch requests in flight at a time. */
    inflight: number;
    /** Concurrent COPY streams of the physical limit (1: one COPY, as the issue describes it). */
    copyStreams: number;
  };
  lookup: {
    segments: number;
    /** Of the segments, how many carry a badge. */
    badged: number;
    entries: number;
    connections: number;
    durationS: number;
    warmupS: number;
    /** Share of lookups for a user that exists; the rest ask for an unknown address. */
    existingShare: number;
    /** Share of lookups sent with the address in mixed letter case. */
    mixedCaseShare: number;
  };
  /** Issue 8, section 8: BatchResolveAttribution against its statement sent directly. */
  attribution: {
    affiliates: number;
    referred: number;
    /** Items per call. */
    batchSize: number;
    /** Calls in flight at a time (gRPC), and connections (direct). */
    concurrency: number;
    durationS: number;
    warmupS: number;
  };
  /** Issue 9, section 9: conversions through the batch endpoint until paid, against one INSERT ... SELECT of their movements. */
  conversions: {
    /** Conversions sent through POST /api/v1/conversions/batch, 1,000 per request. */
    conversions: number;
    /** Batch requests in flight at a time. */
    inflight: number;
    affiliates: number;
    /** Distinct converting users, of whom `referredShare` were referred by an affiliate. */
    users: number;
    referredShare: number;
  };
  /** Issue 23, section 6: paid conversions reversed one request each through POST /api/v1/conversions/:id/reverse. */
  reversals: {
    /** Conversions paid (not measured), then each reversed whole (BENCH_REVERSALS; 10,000 at scale 1). */
    reversals: number;
    /** Reversal requests in flight at a time (BENCH_CONNECTIONS). */
    connections: number;
    affiliates: number;
    /** Distinct converting users, of whom `referredShare` were referred by an affiliate. */
    users: number;
    referredShare: number;
  };
  /** Issue 24, section 1: tracking events through POST /api/v1/events in batches, against COPY of the same rows. */
  events: {
    /** Events sent (BENCH_EVENTS; 1,000,000 at scale 1). */
    events: number;
    /** Events per request (BENCH_EVENTS_BATCH). */
    batchSize: number;
    /** Requests in flight (BENCH_CONNECTIONS). */
    connections: number;
    /** Distinct visitors (tracking ids) the events come from. */
    visitors: number;
  };
  /** Issue 9, section 9: a payouts leaderboard page over 1,000,000 movements against its SQL sent directly. */
  leaderboard: {
    /** Affiliate payouts on the board, and the affiliates they pay (the board's size). */
    movements: number;
    affiliates: number;
    pageSize: number;
    /** Share of page requests for the first ten pages (the rest anywhere in the board). */
    topShare: number;
    connections: number;
    durationS: number;
    warmupS: number;
  };
  /**
   * Issue 25, section 6: the agency's boards (volume, revenue, referred users, referred volumes) over
   * `conversions` conversions of `users` referred users, each through the gateway against its repository's statement.
   */
  boards: {
    /** Conversions in the metrics projection (its conversion facts, and the per-user and per-affiliate figures they add up to). */
    conversions: number;
    /** Affiliates, and the users they referred (each referred by one of them, a few affiliates referring many). */
    affiliates: number;
    users: number;
    pageSize: number;
    /** Share of page requests for the first ten pages (the rest anywhere in the board). */
    topShare: number;
    /** Users named in each referred-volume request. */
    referredVolumeUsers: number;
    connections: number;
    durationS: number;
    warmupS: number;
  };
  /** Issue 9, section 9: the claim-check list of one user with many movements against its SQL sent directly. */
  claimList: {
    /** The user's movements, paid in `rounds` batches with a close after each but the last. */
    movements: number;
    rounds: number;
    connections: number;
    durationS: number;
    warmupS: number;
  };
  /** Issue 10, section 2: the affiliate list over 100,000 affiliates with metrics, a mix of filters and sorts. */
  affiliateList: {
    affiliates: number;
    pageSize: number;
    connections: number;
    durationS: number;
    warmupS: number;
    /** The dashboard run: every filter x sort x order on its first, middle and last page, each connection waiting for its page. */
    dashboardConnections: number;
    dashboardDurationS: number;
    /** affiliate-list-browser: navigations per view. */
    browserRuns: number;
  };
  /** RSS sampling period. */
  memorySampleMs: number;
  goals: {
    ingestRatioMax: number;
    lookupRatioMin: number;
    lookupP99MaxMs: number;
    attributionRatioMin: number;
    conversionsPerSecondMin: number;
    eventsRatioMin: number;
    leaderboardRatioMin: number;
    leaderboardP99MaxMs: number;
    claimListRatioMin: number;
    claimListP99MaxMs: number;
    affiliateListP99MaxMs: number;
  };
}

export function loadBenchConfig(): BenchConfig {
  const batchSize = numberEnv('BENCH_BATCH_SIZE', 10_000, { min: 1, integer: true });
  /** The HTTP load of every read benchmark: that many connections for that long, after a warm-up. */
  const httpLoad = {
    connections: numberEnv('BENCH_CONNECTIONS', 50, { min: 1, integer: true }),
    durationS: numberEnv('BENCH_DURATION_S', 20, { min: 1 }),
    warmupS: numberEnv('BENCH_WARMUP_S', 3, { min: 0 }),
  };
  return {
    scale,
    ingest: {
      entries: Math.max(batchSize, Math.round(1_000_000 * scale)),
      batchSize,
      inflight: numberEnv('BENCH_INGEST_INFLIGHT', 4, { min: 1, integer: true }),
      copyStreams: numberEnv('BENCH_COPY_STREAMS', 1, { min: 1, integer: true }),
    },
    lookup: {
      segments: 20,
      badged: 8,
      entries: Math.max(1_000, Math.round(1_000_000 * scale)),
      ...httpLoad,
      existingShare: 0.9,
      mixedCaseShare: 0.3,
    },
    attribution: {
      affiliates: Math.max(1_000, Math.round(100_000 * scale)),
      referred: Math.max(10_000, Math.round(1_000_000 * scale)),
      batchSize: 100,
      concurrency: numberEnv('BENCH_ATTRIBUTION_CONCURRENCY', 50, { min: 1, integer: true }),
      durationS: numberEnv('BENCH_DURATION_S', 20, { min: 1 }),
      warmupS: numberEnv('BENCH_WARMUP_S', 3, { min: 0 }),
    },
    conversions: {
      conversions: Math.max(1_000, Math.round(100_000 * scale)),
      inflight: numberEnv('BENCH_CONVERSION_INFLIGHT', 4, { min: 1, integer: true }),
      affiliates: 100,
      users: Math.max(100, Math.round(20_000 * scale)),
      referredShare: 0.5,
    },
    reversals: (() => {
      const reversals = numberEnv('BENCH_REVERSALS', Math.max(100, Math.round(10_000 * scale)), { min: 1, integer: true });
      return { reversals, connections: httpLoad.connections, affiliates: 100, users: Math.max(100, Math.round(reversals / 5)), referredShare: 0.5 };
    })(),
    events: (() => {
      const events = numberEnv('BENCH_EVENTS', Math.max(1_000, Math.round(1_000_000 * scale)), { min: 1, integer: true });
      return {
        events,
        batchSize: numberEnv('BENCH_EVENTS_BATCH', 1_000, { min: 1, integer: true }),
        connections: httpLoad.connections,
        visitors: Math.max(10, Math.round(events / 10)),
      };
    })(),
    leaderboard: {
      movements: Math.max(1_000, Math.round(1_000_000 * scale)),
      affiliates: Math.max(100, Math.round(50_000 * scale)),
      pageSize: 25,
      topShare: 0.99,
      ...httpLoad,
    },
    boards: {
      conversions: Math.max(1_000, Math.round(1_000_000 * scale)),
      affiliates: Math.max(100, Math.round(50_000 * scale)),
      users: Math.max(100, Math.round(50_000 * scale)),
      pageSize: 25,
      topShare: 0.99,
      referredVolumeUsers: 25,
      ...httpLoad,
    },
    claimList: {
      movements: Math.max(1_000, Math.round(10_000 * scale)),
      rounds: 20,
      ...httpLoad,
    },
    affiliateList: {
      affiliates: Math.max(1_000, Math.round(100_000 * scale)),
      pageSize: 25,
      ...httpLoad,
      // A few admins with the dashboard open, not a flood: the concurrency the p99 goal is about.
      dashboardConnections: numberEnv('BENCH_DASHBOARD_CONNECTIONS', 4, { min: 1, integer: true }),
      dashboardDurationS: numberEnv('BENCH_DASHBOARD_DURATION_S', 30, { min: 1 }),
      browserRuns: numberEnv('BENCH_BROWSER_RUNS', 5, { min: 1, integer: true }),
    },
    memorySampleMs: 250,
    goals: {
      ingestRatioMax: 2.0,
      lookupRatioMin: 0.5,
      lookupP99MaxMs: 25,
      attributionRatioMin: 0.5,
      conversionsPerSecondMin: 5_000,
      eventsRatioMin: 0.3,
      leaderboardRatioMin: 0.5,
      leaderboardP99MaxMs: 25,
      claimListRatioMin: 0.5,
      claimListP99MaxMs: 25,
      affiliateListP99MaxMs: 50,
    },
  };
}
