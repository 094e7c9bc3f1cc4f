import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../../../services/agency/database';
import { taxStatuses } from '../../../services/agency/jobs/tax-statuses.consumer';
import { type Database, openDatabase } from '../../../services/platform/db/database';
import type { EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';
import { buildTaxDomain, type TaxDomain } from '../../../services/tax/composition';
import type { TaxDatabase } from '../../../services/tax/database';
import { publishTaxState } from '../../../services/tax/migrations/0004_publish_tax_statuses';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { deliverProducedEvents } from '../../helpers/audience-projection';
import { testTinVault } from '../../helpers/tax-domain';
import { w8ben, w9 } from '../../tax/tax-forms';
import { formInput } from '../tax/fixtures';
import { newAffiliate, newProject } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const ADMIN = randomUUID();

/**
 * The affiliate list's tax_status from the agency's projection of the tax service's events (issue
 * 10): the real tax domain on the same test database writes its events, the agency's consumer
 * applies them (as its worker does, or in whatever order and as often as a test hands them over),
 * and every case checks the list against what the tax service itself answers at that moment.
 */
describe('tax status projection (domain)', () => {
  let harness: AgencyHarness;
  let taxDatabase: Database<TaxDatabase>;
  let tax: TaxDomain;
  beforeAll(async () => {
    harness = await startAgencyDomain();
    taxDatabase = openDatabase<TaxDatabase>({
      url: harness.databaseUrl,
      schema: SERVICE_CATALOG.tax.schema,
      poolMax: 2,
      applicationName: 'test-medium',
      logger: harness.logs.logger('db'),
    });
    tax = buildTaxDomain({ db: taxDatabase.db, clock: harness.clock, logger: harness.logs.logger('tax'), vault: testTinVault() });
  });
  afterAll(async () => {
    await taxDatabase.close();
    await harness.stop();
  });
  beforeEach(() => harness.clock.set(START));

  const consumer = taxStatuses as unknown as EventConsumer<AgencyDatabase, EventType>;
  /** Applies every tax event not applied yet, in the order written (the relay and the agency's worker). */
  const project = () =>
    deliverProducedEvents(harness.sql, SERVICE_CATALOG.tax.schema, harness.db, [consumer], harness.clock, harness.logs.logger('projection'));

  interface OutboxRow {
    id: string;
    type: EventType;
    project_id: string;
    payload: Record<string, unknown>;
    created_at: Date;
  }
  const outbox = async (projectId: string): Promise<OutboxRow[]> =>
    (
      await harness.sql.query<OutboxRow>('SELECT id, type, project_id, payload, created_at FROM tax.outbox WHERE project_id = $1 ORDER BY seq', [
        projectId,
      ])
    ).rows;
  /** One event, as the worker hands it over (`id` another to replay its payload as a new event). */
  const deliver = (row: OutboxRow, id = row.id) =>
    deliverEvent(
      harness.db,
      consumer,
      { id, type: row.type, projectId: row.project_id, payload: row.payload, createdAt: row.created_at.toISOString() },
      harness.clock,
      harness.logs.logger('consumer'),
    );

  async function taxProject(requireTaxInfo = true) {
    const projectId = newProject();
    if (requireTaxInfo) await tax.settings.update(projectId, ['require_tax_info'], { requireTaxInfo: true });
    return projectId;
  }
  async function affiliate(projectId: string) {
    return (await newAffiliate(harness, projectId)).user;
  }
  const submit = (projectId: string, user: { identifier: string; identifierType: string }, form = w9()) =>
    tax.taxInfo.submit(projectId, user, formInput(form));

  /** Each user's tax_status as the list shows it now, beside what the tax service answers now. */
  async function answers(projectId: string, users: ReadonlyArray<{ identifier: string; identifierType: string }>) {
    const { records } = await harness.domain.affiliates.list(projectId, {}, { page: 1, pageSize: 100, offset: 0 });
    const listed = new Map(records.map((record) => [record.user.identifier, record.taxStatus]));
    const own = await tax.taxInfo.statuses(projectId, [...users]);
    return { listed: users.map((user) => listed.get(user.identifier)), tax: own.map((view) => view.status) };
  }
  /** The list's statuses, checked equal to the tax service's own answer. */
  async function listedStatuses(projectId: string, users: ReadonlyArray<{ identifier: string; identifierType: string }>) {
    const both = await answers(projectId, users);
    expect(both.listed).toEqual(both.tax);
    return both.listed;
  }

  it('follows a submission, an approval, a revocation and a new submission, as the tax service answers each', async () => {
    const projectId = await taxProject();
    const [ann, ben] = [await affiliate(projectId), await affiliate(projectId)];
    await project();
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['not_submitted', 'not_submitted']);
    await submit(projectId, ann);
    await project();
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['submitted', 'not_submitted']);
    harness.clock.advance(1_000);
    await tax.review.approve(projectId, ann, ADMIN);
    await project();
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['approved', 'not_submitted']);
    harness.clock.advance(1_000);
    await tax.review.revoke(projectId, ann, ADMIN, 'TIN does not match');
    await project();
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['revoked', 'not_submitted']);
    harness.clock.advance(1_000);
    await submit(projectId, ann);
    await project();
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['submitted', 'not_submitted']);
  });

  it('changes nothing on a redelivery, nor on a replay of an older change under a new id', async () => {
    const projectId = await taxProject();
    const ann = await affiliate(projectId);
    await submit(projectId, ann);
    await tax.review.approve(projectId, ann, ADMIN);
    await project();
    expect(await listedStatuses(projectId, [ann])).toEqual(['approved']);
    const [settings, submitted, approved] = await outbox(projectId);
    expect([settings!.type, submitted!.payload.to, approved!.payload.to]).toEqual(['tax.tax_settings.changed', 'submitted', 'approved']);
    expect(await deliver(approved!)).toBe('duplicate');
    expect(await deliver(submitted!, randomUUID())).toBe('handled');
    expect(await listedStatuses(projectId, [ann])).toEqual(['approved']);
    const { rows } = await harness.sql.query('SELECT status, version FROM agency.tax_statuses WHERE project_id = $1', [projectId]);
    expect(rows).toEqual([{ status: 'approved', version: approved!.payload.version }]);
  });

  it('keeps the newest change whatever order the events arrive in', async () => {
    const projectId = await taxProject();
    const [ann, ben] = [await affiliate(projectId), await affiliate(projectId)];
    await submit(projectId, ann);
    await submit(projectId, ben);
    harness.clock.advance(1_000);
    await tax.review.approve(projectId, ann, ADMIN);
    await tax.review.approve(projectId, ben, ADMIN);
    harness.clock.advance(1_000);
    await tax.review.revoke(projectId, ann, ADMIN, 'Name does not match');
    // Newest first: every older change arrives after the one that overtook it.
    for (const row of (await outbox(projectId)).reverse()) expect(await deliver(row)).toBe('handled');
    expect(await listedStatuses(projectId, [ann, ben])).toEqual(['revoked', 'approved']);
  });

  it('follows the project’s settings, turned off and on, in whatever order those events arrive', async () => {
    const projectId = await taxProject();
    const ann = await affiliate(projectId);
    await submit(projectId, ann);
    await project();
    expect(await listedStatuses(projectId, [ann])).toEqual(['submitted']);
    await tax.settings.update(projectId, ['require_tax_info'], { requireTaxInfo: false });
    await project();
    expect(await listedStatuses(projectId, [ann])).toEqual(['not_required']);
    // A write that leaves require_tax_info as it was is announced too (the state after it, counted).
    await tax.settings.update(projectId, ['company_legal_name'], { companyLegalName: 'Acme Inc.' });
    await tax.settings.update(projectId, ['require_tax_info'], { requireTaxInfo: true });
    const settingsEvents = (await outbox(projectId)).filter((row) => row.type === 'tax.tax_settings.changed');
    expect(settingsEvents.map((row) => [row.payload.require_tax_info, row.payload.version])).toEqual([
      [true, '1'],
      [false, '2'],
      [false, '3'],
      [true, '4'],
    ]);
    // The last write first, then the older ones: the projection keeps the last.
    for (const row of settingsEvents.slice(2).reverse()) await deliver(row);
    expect(await listedStatuses(projectId, [ann])).toEqual(['submitted']);
  });

  it('reads an approved W-8 past its expires_at as expired at once, before the sweep announces it', async () => {
    const projectId = await taxProject();
    const ann = await affiliate(projectId);
    await submit(projectId, ann, w8ben());
    const approved = await tax.review.approve(projectId, ann, ADMIN);
    await project();
    expect(approved.expiresAt).not.toBeNull();
    harness.clock.set(new Date(approved.expiresAt!.getTime() - 1));
    expect(await listedStatuses(projectId, [ann])).toEqual(['approved']);
    // Expiry is inclusive, as the tax service's rule says (the rule both services share).
    harness.clock.set(approved.expiresAt!);
    expect(await listedStatuses(projectId, [ann])).toEqual(['expired']);
    expect(await tax.expiry.expireDue()).toBeGreaterThanOrEqual(1);
    await project();
    expect(await listedStatuses(projectId, [ann])).toEqual(['expired']);
    // A new form after the expiry: submitted again, the swept expiry (older) never overwriting it.
    await submit(projectId, ann, w8ben({ signature_date: approved.expiresAt!.toISOString().slice(0, 10) }));
    await project();
    expect(await listedStatuses(projectId, [ann])).toEqual(['submitted']);
  });

  it('applies an event written before events carried a version only where the projection has nothing', async () => {
    const projectId = await taxProject();
    const [ann, ben] = [await affiliate(projectId), await affiliate(projectId)];
    await submit(projectId, ann);
    await project();
    const old = (user: { identifier: string }, to: string) => ({
      id: randomUUID(),
      type: 'tax.tax_status.changed' as const,
      project_id: projectId,
      payload: {
        project_id: projectId,
        user: { identifier: user.identifier, identifier_type: 'evm_address' },
        from: 'submitted',
        to,
        changed_at: START,
      },
      created_at: new Date(START),
    });
    expect(await deliver(old(ann, 'revoked'))).toBe('handled');
    expect(await deliver(old(ben, 'approved'))).toBe('handled');
    expect((await answers(projectId, [ann, ben])).listed).toEqual(['submitted', 'approved']);
  });

  it('fills the projection for records and settings older than it from the tax migration’s published state', async () => {
    const projectId = await taxProject();
    const [ann, ben, cleo] = [await affiliate(projectId), await affiliate(projectId), await affiliate(projectId)];
    await submit(projectId, ann, w8ben());
    await submit(projectId, ben);
    const approved = await tax.review.approve(projectId, ann, ADMIN);
    // As in a deployment older than the projection: the records and settings exist, no event the agency can read does.
    await harness.sql.query('DELETE FROM tax.outbox WHERE project_id = $1', [projectId]);
    await publishTaxState(taxDatabase.db as unknown as Kysely<unknown>);
    const published = (await outbox(projectId)).map((row) => row.payload);
    expect(published).toEqual([
      { project_id: projectId, require_tax_info: true, version: '1', changed_at: START },
      {
        project_id: projectId,
        records: expect.arrayContaining([
          {
            user: { identifier: ann.identifier, identifier_type: 'evm_address' },
            status: 'approved',
            expires_at: approved.expiresAt!.toISOString(),
            version: expect.stringMatching(/^[1-9][0-9]*$/),
          },
          {
            user: { identifier: ben.identifier, identifier_type: 'evm_address' },
            status: 'submitted',
            expires_at: null,
            version: expect.stringMatching(/^[1-9][0-9]*$/),
          },
        ]),
      },
    ]);
    await project();
    expect(await listedStatuses(projectId, [ann, ben, cleo])).toEqual(['approved', 'submitted', 'not_submitted']);
    harness.clock.set(approved.expiresAt!);
    expect(await listedStatuses(projectId, [ann, ben, cleo])).toEqual(['expired', 'submitted', 'not_submitted']);
    // A change after the publication wins over it, even when the publication arrives again later.
    await tax.review.revoke(projectId, ben, ADMIN, 'Incomplete');
    await project();
    const publication = (await outbox(projectId)).find((row) => row.type === 'tax.tax_statuses.published')!;
    expect(await deliver(publication, randomUUID())).toBe('handled');
    expect(await listedStatuses(projectId, [ann, ben, cleo])).toEqual(['expired', 'revoked', 'not_submitted']);
  });
});
