import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { createProject, createSegment, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

/**
 * Approving an application crosses two services: the agency commits the approval with its outbox
 * event, and the audience service adds the entry from it. Here the audience process dies before
 * and after the commit, Redis goes away at approval time, and the agency process dies between
 * its commit and the relay: each time the approved user ends in the segment exactly once, and no
 * approved application is left without its entry. The agency's tier projection (the other way: the
 * audience's events to the agency) catches up after an agency death, each event applied once, and
 * answers tiers and attribution while the audience process is dead.
 */
/** Recovery bound: a dead consumer's job lock lapses after 3 s (FAULT_TIMING), then retries back off. */
const RECOVERY_MS = 45_000;

describe('application approval through process deaths and Redis loss', () => {
  const stack = useFaultStack({ services: ['audience', 'agency'], ownRedis: true });
  let audience: ServiceProcess;
  let agency: ServiceProcess;
  let project: TestProject;
  let api: Api;
  beforeAll(async () => {
    audience = stack.service('audience');
    agency = stack.service('agency');
    api = stack.gateway.api;
    project = await createProject(stack.gateway);
  });

  /** A wallet's pending application (signing in needs Redis: done before any outage). */
  async function pendingApplication(): Promise<{ id: string; address: string }> {
    const wallet = await newWallet();
    const token = await signIn({ api } as TestStack, wallet);
    const response = await api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, { key: token, body: { name: 'Fault-tolerant' } });
    if (response.status !== 201) throw new Error(`application failed: ${response.status} ${response.text}`);
    return { id: response.body.id, address: wallet.address };
  }
  const approve = (applicationId: string, audienceId: string) =>
    api.post(`/api/v1/projects/${project.id}/applications/${applicationId}/approve`, { key: project.keys.admin, body: { audience_id: audienceId } });
  /**
   * Approves as a client told "503, retry" does: again until the audience service is reached (its
   * channel reconnects within a couple of seconds of a restart). Only that refusal is retried.
   */
  const approveWhenReachable = (applicationId: string, audienceId: string) =>
    pollUntil(
      async () => {
        const response = await approve(applicationId, audienceId);
        if (response.status !== 503) return response;
        expect(response.body.code).toBe('AUDIENCE_UNAVAILABLE');
        return undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: 'the agency to reach the audience service again' },
    );
  const count = async (sql: string, params: unknown[]) => Number((await stack.db.query(sql, params)).rows[0].n);
  const entries = (segmentId: string, address: string) =>
    count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1 AND identifier = $2', [segmentId, address]);
  const approvalsApplied = (applicationId: string) =>
    count(
      `SELECT count(*) AS n FROM audience.processed_events p JOIN agency.outbox o ON o.id = p.event_id
       WHERE p.consumer = 'audience-application-approvals' AND p.outcome = 'handled' AND o.payload->>'application_id' = $1`,
      [applicationId],
    );
  const pendingEvents = (applicationId: string) =>
    count(
      "SELECT count(*) AS n FROM agency.outbox o JOIN agency.outbox_pending p USING (seq) WHERE o.type = 'agency.application.approved' AND o.payload->>'application_id' = $1",
      [applicationId],
    );

  /** The user is in the segment exactly once, from exactly one applied event, and the segment counts it once. */
  async function expectEntryOnce(segmentId: string, applicationId: string, address: string) {
    await pollUntil(async () => (await entries(segmentId, address)) > 0, {
      timeoutMs: RECOVERY_MS,
      intervalMs: 100,
      what: 'the approved user’s audience entry',
    });
    await pollUntil(async () => (await approvalsApplied(applicationId)) === 1, {
      timeoutMs: RECOVERY_MS,
      intervalMs: 100,
      what: 'the approval event recorded as handled',
    });
    expect(await entries(segmentId, address)).toBe(1);
    expect(await count('SELECT entries_count AS n FROM audience.segments WHERE id = $1', [segmentId])).toBe(1);
    expect(
      await count("SELECT count(*) AS n FROM agency.outbox WHERE type = 'agency.application.approved' AND payload->>'application_id' = $1", [
        applicationId,
      ]),
    ).toBe(1);
  }

  it('refuses an approval while the audience service is down (503, nothing changed), and approves once it is back', async () => {
    const segment = await createSegment(stack.gateway, project);
    const { id, address } = await pendingApplication();
    await audience.kill();

    const refused = await approve(id, segment.id);
    expect(refused).toMatchObject({ status: 503, body: { code: 'AUDIENCE_UNAVAILABLE', message: expect.stringContaining('nothing was changed') } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.get(`/api/v1/projects/${project.id}/applications/${id}`, { key: project.keys.admin })).body.status).toBe('pending');
    expect(
      await count("SELECT count(*) AS n FROM agency.outbox WHERE type = 'agency.application.approved' AND payload->>'application_id' = $1", [id]),
    ).toBe(0);

    await audience.restart();
    expect((await approveWhenReachable(id, segment.id)).status).toBe(200);
    await expectEntryOnce(segment.id, id, address);
  }, 90_000);

  it('adds the entry once when the audience process dies (SIGKILL) while applying the approval, after its restart', async () => {
    const segment = await createSegment(stack.gateway, project);
    const { id, address } = await pendingApplication();
    // The consumer waits on the segment's row (it takes a key-share lock to add an entry); reads go on.
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segments WHERE id = $1 FOR UPDATE', [segment.id]);
    try {
      expect((await approveWhenReachable(id, segment.id)).status).toBe(200);
      await pollUntil(async () => (await lock.waiters()) >= 1, {
        timeoutMs: 20_000,
        intervalMs: 50,
        what: 'the audience consumer waiting on the segment',
      });
      await audience.kill();
    } finally {
      await lock.release();
    }
    expect(await entries(segment.id, address)).toBe(0);
    await audience.restart();
    await expectEntryOnce(segment.id, id, address);
  }, 90_000);

  it('approves while Redis is away (the event waits in the outbox) and adds the entry once Redis is back, empty', async () => {
    const segment = await createSegment(stack.gateway, project);
    const { id, address } = await pendingApplication();
    await stack.redis!.stop();

    expect(await approve(id, segment.id)).toMatchObject({ status: 200, body: { status: 'approved' } });
    expect(await pendingEvents(id)).toBe(1);
    expect(await entries(segment.id, address)).toBe(0);

    await stack.redis!.startEmpty();
    await expectEntryOnce(segment.id, id, address);
  }, 90_000);

  it('adds the entry once when the agency process dies between its commit and the relay', async () => {
    const segment = await createSegment(stack.gateway, project);
    const { id, address } = await pendingApplication();
    // With Redis away the relay cannot hand the event on: the commit is all that happened when the process dies.
    await stack.redis!.stop();
    expect((await approve(id, segment.id)).status).toBe(200);
    expect(await pendingEvents(id)).toBe(1);
    await agency.kill();

    await stack.redis!.startEmpty();
    expect(await pendingEvents(id)).toBe(1);
    await agency.restart();
    await expectEntryOnce(segment.id, id, address);
    expect((await api.get(`/api/v1/projects/${project.id}/applications/${id}`, { key: project.keys.admin })).body.status).toBe('approved');
  }, 90_000);

  it('keeps the tier projection through an agency death, and answers tiers while the audience service is down', async () => {
    const admin = { key: project.keys.admin };
    const gold = await createSegment(stack.gateway, project, { tier_rank: 50 });
    const identifier = randomEvmAddress();
    const user = { identifier, identifierType: 'evm_address' };
    const code = `t${identifier.slice(2, 10)}`;
    expect(
      (
        await api.post(`/api/v1/projects/${project.id}/affiliates`, {
          ...admin,
          body: { identifier, identifier_type: 'evm_address', name: 'Tiered', code },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.post(`/api/v1/projects/${project.id}/audiences/${gold.id}/entries`, {
          ...admin,
          body: { identifier, identifier_type: 'evm_address' },
        })
      ).status,
    ).toBe(201);
    // The agency itself (the affiliate's HTTP body also needs the tax service, not run here).
    const client = () => createGrpcClient(AgencyServiceClient, agency.address, 5_000);
    const tierShown = async () => {
      const agencyClient = client();
      try {
        return (await agencyClient.call.getAffiliate({ projectId: project.id, user })).currentTier;
      } finally {
        agencyClient.close();
      }
    };
    await pollUntil(async () => (await tierShown())?.rank === 50, {
      timeoutMs: RECOVERY_MS,
      intervalMs: 100,
      what: 'the agency to show the affiliate’s tier',
    });

    // The rank changes while the agency is dead: its event waits in the agency consumer's queue.
    await agency.kill();
    expect(
      (await api.patch(`/api/v1/projects/${project.id}/audiences/${gold.id}`, { ...admin, body: { tier_rank: 60, name: 'Gold+' } })).status,
    ).toBe(200);
    await agency.restart();
    await pollUntil(async () => (await tierShown().catch(() => undefined))?.rank === 60, {
      timeoutMs: RECOVERY_MS,
      intervalMs: 100,
      what: 'the changed rank to reach the agency',
    });
    expect(await tierShown()).toEqual({ id: gold.id, name: 'Gold+', rank: 60 });
    const applied = await count(
      `SELECT count(*) AS n FROM agency.processed_events p JOIN audience.outbox o ON o.id = p.event_id
       WHERE p.consumer = 'agency-segment-tiers' AND p.outcome = 'handled' AND o.payload->>'segment_id' = $1`,
      [gold.id],
    );
    expect(applied).toBe(2);

    // Attribution reads the agency's own projection: the audience service's death changes nothing.
    const referred = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
    const agencyClient = client();
    try {
      await agencyClient.call.createReferral({ projectId: project.id, user: referred, code });
      await audience.kill();
      const attribution = await agencyClient.call.resolveAttribution({ projectId: project.id, user: referred, at: new Date(Date.now() + 60_000) });
      expect(attribution).toMatchObject({ affiliate: user, activeTierId: gold.id });
      expect(await tierShown()).toEqual({ id: gold.id, name: 'Gold+', rank: 60 });
    } finally {
      agencyClient.close();
    }
  }, 90_000);
});
