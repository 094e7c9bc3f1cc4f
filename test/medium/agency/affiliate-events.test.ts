import { randomBytes, randomUUID } from 'node:crypto';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { newCode, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const ADMIN = randomUUID();

/**
 * The agency's public events (README "Webhooks"), written in the transaction of the change: every
 * way an affiliate is created, every status change (including an approval that reactivates), every
 * application decision. A refused change writes none. No relay runs here: events stay in the outbox.
 */
describe('affiliate and application events (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const affiliates = () => harness.domain.affiliates;
  const applications = () => harness.domain.applications;
  const wire = (user: { identifier: string; identifierType: string }) => ({ identifier: user.identifier, identifier_type: user.identifierType });
  const staticSegment = (projectId: string) => harness.audience.segments.create(projectId, { name: `Static ${randomBytes(3).toString('hex')}` });

  /** The user's public events (approval's audience event aside), oldest first. */
  const eventsOf = async (projectId: string, identifier: string) =>
    (
      await harness.sql.query(
        `SELECT type, payload FROM agency.outbox WHERE project_id = $1 AND payload->'user'->>'identifier' = $2 AND type <> 'agency.application.approved' ORDER BY seq`,
        [projectId, identifier],
      )
    ).rows as Array<{ type: string; payload: Record<string, unknown> }>;

  it('announces an affiliate created by an admin or by itself, with its code and where it came from; a refused creation announces nothing', async () => {
    const projectId = newProject();
    const byAdmin = newUser();
    const code = newCode();
    const created = await affiliates().create(projectId, byAdmin, { name: 'Alice', region: 'de', code }, ADMIN);
    const itself = newUser();
    const selfCreated = await affiliates().create(projectId, itself, { name: 'Bob' }, null);
    await expect(affiliates().create(projectId, byAdmin, { name: 'Again' }, ADMIN)).rejects.toMatchObject({ code: 'AFFILIATE_EXISTS' });
    const late = newUser();
    await expect(affiliates().create(projectId, late, { name: 'Late', code }, ADMIN)).rejects.toMatchObject({ code: 'CODE_IN_USE' });

    expect(await eventsOf(projectId, byAdmin.identifier)).toEqual([
      {
        type: 'agency.affiliate.created',
        payload: {
          affiliate_id: created.id,
          user: wire(byAdmin),
          name: 'Alice',
          region: 'DE',
          codes: [code],
          source: 'admin',
          application_id: null,
          joined_at: START,
        },
      },
    ]);
    expect(await eventsOf(projectId, itself.identifier)).toEqual([
      {
        type: 'agency.affiliate.created',
        payload: {
          affiliate_id: selfCreated.id,
          user: wire(itself),
          name: 'Bob',
          region: null,
          codes: [],
          source: 'self_service',
          application_id: null,
          joined_at: START,
        },
      },
    ]);
    expect(await eventsOf(projectId, late.identifier)).toEqual([]);
  });

  it('announces a suspension with its reason and a reactivation; a refused change announces nothing', async () => {
    const projectId = newProject();
    const user = newUser();
    const { id } = await affiliates().create(projectId, user, { name: 'Alice' }, ADMIN);
    await affiliates().suspend(projectId, user, 'Fraudulent traffic', ADMIN);
    await expect(affiliates().suspend(projectId, user, 'Again', ADMIN)).rejects.toMatchObject({ code: 'AFFILIATE_ALREADY_SUSPENDED' });
    harness.clock.set('2026-11-22T08:00:00.000Z');
    await affiliates().reactivate(projectId, user, ADMIN);
    await expect(affiliates().reactivate(projectId, user, ADMIN)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_SUSPENDED' });

    const events = await eventsOf(projectId, user.identifier);
    expect(events.slice(1)).toEqual([
      {
        type: 'agency.affiliate.status_changed',
        payload: { affiliate_id: id, user: wire(user), from: 'active', to: 'suspended', reason: 'Fraudulent traffic', changed_at: START },
      },
      {
        type: 'agency.affiliate.status_changed',
        payload: { affiliate_id: id, user: wire(user), from: 'suspended', to: 'active', reason: null, changed_at: '2026-11-22T08:00:00.000Z' },
      },
    ]);
  });

  it('announces an approval: the affiliate it created and the decision; a hold announces nothing', async () => {
    const projectId = newProject();
    const audience = await staticSegment(projectId);
    const user = newUser();
    const code = newCode();
    const application = await applications().submit(projectId, user, { name: 'Grace', region: 'us', code });
    await applications().decide(projectId, application.id, { action: 'hold' }, ADMIN);
    expect(await eventsOf(projectId, user.identifier)).toEqual([]);
    const approved = await applications().decide(projectId, application.id, { action: 'approve', audienceId: audience.id }, ADMIN);

    expect(await eventsOf(projectId, user.identifier)).toEqual([
      {
        type: 'agency.affiliate.created',
        payload: {
          affiliate_id: approved.affiliateId,
          user: wire(user),
          name: 'Grace',
          region: 'US',
          codes: [code],
          source: 'application',
          application_id: application.id,
          joined_at: START,
        },
      },
      {
        type: 'agency.application.decided',
        payload: {
          application_id: application.id,
          user: wire(user),
          decision: 'approved',
          reason: null,
          audience_id: audience.id,
          affiliate_id: approved.affiliateId,
          decided_at: START,
        },
      },
    ]);
  });

  it('announces an approval that reactivates a suspended affiliate as a status change, not a creation', async () => {
    const projectId = newProject();
    const audience = await staticSegment(projectId);
    const user = newUser();
    const application = await applications().submit(projectId, user, { name: 'Grace' });
    // An admin made the user an affiliate meanwhile, and suspended it.
    const { id } = await affiliates().create(projectId, user, { name: 'Grace' }, ADMIN);
    await affiliates().suspend(projectId, user, 'Pending review', ADMIN);
    await applications().decide(projectId, application.id, { action: 'approve', audienceId: audience.id }, ADMIN);

    expect(
      (await eventsOf(projectId, user.identifier)).map((event) => [event.type, event.payload.source ?? event.payload.to ?? event.payload.decision]),
    ).toEqual([
      ['agency.affiliate.created', 'admin'],
      ['agency.affiliate.status_changed', 'suspended'],
      ['agency.affiliate.status_changed', 'active'],
      ['agency.application.decided', 'approved'],
    ]);
    expect((await eventsOf(projectId, user.identifier))[2]!.payload).toMatchObject({
      affiliate_id: id,
      from: 'suspended',
      to: 'active',
      reason: null,
    });
  });

  it('announces a rejection with its reason, once: deciding again is refused and announces nothing', async () => {
    const projectId = newProject();
    const user = newUser();
    const application = await applications().submit(projectId, user, { name: 'Grace' });
    await applications().decide(projectId, application.id, { action: 'reject', reason: 'Traffic too low' }, ADMIN);
    await expect(applications().decide(projectId, application.id, { action: 'reject', reason: 'Still low' }, ADMIN)).rejects.toMatchObject({
      code: 'APPLICATION_DECIDED',
    });
    expect(await eventsOf(projectId, user.identifier)).toEqual([
      {
        type: 'agency.application.decided',
        payload: {
          application_id: application.id,
          user: wire(user),
          decision: 'rejected',
          reason: 'Traffic too low',
          audience_id: null,
          affiliate_id: null,
          decided_at: START,
        },
      },
    ]);
  });
});
