import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { sendReferredConversions } from '../helpers/faults/referred-conversions';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { pollUntil } from '../helpers/poll';

/**
 * The audience's condition-inputs consumer through process deaths: the claim service pays a stream
 * of conversions (real processes) while the audience service, applying their
 * `claim.conversion.processed` events (and the agency's `agency.referral.created`), is killed with
 * SIGKILL mid-stream and started again. Afterwards every event was applied exactly once: every
 * user's figures, the affiliate's referred users and volume, and the earnings are exact.
 */
const AFFILIATE = 11n;
const BATCH = 200;

describe('condition inputs through the audience process dying mid-stream', () => {
  const stack = useFaultStack({ services: ['audience', 'agency', 'claim'], ownRedis: true });
  let audienceProcess: ServiceProcess;
  let agency: ReturnType<typeof createGrpcClient<AgencyServiceClient>>;
  beforeAll(() => {
    audienceProcess = stack.service('audience');
    agency = createGrpcClient(AgencyServiceClient, stack.service('agency').address, 10_000);
    stack.atStop(() => agency.close());
  });

  const appliedConversions = async (projectId: string) =>
    (
      await stack.db.query<{ n: number }>('SELECT coalesce(sum(conversions), 0)::int AS n FROM audience.user_metrics WHERE project_id = $1', [
        projectId,
      ])
    ).rows[0]!.n;

  it('applies every event exactly once when the audience is killed (SIGKILL) while applying them and restarted', async () => {
    const { project, affiliateUser, users, total } = await sendReferredConversions(stack, agency, { affiliateReward: AFFILIATE, batchSize: BATCH });

    // Some events applied, others still to come: the middle of the stream.
    await pollUntil(
      async () => {
        const n = await appliedConversions(project.id);
        return n > 0 && n < total;
      },
      { timeoutMs: 60_000, intervalMs: 5, what: 'some conversion events applied while others wait' },
    );
    await audienceProcess.kill();
    await audienceProcess.restart();

    await pollUntil(async () => (await appliedConversions(project.id)) === total, {
      timeoutMs: 120_000,
      intervalMs: 100,
      what: `all ${total} conversion events applied`,
    });
    const perUser = total / users.length;
    const { rows: userRows } = await stack.db.query(
      `SELECT identifier, volume_usd::text, revenue_usd::text, conversions::int FROM audience.user_metrics
       WHERE project_id = $1 AND identifier <> $2 ORDER BY identifier`,
      [project.id, affiliateUser.identifier],
    );
    expect(userRows).toEqual(
      [...users].sort().map((identifier) => ({
        identifier,
        volume_usd: (1.5 * perUser).toFixed(1),
        revenue_usd: (0.25 * perUser).toFixed(2),
        conversions: perUser,
      })),
    );
    const { rows } = await stack.db.query(
      `SELECT m.referred_users::int, m.referred_volume_usd::text, m.conversions::int,
              (SELECT sum(amount)::text FROM audience.user_earning_days e WHERE e.project_id = m.project_id AND e.identifier = m.identifier) AS earned,
              (SELECT sum(referred_users)::int FROM audience.user_referral_days r WHERE r.project_id = m.project_id AND r.identifier = m.identifier) AS referred_by_day,
              (SELECT sum(conversions)::int FROM audience.user_conversion_days c WHERE c.project_id = m.project_id) AS conversions_by_day,
              (SELECT count(*)::int FROM audience.processed_events WHERE consumer = 'audience-condition-inputs' AND outcome = 'handled'
                 AND event_id::text IN (SELECT id::text FROM claim.outbox WHERE project_id = $1 UNION ALL SELECT id::text FROM agency.outbox WHERE project_id = $1)) AS handled
       FROM audience.user_metrics m WHERE m.project_id = $1 AND m.identifier = $2`,
      [project.id, affiliateUser.identifier],
    );
    expect(rows[0]).toEqual({
      referred_users: users.length,
      referred_volume_usd: (1.5 * total).toFixed(1),
      conversions: 0,
      earned: String(AFFILIATE * BigInt(total)),
      referred_by_day: users.length,
      conversions_by_day: total,
      handled: total + users.length,
    });
  }, 300_000);
});
