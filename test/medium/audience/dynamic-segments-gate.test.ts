import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { projectHasDynamicSegments } from '../../../services/audience/repositories/dynamic-segments-gate';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { pollUntil } from '../../helpers/poll';

/**
 * The gate between a writer of condition inputs that found no dynamic segment (and so records no
 * user for re-matching) and a segment becoming dynamic: the segment's commit, which requests its
 * first evaluation, waits for the writer's, so that evaluation reads what the writer wrote.
 */
describe('dynamic segments gate (repository)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const condition = JSON.stringify({ metric: 'conversions', op: 'gte', value: 1 });
  /** Backends of this database waiting for an advisory lock. */
  const advisoryWaiters = async () =>
    Number(
      (
        await harness.sql.query(
          "SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND NOT l.granted AND a.datname = current_database()",
        )
      ).rows[0].n,
    );

  it('answers whether the project has a segment with a condition', async () => {
    const projectId = randomUUID();
    const has = () => harness.db.transaction().execute((trx) => projectHasDynamicSegments(trx, projectId));
    expect(await has()).toBe(false);
    const segment = await harness.domain.segments.create(projectId, { name: `Static ${randomUUID()}` });
    expect(await has()).toBe(false);
    await harness.domain.segments.update(projectId, segment.id, ['condition_json'], { conditionJson: condition });
    expect(await has()).toBe(true);
    expect(await harness.db.transaction().execute((trx) => projectHasDynamicSegments(trx, randomUUID()))).toBe(false);
  });

  it('makes a segment that gets a condition wait for the commit of a writer that found none, created or changed', async () => {
    for (const write of [
      (projectId: string) => harness.domain.segments.create(projectId, { name: `Dynamic ${randomUUID()}`, conditionJson: condition }),
      async (projectId: string) => {
        const existing = await harness.domain.segments.create(projectId, { name: `Static ${randomUUID()}` });
        return harness.domain.segments.update(projectId, existing.id, ['condition_json'], { conditionJson: condition });
      },
    ]) {
      const projectId = randomUUID();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let found: boolean | undefined;
      const writer = harness.db.transaction().execute(async (trx) => {
        found = await projectHasDynamicSegments(trx, projectId);
        await released;
      });
      await pollUntil(async () => found !== undefined || undefined, { timeoutMs: 10_000, intervalMs: 10, what: 'the writer to pass the gate' });
      let written = false;
      const segmentWrite = write(projectId).then(() => (written = true));
      await pollUntil(async () => (await advisoryWaiters()) > 0 || undefined, {
        timeoutMs: 10_000,
        intervalMs: 10,
        what: 'the segment write to wait at the gate',
      });
      expect(written).toBe(false);
      release();
      await writer;
      await segmentWrite;
      expect(written).toBe(true);
      // The first pass found none; the segment write that waited made the project dynamic.
      expect(await harness.db.transaction().execute((trx) => projectHasDynamicSegments(trx, projectId))).toBe(true);
      expect(found).toBe(false);
    }
  });
});
