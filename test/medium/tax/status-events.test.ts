import type { TaxDomain } from '../../../services/tax/composition';
import type { TaxDatabase } from '../../../services/tax/database';
import type { DomainHarness } from '../../helpers/domain';
import { startTaxDomain } from '../../helpers/tax-domain';
import { TIN, w8ben, w9 } from '../../tax/tax-forms';
import { ADMIN, formInput, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';

/**
 * tax.tax_status.changed: one event per status change, written in the transition's transaction
 * beside its history row (no relay runs here: the events stay in the tax service's outbox).
 * Statuses, the user, the record's expires_at and the change's version (for the agency's
 * projection): never a form field or a tax id.
 */
describe('tax status events (domain)', () => {
  let harness: DomainHarness<TaxDomain, TaxDatabase>;
  beforeAll(async () => {
    harness = await startTaxDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const eventsOf = async (projectId: string, identifier: string) =>
    (
      await harness.sql.query(
        `SELECT type, project_id, payload, payload::text AS text, created_at FROM tax.outbox WHERE project_id = $1 AND payload->'user'->>'identifier' = $2 ORDER BY seq`,
        [projectId, identifier],
      )
    ).rows;
  const changes = async (projectId: string, identifier: string) =>
    (await eventsOf(projectId, identifier)).map((row) => `${row.payload.from}->${row.payload.to}`);

  it('announces submitted, approved and revoked, each once, with the user and the statuses only', async () => {
    const projectId = await newProject(harness, { requireTaxInfo: true });
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(w9()));
    await harness.domain.review.approve(projectId, user, ADMIN);
    await harness.domain.review.revoke(projectId, user, ADMIN, 'TIN does not match');

    const events = await eventsOf(projectId, user.identifier);
    // Each event's version is its history row's id: the order of the user's changes.
    const { rows: history } = await harness.sql.query('SELECT id::text AS id FROM tax.tax_status_events WHERE project_id = $1 ORDER BY id', [
      projectId,
    ]);
    expect(events.map((event) => ({ type: event.type, project_id: event.project_id, payload: event.payload, created_at: event.created_at }))).toEqual(
      [
        ['not_submitted', 'submitted'],
        ['submitted', 'approved'],
        ['approved', 'revoked'],
      ].map(([from, to], index) => ({
        type: 'tax.tax_status.changed',
        project_id: projectId,
        payload: {
          project_id: projectId,
          user: { identifier: user.identifier, identifier_type: 'evm_address' },
          from,
          to,
          changed_at: START,
          // A W-9 never expires.
          expires_at: null,
          version: history[index]!.id,
        },
        created_at: new Date(START),
      })),
    );
    for (const event of events) {
      for (const secret of [TIN.ssn, TIN.ssnDigits, 'Ada Lovelace', 'Springfield', 'TIN does not match']) expect(event.text).not.toContain(secret);
    }
  });

  it('announces nothing for a transition refused (approving what is not submitted, revoking twice)', async () => {
    const projectId = await newProject(harness, { requireTaxInfo: true });
    const user = newUser();
    await expect(harness.domain.review.approve(projectId, user, ADMIN)).rejects.toMatchObject({ kind: 'not_found' });
    expect(await eventsOf(projectId, user.identifier)).toEqual([]);
    await harness.domain.taxInfo.submit(projectId, user, formInput(w9()));
    await harness.domain.review.revoke(projectId, user, ADMIN, 'Incomplete');
    await expect(harness.domain.review.revoke(projectId, user, ADMIN, 'Again')).rejects.toMatchObject({
      kind: expect.stringMatching(/conflict|failed_precondition/),
    });
    expect(await changes(projectId, user.identifier)).toEqual(['not_submitted->submitted', 'submitted->revoked']);
  });

  it('announces a W-8’s expiry once, however often the sweep runs, at the moment it expired', async () => {
    const projectId = await newProject(harness, { requireTaxInfo: true });
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: '2026-03-10' })));
    const approved = await harness.domain.review.approve(projectId, user, ADMIN);
    harness.clock.set(new Date(approved.expiresAt!.getTime() + 60_000));
    await harness.domain.expiry.expireDue();
    await harness.domain.expiry.expireDue();
    const events = await eventsOf(projectId, user.identifier);
    expect(events.map((event) => `${event.payload.from}->${event.payload.to}`)).toEqual([
      'not_submitted->submitted',
      'submitted->approved',
      'approved->expired',
    ]);
    expect(events[2].payload.changed_at).toBe(approved.expiresAt!.toISOString());
    // The approval announces when it will expire, so a projection reads the expiry before the sweep's event.
    expect(events.map((event) => event.payload.expires_at)).toEqual([null, approved.expiresAt!.toISOString(), approved.expiresAt!.toISOString()]);
  });

  it('announces the expiry and the resubmission when an expired W-8 is replaced before the sweep wrote it down', async () => {
    const projectId = await newProject(harness, { requireTaxInfo: true });
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: '2026-03-10' })));
    const approved = await harness.domain.review.approve(projectId, user, ADMIN);
    harness.clock.set(new Date(approved.expiresAt!.getTime() + 60_000));
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: harness.clock.now().toISOString().slice(0, 10) })));
    await harness.domain.expiry.expireDue();
    expect(await changes(projectId, user.identifier)).toEqual([
      'not_submitted->submitted',
      'submitted->approved',
      'approved->expired',
      'expired->submitted',
    ]);
    // The old record's expiry and the new submission, written together, in that order: the submission is the newer version.
    const versions = (await eventsOf(projectId, user.identifier)).map((event) => BigInt(event.payload.version));
    expect(versions).toEqual([...versions].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(versions).size).toBe(4);
  });
});
