import { randomBytes, randomUUID } from 'node:crypto';
import type { ApplicationRecord } from '../../../services/agency/repositories/application.repository';
import type { ApplicationAction, ApplicationStatus } from '../../../services/agency/domain/vocabulary';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { pollUntil } from '../../helpers/poll';
import { ADMIN, newCode, newProject, newUser } from './program-fixtures';

const START = '2026-11-21T12:00:00.000Z';
type User = ReturnType<typeof newUser>;

/** Applications (§2.10, §3.2): every transition of the state machine, allowed and refused, and what approval commits. */
describe('affiliate applications (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  /** The approval events in the agency's outbox (no relay runs here), by application. */
  const approvalEvents = async (applicationId: string) =>
    (
      await harness.sql.query(
        "SELECT type, project_id, payload, created_at FROM agency.outbox WHERE type = 'agency.application.approved' AND payload->>'application_id' = $1",
        [applicationId],
      )
    ).rows;

  const applications = () => harness.domain.applications;
  const staticSegment = async (projectId: string) =>
    harness.audience.segments.create(projectId, { name: `Static ${randomBytes(3).toString('hex')}` });
  const dynamicSegment = async (projectId: string) =>
    harness.audience.segments.create(projectId, {
      name: `Dynamic ${randomBytes(3).toString('hex')}`,
      conditionJson: '{"metric":"volume_usd","op":"gte","value":"1"}',
    });
  const apply = (projectId: string, user: User = newUser(), input: Partial<{ name: string; region: string; message: string; code: string }> = {}) =>
    applications().submit(projectId, user, { name: 'Ada', ...input });
  const affiliatesOf = async (projectId: string, user: User) =>
    (
      await harness.sql.query('SELECT id, name, region, status FROM agency.affiliates WHERE project_id = $1 AND identifier = $2', [
        projectId,
        user.identifier,
      ])
    ).rows;

  /** An application of a new user in the given status, and a static segment to approve into. */
  async function applicationIn(status: ApplicationStatus): Promise<{ projectId: string; application: ApplicationRecord; audienceId: string }> {
    const projectId = newProject();
    const audienceId = (await staticSegment(projectId)).id;
    const application = await apply(projectId);
    if (status === 'on_hold') await applications().decide(projectId, application.id, { action: 'hold' }, ADMIN);
    if (status === 'approved') await applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN);
    if (status === 'rejected') await applications().decide(projectId, application.id, { action: 'reject', reason: 'Not a fit' }, ADMIN);
    return { projectId, application, audienceId };
  }

  describe('submitting', () => {
    it('stores a pending application with what the applicant wrote (region upper case, texts trimmed)', async () => {
      const projectId = newProject();
      const user = newUser();
      const application = await apply(projectId, user, { name: '  Ada Lovelace ', region: 'gb', message: 'I run a newsletter', code: 'ADA_2026' });
      expect(application).toEqual({
        id: expect.any(String),
        projectId,
        user,
        name: 'Ada Lovelace',
        region: 'GB',
        message: 'I run a newsletter',
        code: 'ADA_2026',
        status: 'pending',
        createdAt: new Date(START),
        updatedAt: new Date(START),
        holdNote: null,
        heldAt: null,
        decidedAt: null,
        rejectionReason: null,
        audienceId: null,
        affiliateId: null,
        grantedCode: null,
      });
      expect(await applications().own(projectId, user)).toEqual({ application, affiliate: null });
    });

    it.each([
      ['an empty name', { name: ' ' }, 'name'],
      ['a region that is no country', { region: 'XX' }, 'region'],
      ['a code with a space', { code: 'no spaces' }, 'code'],
      ['a code too short', { code: 'ab' }, 'code'],
      ['a message too long', { message: 'x'.repeat(2_001) }, 'message'],
    ])('refuses %s, naming the field, and stores nothing', async (_what, input, field) => {
      const projectId = newProject();
      const user = newUser();
      await expect(apply(projectId, user, input)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
      await expect(applications().own(projectId, user)).rejects.toMatchObject({ code: 'APPLICATION_NOT_FOUND' });
    });

    it.each<ApplicationStatus>(['pending', 'on_hold'])('refuses a second application while one is %s (409 APPLICATION_OPEN)', async (status) => {
      const { projectId, application } = await applicationIn(status);
      await expect(apply(projectId, application.user)).rejects.toMatchObject({ code: 'APPLICATION_OPEN', kind: 'already_exists' });
    });

    it('keeps one open application per user when the same user applies many times at once', async () => {
      const projectId = newProject();
      const user = newUser();
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => apply(projectId, user)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.applications WHERE project_id = $1 AND identifier = $2', [
        projectId,
        user.identifier,
      ]);
      expect(rows[0].n).toBe(1);
    });

    it('lets a rejected user apply again: a new application, the old one kept', async () => {
      const { projectId, application } = await applicationIn('rejected');
      harness.clock.advance(60_000);
      const again = await apply(projectId, application.user, { name: 'Ada, again' });
      expect(again).toMatchObject({ status: 'pending', name: 'Ada, again' });
      expect(again.id).not.toBe(application.id);
      expect(await applications().get(projectId, application.id)).toMatchObject({ status: 'rejected', rejectionReason: 'Not a fit' });
      expect((await applications().own(projectId, application.user)).application.id).toBe(again.id);
    });

    it('refuses a user who is already an affiliate (approved, or made one by an admin)', async () => {
      const { projectId, application } = await applicationIn('approved');
      await expect(apply(projectId, application.user)).rejects.toMatchObject({ code: 'AFFILIATE_EXISTS', kind: 'already_exists' });
      const user = newUser();
      await harness.domain.affiliates.create(projectId, user, { name: 'Made by an admin' });
      await expect(apply(projectId, user)).rejects.toMatchObject({ code: 'AFFILIATE_EXISTS' });
    });
  });

  describe('the state machine', () => {
    const ALLOWED: Record<ApplicationStatus, Record<ApplicationAction, ApplicationStatus | string>> = {
      pending: { approve: 'approved', reject: 'rejected', hold: 'on_hold' },
      on_hold: { approve: 'approved', reject: 'rejected', hold: 'APPLICATION_ON_HOLD' },
      approved: { approve: 'APPLICATION_DECIDED', reject: 'APPLICATION_DECIDED', hold: 'APPLICATION_DECIDED' },
      rejected: { approve: 'APPLICATION_DECIDED', reject: 'APPLICATION_DECIDED', hold: 'APPLICATION_DECIDED' },
    };
    const cases = Object.entries(ALLOWED).flatMap(([from, actions]) =>
      Object.entries(actions).map(([action, outcome]) => [from as ApplicationStatus, action as ApplicationAction, outcome] as const),
    );

    it.each(cases)('%s + %s -> %s', async (from, action, outcome) => {
      const { projectId, application, audienceId } = await applicationIn(from);
      const before = await applications().get(projectId, application.id);
      harness.clock.advance(3_600_000);
      const decision = { action, audienceId, reason: 'Not a fit this time', note: 'Ask again in May' };
      if (outcome === outcome.toUpperCase()) {
        await expect(applications().decide(projectId, application.id, decision, ADMIN)).rejects.toMatchObject({ code: outcome, kind: 'conflict' });
        expect(await applications().get(projectId, application.id)).toEqual(before);
        return;
      }
      const decided = await applications().decide(projectId, application.id, decision, ADMIN);
      const now = harness.clock.now();
      expect(decided).toMatchObject({ status: outcome, updatedAt: now });
      if (outcome === 'on_hold') expect(decided).toMatchObject({ holdNote: 'Ask again in May', heldAt: now, decidedAt: null });
      if (outcome === 'rejected') expect(decided).toMatchObject({ rejectionReason: 'Not a fit this time', decidedAt: now });
      if (outcome === 'approved') expect(decided).toMatchObject({ audienceId, affiliateId: expect.any(String), decidedAt: now });
      // A hold before the decision stays on the record.
      if (from === 'on_hold') expect(decided).toMatchObject({ holdNote: null, heldAt: new Date(START) });
    });

    it('decides once when two admins decide the same application at the same moment', async () => {
      const { projectId, application, audienceId } = await applicationIn('pending');
      const outcomes = await Promise.allSettled([
        applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN),
        applications().decide(projectId, application.id, { action: 'reject', reason: 'No' }, ADMIN),
        applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN),
      ]);
      const decided = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(decided).toHaveLength(1);
      const final = await applications().get(projectId, application.id);
      expect(final.status).toBe((decided[0] as PromiseFulfilledResult<ApplicationRecord>).value.status);
      expect(await approvalEvents(application.id)).toHaveLength(final.status === 'approved' ? 1 : 0);
    });

    it('takes a hold without a note, and refuses a note too long or a reject without a reason', async () => {
      const { projectId, application } = await applicationIn('pending');
      await expect(applications().decide(projectId, application.id, { action: 'reject' }, ADMIN)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'reason', reason: 'is required' }],
      });
      await expect(applications().decide(projectId, application.id, { action: 'reject', reason: '   ' }, ADMIN)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(applications().decide(projectId, application.id, { action: 'hold', note: 'n'.repeat(501) }, ADMIN)).rejects.toMatchObject({
        details: [{ field: 'note' }],
      });
      expect(await applications().decide(projectId, application.id, { action: 'hold' }, ADMIN)).toMatchObject({ status: 'on_hold', holdNote: null });
    });

    it('answers APPLICATION_NOT_FOUND for an unknown id, another project’s application, and no UUID', async () => {
      const { application } = await applicationIn('pending');
      for (const id of [randomUUID(), application.id, 'nope']) {
        await expect(applications().get(newProject(), id)).rejects.toMatchObject({ code: 'APPLICATION_NOT_FOUND', kind: 'not_found' });
        await expect(applications().decide(newProject(), id, { action: 'hold' }, ADMIN)).rejects.toMatchObject({ code: 'APPLICATION_NOT_FOUND' });
      }
    });
  });

  describe('approval', () => {
    it('makes an active affiliate with the applicant’s name, region and desired code, and commits the approval event with it', async () => {
      const projectId = newProject();
      const audienceId = (await staticSegment(projectId)).id;
      const user = newUser();
      const code = newCode().toUpperCase();
      const application = await apply(projectId, user, { name: 'Grace', region: 'us', code });
      const approved = await applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN);
      expect(approved).toMatchObject({ status: 'approved', grantedCode: code, audienceId });
      const affiliate = await harness.domain.affiliates.get(projectId, user);
      expect(affiliate).toMatchObject({
        id: approved.affiliateId,
        name: 'Grace',
        region: 'US',
        status: 'active',
        codes: [expect.objectContaining({ code })],
      });
      expect(await approvalEvents(application.id)).toEqual([
        {
          type: 'agency.application.approved',
          project_id: projectId,
          payload: {
            project_id: projectId,
            application_id: application.id,
            audience_id: audienceId,
            user: { identifier: user.identifier, identifier_type: 'evm_address' },
          },
          created_at: new Date(START),
        },
      ]);
      expect(await applications().own(projectId, user)).toEqual({ application: approved, affiliate });
    });

    it('approves without the desired code when another affiliate holds it (any letter case)', async () => {
      const projectId = newProject();
      const audienceId = (await staticSegment(projectId)).id;
      const code = newCode();
      await harness.domain.affiliates.create(projectId, newUser(), { name: 'Holder', code });
      const application = await apply(projectId, newUser(), { code: code.toUpperCase() });
      const approved = await applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN);
      expect(approved).toMatchObject({ status: 'approved', grantedCode: null });
      expect((await harness.domain.affiliates.get(projectId, application.user)).codes).toEqual([]);
    });

    it('reactivates a suspended affiliate the user became meanwhile, keeping its name; the suspension period closes', async () => {
      const projectId = newProject();
      const audienceId = (await staticSegment(projectId)).id;
      const user = newUser();
      const application = await apply(projectId, user, { name: 'From the application' });
      await harness.domain.affiliates.create(projectId, user, { name: 'Made by an admin' });
      await harness.domain.affiliates.suspend(projectId, user, 'Checking', ADMIN);
      harness.clock.advance(60_000);
      await applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN);
      expect(await affiliatesOf(projectId, user)).toEqual([expect.objectContaining({ name: 'Made by an admin', status: 'active' })]);
      const { rows } = await harness.sql.query(
        'SELECT reactivated_at, reactivated_by FROM agency.affiliate_suspensions s JOIN agency.affiliates a ON a.id = s.affiliate_id WHERE a.identifier = $1',
        [user.identifier],
      );
      expect(rows).toEqual([{ reactivated_at: harness.clock.now(), reactivated_by: ADMIN }]);
    });

    it('rolls everything back when its outbox event cannot be written: still pending, no affiliate, no code, no event', async () => {
      const projectId = newProject();
      const audienceId = (await staticSegment(projectId)).id;
      const user = newUser();
      const code = newCode();
      const application = await apply(projectId, user, { code });
      // The last write of the approval's transaction fails, in the database itself.
      await harness.sql.query(`
        CREATE FUNCTION agency.refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the outbox refuses this event'; END $$`);
      await harness.sql.query(
        `CREATE TRIGGER refuse_event BEFORE INSERT ON agency.outbox FOR EACH ROW WHEN (NEW.payload->>'application_id' = '${application.id}') EXECUTE FUNCTION agency.refuse_event()`,
      );
      try {
        await expect(applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN)).rejects.toThrow(
          'the outbox refuses this event',
        );
      } finally {
        await harness.sql.query('DROP TRIGGER refuse_event ON agency.outbox; DROP FUNCTION agency.refuse_event()');
      }
      expect(await applications().get(projectId, application.id)).toEqual(application);
      expect(await affiliatesOf(projectId, user)).toEqual([]);
      expect(await harness.domain.affiliates.checkCode(projectId, code)).toEqual({ free: true, available: true });
      expect(await approvalEvents(application.id)).toEqual([]);
      // And once it can be written, the same approval goes through.
      expect((await applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN)).status).toBe('approved');
      expect(await approvalEvents(application.id)).toHaveLength(1);
    });

    it('needs a static segment of this project: missing (400), unknown or another project’s (404 AUDIENCE_NOT_FOUND), dynamic (400 AUDIENCE_NOT_STATIC)', async () => {
      const { projectId, application } = await applicationIn('pending');
      const decide = (audienceId?: string) => applications().decide(projectId, application.id, { action: 'approve', audienceId }, ADMIN);
      await expect(decide()).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'audience_id' }] });
      await expect(decide(randomUUID())).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND', kind: 'not_found' });
      await expect(decide('not-a-uuid')).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      await expect(decide((await staticSegment(newProject())).id)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      await expect(decide((await dynamicSegment(projectId)).id)).rejects.toMatchObject({
        code: 'AUDIENCE_NOT_STATIC',
        kind: 'invalid_argument',
        details: [{ field: 'audience_id', reason: 'must name a static audience segment' }],
      });
      expect((await applications().get(projectId, application.id)).status).toBe('pending');
    });
  });

  describe('bulk decisions', () => {
    it('decides each application alone, in order: decided, unknown, malformed and repeated ids fail alone', async () => {
      const projectId = newProject();
      const audienceId = (await staticSegment(projectId)).id;
      const [first, second] = [await apply(projectId), await apply(projectId)];
      const rejected = await apply(projectId);
      await applications().decide(projectId, rejected.id, { action: 'reject', reason: 'No' }, ADMIN);
      const unknown = randomUUID();
      const results = await applications().decideMany(
        projectId,
        [first.id, rejected.id, unknown, 'nope', second.id, first.id],
        { action: 'approve', audienceId },
        ADMIN,
      );
      expect(
        results.map((result) => ('error' in result ? [result.applicationId, result.error.code] : [result.applicationId, result.application.status])),
      ).toEqual([
        [first.id, 'approved'],
        [rejected.id, 'APPLICATION_DECIDED'],
        [unknown, 'APPLICATION_NOT_FOUND'],
        ['nope', 'APPLICATION_NOT_FOUND'],
        [second.id, 'approved'],
        [first.id, 'APPLICATION_DECIDED'],
      ]);
    });

    it('refuses the whole request for a bad decision (no reason, a dynamic segment) or more than 100 ids, deciding nothing', async () => {
      const projectId = newProject();
      const application = await apply(projectId);
      await expect(applications().decideMany(projectId, [application.id], { action: 'reject' }, ADMIN)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(
        applications().decideMany(projectId, [application.id], { action: 'approve', audienceId: (await dynamicSegment(projectId)).id }, ADMIN),
      ).rejects.toMatchObject({
        code: 'AUDIENCE_NOT_STATIC',
      });
      await expect(applications().decideMany(projectId, Array.from({ length: 101 }, randomUUID), { action: 'hold' }, ADMIN)).rejects.toMatchObject({
        code: 'TOO_MANY_APPLICATIONS',
        kind: 'resource_exhausted',
      });
      await expect(applications().decideMany(projectId, [], { action: 'hold' }, ADMIN)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect((await applications().get(projectId, application.id)).status).toBe('pending');
    });
  });

  describe('the review list', () => {
    it('lists oldest first, filtered by status, in pages', async () => {
      const projectId = newProject();
      const made: ApplicationRecord[] = [];
      for (let i = 0; i < 5; i += 1) {
        made.push(await apply(projectId));
        harness.clock.advance(1_000);
      }
      await applications().decide(projectId, made[1]!.id, { action: 'hold' }, ADMIN);
      await applications().decide(projectId, made[3]!.id, { action: 'reject', reason: 'No' }, ADMIN);
      const ids = async (status: ApplicationStatus | undefined, page = 1, pageSize = 25) =>
        (await applications().list(projectId, status, { page, pageSize, offset: (page - 1) * pageSize })).records.map((record) => record.id);
      expect(await ids(undefined)).toEqual(made.map((record) => record.id));
      expect(await ids('pending')).toEqual([made[0]!.id, made[2]!.id, made[4]!.id]);
      expect(await ids('on_hold')).toEqual([made[1]!.id]);
      expect(await ids(undefined, 2, 2)).toEqual([made[2]!.id, made[3]!.id]);
      expect((await applications().list(projectId, 'pending', { page: 1, pageSize: 1, offset: 0 })).total).toBe(3);
    });
  });

  it('approves without the desired code when an invite code of the same letters is being written at that moment (never fails)', async () => {
    const { projectId, application: owner } = await applicationIn('approved');
    const [ownerAffiliate] = await affiliatesOf(projectId, owner.user);
    const code = `Race_${randomBytes(3).toString('hex')}`;
    const audienceId = (await staticSegment(projectId)).id;
    const applicant = await apply(projectId, newUser(), { code });
    // An invite code with the code's letters, inserted and not yet committed: its trigger holds the code's lock.
    const writer = await harness.sql.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        'INSERT INTO agency.invite_codes (project_id, code, affiliate_id, created_at, updated_at) VALUES ($1, $2, $3, now(), now())',
        [projectId, code.toUpperCase(), ownerAffiliate.id],
      );
      const decided = applications().decide(projectId, applicant.id, { action: 'approve', audienceId }, ADMIN);
      await pollUntil(async () => (await harness.sql.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows.length > 0, {
        timeoutMs: 10_000,
        what: 'the approval to wait for the code’s lock',
      });
      await writer.query('COMMIT');
      await expect(decided).resolves.toMatchObject({ status: 'approved' });
    } finally {
      writer.release();
    }
    const granted = await harness.sql.query('SELECT code FROM agency.affiliate_codes WHERE project_id = $1 AND lower(code) = lower($2)', [
      projectId,
      code,
    ]);
    expect(granted.rows).toEqual([]);
  });
});
