import { QueueKit } from '../../services/common/queue';
import { w8ExpiresAt } from '../../services/tax/domain/w8-expiry';
import { expireW8FormsJob } from '../../services/tax/jobs/expire-w8-forms.job';
import { createProject, type TestProject } from '../helpers/fixtures';
import { runJob } from '../helpers/jobs';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, requireTaxInfo, signedInAffiliate, statusEvents, taxRecords, w8ben, w8bene, w9 } from './tax-forms';

const START = '2026-11-21T12:00:00.000Z';
const DAY = 24 * 3_600_000;

describe('W-8 expiry', () => {
  let stack: TestStack;
  let queues: QueueKit;
  beforeAll(async () => {
    stack = await startStack();
    queues = new QueueKit({ redisUrl: stack.redisUrl, prefix: stack.queuePrefix, logger: stack.logs.logger('test-queue') });
    await queues.ready();
  });
  afterAll(async () => {
    await queues.close();
    await stack.stop();
  });

  /** Runs the sweep through BullMQ (the service's own worker) and waits, bounded, for it to finish. */
  async function sweep(): Promise<number> {
    const result = (await runJob(queues, expireW8FormsJob, {})) as { expired: number };
    return result.expired;
  }

  async function approvedAffiliate(project: TestProject, form: Record<string, unknown>): Promise<{ affiliate: Affiliate; approved: { expires_at: string | null } }> {
    const affiliate = await signedInAffiliate(stack, project);
    const submitted = await affiliate.submit(form);
    if (submitted.status !== 201) throw new Error(`submission failed: ${submitted.text}`);
    const approved = await stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
    if (approved.status !== 200) throw new Error(`approval failed: ${approved.text}`);
    return { affiliate, approved: approved.body };
  }

  const rowOf = async (project: TestProject, affiliate: Affiliate) =>
    (await taxRecords(stack, project.id)).find((row) => row.identifier === affiliate.wallet.address && row.superseded_at === null);
  const expiredEvents = async (project: TestProject, affiliate: Affiliate) =>
    (await statusEvents(stack, project.id, affiliate.wallet.address)).filter((event) => event.to_status === 'expired');

  describe.each([
    ['three_years', 'w8ben', '2026-03-10', '2029-03-10T00:00:00.000Z'],
    ['irs_calendar', 'w8bene', '2026-03-10', '2030-01-01T00:00:00.000Z'],
  ])('under the %s rule (%s signed %s)', (rule, formType, signedOn, expiresAt) => {
    let project: TestProject;
    let affiliate: Affiliate;
    const at = (offsetMs: number) => new Date(new Date(expiresAt).getTime() + offsetMs);

    beforeAll(async () => {
      stack.clock.set(START);
      project = await createProject(stack);
      await requireTaxInfo(stack, project, { w8_expiry_rule: rule });
      const form = formType === 'w8ben' ? w8ben({ signature_date: signedOn }) : w8bene({ signature_date: signedOn });
      const result = await approvedAffiliate(project, form);
      affiliate = result.affiliate;
      expect(result.approved.expires_at).toBe(expiresAt);
    });
    afterAll(() => stack.clock.set(START));

    it('is approved a day before expires_at, and the sweep leaves it so', async () => {
      stack.clock.set(at(-DAY));
      expect((await affiliate.status()).body).toMatchObject({ status: 'approved', expires_at: expiresAt });
      await sweep();
      expect((await rowOf(project, affiliate)).status).toBe('approved');
      expect(await expiredEvents(project, affiliate)).toEqual([]);
    });

    it('is still approved one millisecond before expires_at', async () => {
      stack.clock.set(at(-1));
      expect((await affiliate.status()).body.status).toBe('approved');
      await sweep();
      expect((await rowOf(project, affiliate)).status).toBe('approved');
    });

    it('reads expired at expires_at itself, before the sweep has written it down', async () => {
      stack.clock.set(at(0));
      expect((await affiliate.status()).body).toMatchObject({ status: 'expired', form_type: formType, expires_at: expiresAt });
      expect((await affiliate.taxInfo()).body.status).toBe('expired');
      expect((await rowOf(project, affiliate)).status).toBe('approved');
    });

    it('is moved to expired by the sweep at expires_at, with one history entry', async () => {
      stack.clock.set(at(0));
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      const row = await rowOf(project, affiliate);
      expect(row.status).toBe('expired');
      expect(row.expired_at).toEqual(new Date(expiresAt));
      expect(await expiredEvents(project, affiliate)).toEqual([
        expect.objectContaining({ from_status: 'approved', to_status: 'expired', actor_type: 'system', actor_id: null, occurred_at: new Date(expiresAt) }),
      ]);
    });

    it('stays expired a day after, and a repeated sweep records nothing twice', async () => {
      stack.clock.set(at(DAY));
      await sweep();
      await sweep();
      expect((await affiliate.status()).body.status).toBe('expired');
      expect(await expiredEvents(project, affiliate)).toHaveLength(1);
      const listed = await stack.api.get(`${adminPaths(project, '0x').submissions}?status=expired`, { key: project.keys.admin });
      expect(listed.body.results.map((item: { user_identifier: string }) => item.user_identifier)).toEqual([affiliate.wallet.address]);
    });
  });

  it('never expires a W-9', async () => {
    stack.clock.set(START);
    const project = await createProject(stack);
    await requireTaxInfo(stack, project);
    const { affiliate, approved } = await approvedAffiliate(project, w9());
    expect(approved.expires_at).toBeNull();

    stack.clock.set('2076-11-21T12:00:00.000Z');
    await sweep();
    expect((await affiliate.status()).body).toMatchObject({ status: 'approved', expires_at: null });
    expect((await rowOf(project, affiliate)).status).toBe('approved');
    stack.clock.set(START);
  });

  it('counts an approved W-8 past expires_at as expired in the review queue before the sweep', async () => {
    stack.clock.set(START);
    const project = await createProject(stack);
    const { affiliate } = await approvedAffiliate(project, w8ben({ signature_date: '2024-01-15' }));
    stack.clock.set('2027-01-15T00:00:00.000Z');
    const list = (status: string) => stack.api.get(`${adminPaths(project, '0x').submissions}?status=${status}`, { key: project.keys.admin });
    expect((await list('approved')).body.total_results).toBe(0);
    expect((await list('expired')).body.results.map((item: { user_identifier: string }) => item.user_identifier)).toEqual([affiliate.wallet.address]);
    stack.clock.set(START);
  });

  it('refuses to approve a W-8 that expired while it waited for review (409 TAX_FORM_EXPIRED)', async () => {
    stack.clock.set(START);
    const project = await createProject(stack);
    const affiliate = await signedInAffiliate(stack, project);
    expect((await affiliate.submit(w8ben({ signature_date: '2023-11-25' }))).status).toBe(201);
    stack.clock.set('2026-11-25T00:00:00.000Z');
    const response = await stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('TAX_FORM_EXPIRED');
    expect((await affiliate.status()).body.status).toBe('not_required');
    expect((await affiliate.taxInfo()).body.status).toBe('submitted');
    stack.clock.set(START);
  });

  it('applies a changed expiry rule to later approvals only', async () => {
    stack.clock.set(START);
    const project = await createProject(stack);
    const before = await approvedAffiliate(project, w8ben({ signature_date: '2026-03-10' }));
    await requireTaxInfo(stack, project, { w8_expiry_rule: 'irs_calendar' });
    const after = await approvedAffiliate(project, w8ben({ signature_date: '2026-03-10' }));
    expect(before.approved.expires_at).toBe('2029-03-10T00:00:00.000Z');
    expect(after.approved.expires_at).toBe('2030-01-01T00:00:00.000Z');
    expect((await before.affiliate.status()).body.expires_at).toBe('2029-03-10T00:00:00.000Z');
  });

  describe('the expiry rules', () => {
    it.each([
      ['2026-03-10', 'three_years', '2029-03-10T00:00:00.000Z'],
      ['2028-02-29', 'three_years', '2031-02-28T00:00:00.000Z'],
      ['2026-12-31', 'three_years', '2029-12-31T00:00:00.000Z'],
      ['2026-01-01', 'irs_calendar', '2030-01-01T00:00:00.000Z'],
      ['2026-12-31', 'irs_calendar', '2030-01-01T00:00:00.000Z'],
      ['2028-02-29', 'irs_calendar', '2032-01-01T00:00:00.000Z'],
    ] as const)('a W-8 signed %s under %s stops being valid at %s', (signed, rule, expected) => {
      expect(w8ExpiresAt(signed, rule).toISOString()).toBe(expected);
    });
  });
});
