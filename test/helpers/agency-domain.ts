import type { Kysely } from 'kysely';
import { type AgencyDomain, buildAgencyDomain } from '../../services/agency/composition';
import type { AgencyDatabase } from '../../services/agency/database';
import type { PaidConversionSource } from '../../services/agency/domain/affiliate-metrics.service';
import type { AudienceDirectory, SegmentSummary } from '../../services/agency/domain/audience-directory';
import { type AudienceDomain, buildAudienceDomain } from '../../services/audience/composition';
import type { AudienceDatabase } from '../../services/audience/database';
import { openDatabase } from '../../services/platform/db/database';
import { DomainError } from '../../services/rules/errors';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { TestClock } from './clock';
import type { DomainHarness } from './domain';
import { LogCapture } from './log-capture';
import { RecordingEntryBatchScheduler, RecordingEvaluationScheduler } from './fakes/audience-schedulers';
import { createTestDatabase } from './test-database';
import { projectAudienceEvents } from './audience-projection';
import pg from 'pg';

/**
 * The agency's view of the audience service in the medium tier: the real audience domain on the
 * same test database, called in process instead of over gRPC (what GrpcAudienceDirectory does in
 * the service). Segments, entries and tiers are made with `audience`; the agency's projections of
 * them (memberships, tiers) follow on `projectAudience()`.
 */
class DomainAudienceDirectory implements AudienceDirectory {
  constructor(private readonly audience: AudienceDomain) {}

  async segment(projectId: string, segmentId: string): Promise<SegmentSummary | undefined> {
    try {
      const segment = await this.audience.segments.get(projectId, segmentId);
      return { id: segment.id, name: segment.name, type: segment.conditionJson === null ? 'static' : 'dynamic', tierRank: segment.tierRank };
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return undefined;
      throw error;
    }
  }
}

const noClaimService: PaidConversionSource = {
  page: () => Promise.reject(new Error('no claim service in this harness: pass startAgencyDomain({ paidConversions })')),
};

export interface AgencyHarness extends DomainHarness<AgencyDomain, AgencyDatabase> {
  audience: AudienceDomain;
  /** The agency's AudienceDirectory over `audience`. */
  directory: AudienceDirectory;
  audienceDb: Kysely<AudienceDatabase>;
  /** Applies the audience's events so far to the agency's membership and tier projections (the relay and workers of the services). */
  projectAudience(): Promise<void>;
}

/**
 * The agency domain (test/medium/agency) beside the audience domain on one cloned database, with
 * the test clock. No Redis: the audience's queues are in-memory recordings (test/helpers/fakes).
 */
export async function startAgencyDomain(
  options: { clock?: TestClock; paidConversions?: PaidConversionSource; trackingEventRetentionDays?: number } = {},
): Promise<AgencyHarness> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await createTestDatabase();
  const agencyDb = openDatabase<AgencyDatabase>({
    url: database.url,
    schema: SERVICE_CATALOG.agency.schema,
    poolMax: 4,
    applicationName: 'test-medium',
    logger: logs.logger('db'),
  });
  const audienceDb = openDatabase<AudienceDatabase>({
    url: database.url,
    schema: SERVICE_CATALOG.audience.schema,
    poolMax: 2,
    applicationName: 'test-medium',
    logger: logs.logger('db'),
  });
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  sql.on('error', () => undefined);
  // The audience's events stay in its outbox: no relay runs here (the HTTP and fault tests run the real one).
  const audience = buildAudienceDomain({
    db: audienceDb.db,
    clock,
    logger: logs.logger('audience'),
    // No audience worker runs here: batches and evaluations are only written down.
    scheduler: new RecordingEntryBatchScheduler(),
    evaluationScheduler: new RecordingEvaluationScheduler(),
    outbox: { wake: () => undefined },
    // Incremental matching is not started here (no relay): pending users wait in their table.
    matchingDebounceMs: 0,
  });
  const directory = new DomainAudienceDirectory(audience);
  const domain = buildAgencyDomain({
    db: agencyDb.db,
    clock,
    logger: logs.logger('agency'),
    audience: directory,
    // Events stay in the outbox (no relay runs here): tests read them there.
    outbox: { wake: () => undefined },
    // No claim service here: a test that rebuilds metrics passes the conversions it paid.
    paidConversions: options.paidConversions ?? noClaimService,
    trackingEventRetentionDays: options.trackingEventRetentionDays ?? 400,
    // No queue here: stored batches wait for the test to process them (domain.tracking).
    trackingBatches: { schedule: async () => undefined },
  });
  return {
    domain,
    audience,
    directory,
    audienceDb: audienceDb.db,
    projectAudience: () => projectAudienceEvents(sql, agencyDb.db, clock, logs.logger('projection')),
    db: agencyDb.db,
    sql,
    databaseUrl: database.url,
    clock,
    logs,
    stop: async () => {
      await agencyDb.close();
      await audienceDb.close();
      await sql.end();
      await database.drop();
    },
  };
}
