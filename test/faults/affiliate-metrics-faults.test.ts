import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { sendReferredConversions } from '../helpers/faults/referred-conversions';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { pollUntil } from '../helpers/poll';

/**
 * The agency's affiliate metrics consumer through process deaths: the claim service pays a stream
 * of conversions (real processes) while the agency, applying their `claim.conversion.processed`
 * events, is killed with SIGKILL mid-stream and started again. Afterwards every event was applied
 * exactly once: the affiliate's figures and earnings are exact, one fact per conversion.
 */
const AFFILIATE = 11n;
const BATCH = 200;

describe('affiliate metrics through the agency process dying mid-stream', () => {
  const stack = useFaultStack({ services: ['audience', 'agency', 'claim'], ownRedis: true });
  let agencyProcess: ServiceProcess;
  let agency: ReturnType<typeof createGrpcClient<AgencyServiceClient>>;
  beforeAll(() => {
    agencyProcess = stack.service('agency');
    agency = createGrpcClient(AgencyServiceClient, agencyProcess.address, 10_000);
    stack.atStop(() => agency.close());
  });

  const applied = async (projectId: string) =>
    (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM agency.conversion_facts WHERE project_id = $1', [projectId])).rows[0]!.n;

  it('applies every conversion event exactly once when the agency is killed (SIGKILL) while applying them and restarted', async () => {
    const { project, affiliate, users, total } = await sendReferredConversions(stack, agency, { affiliateReward: AFFILIATE, batchSize: BATCH });

    // Some events applied, others still to come: the middle of the stream.
    await pollUntil(
      async () => {
        const n = await applied(project.id);
        return n > 0 && n < total;
      },
      { timeoutMs: 60_000, intervalMs: 5, what: 'some conversion events applied while others wait' },
    );
    await agencyProcess.kill();
    await agencyProcess.restart();

    await pollUntil(async () => (await applied(project.id)) === total, {
      timeoutMs: 90_000,
      intervalMs: 100,
      what: `all ${total} conversion events applied`,
    });
    const { rows } = await stack.db.query(
      `SELECT m.volume_usd::text, m.revenue_usd::text, m.conversions::int, m.end_users::int, m.converting_users::int,
              (SELECT amount::text FROM agency.affiliate_earnings e WHERE e.affiliate_id = m.affiliate_id AND e.kind = 'affiliate') AS earned,
              (SELECT sum(conversions)::int FROM agency.referred_user_metrics r WHERE r.affiliate_id = m.affiliate_id) AS per_user,
              (SELECT count(*)::int FROM agency.processed_events WHERE consumer = 'agency-affiliate-metrics' AND outcome = 'handled'
                 AND event_id::text IN (SELECT id::text FROM claim.outbox WHERE project_id = $2)) AS handled
       FROM agency.affiliate_metrics m WHERE m.affiliate_id = $1`,
      [affiliate.id, project.id],
    );
    expect(rows[0]).toEqual({
      volume_usd: (1.5 * total).toFixed(1),
      revenue_usd: (0.25 * total).toFixed(2),
      conversions: total,
      end_users: users.length,
      converting_users: users.length,
      earned: String(AFFILIATE * BigInt(total)),
      per_user: total,
      handled: total,
    });
  }, 240_000);
});
