import { QueueKit } from '../../services/platform/queue';
import { expireW8FormsJob } from '../../services/tax/jobs/expire-w8-forms.job';
import { createProject, type TestProject } from '../helpers/fixtures';
import { runJob } from '../helpers/jobs';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, requireTaxInfo, signedInAffiliate, statusEvents, taxRecords, w8ben, w8bene } from './tax-forms';

const START = '2026-11-21T12:00:00.000Z';

/**
 * W-8 expiry through HTTP and the sweep job. The rules' arithmetic, the boundary instants and
 * the sweep's step are tested on the domain in test/medium/tax/w8-expiry.test.ts.
 */
describe('W-8 expiry over HTTP and the sweep job', () => {
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
  afterEach(() => stack.clock.set(START));

  async function approvedAffiliate(
    project: TestProject,
    form: Record<string, unknown>,
  ): Promise<{ affiliate: Affiliate; approved: { expires_at: string | null } }> {
    const affiliate = await signedInAffiliate(stack, project);
    const submitted = await affiliate.submit(form);
    if (submitted.status !== 201) throw new Error(`submission failed: ${submitted.text}`);
    const approved = await stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
    if (approved.status !== 200) throw new Error(`approval failed: ${approved.text}`);
    return { affiliate, approved: approved.body };
  }

  it('is approved with the expiry of the project’s rule, reads expired at it, and the sweep job writes it down once', async () => {
    const project = await createProject(stack);
    await requireTaxInfo(stack, project, { w8_expiry_rule: 'irs_calendar' });
    const { affiliate, approved } = await approvedAffiliate(project, w8bene({ signature_date: '2026-03-10' }));
    expect(approved.expires_at).toBe('2030-01-01T00:00:00.000Z');

    stack.clock.set('2030-01-01T00:00:00.000Z');
    expect((await affiliate.status()).body).toMatchObject({ status: 'expired', form_type: 'w8bene', expires_at: '2030-01-01T00:00:00.000Z' });
    // Through BullMQ, run by the service's own worker: once, and again (idempotent).
    for (let run = 0; run < 2; run += 1) await runJob(queues, expireW8FormsJob, {});
    const row = (await taxRecords(stack, project.id)).find((record) => record.identifier === affiliate.wallet.address);
    expect(row).toMatchObject({ status: 'expired', expired_at: new Date('2030-01-01T00:00:00.000Z') });
    expect((await statusEvents(stack, project.id, affiliate.wallet.address)).filter((event) => event.to_status === 'expired')).toEqual([
      expect.objectContaining({ from_status: 'approved', actor_type: 'system', occurred_at: new Date('2030-01-01T00:00:00.000Z') }),
    ]);
    const listed = await stack.api.get(`${adminPaths(project, '0x').submissions}?status=expired`, { key: project.keys.admin });
    expect(listed.body).toMatchObject({ total_results: 1, results: [{ user_identifier: affiliate.wallet.address, status: 'expired' }] });
  });

  it('by default, expires a W-8 3 years after its approval, to the instant, whenever it was signed (specification §3.1)', async () => {
    const project = await createProject(stack);
    await requireTaxInfo(stack, project);
    const affiliate = await signedInAffiliate(stack, project);
    expect((await affiliate.submit(w8ben({ signature_date: '2021-05-04' }))).status).toBe(201);
    stack.clock.set('2026-12-02T09:15:30.000Z');
    const approved = await stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approved_at: '2026-12-02T09:15:30.000Z', expires_at: '2029-12-02T09:15:30.000Z' });

    stack.clock.set('2029-12-02T09:15:29.999Z');
    expect((await affiliate.status()).body).toMatchObject({ status: 'approved', expires_at: '2029-12-02T09:15:30.000Z' });
    stack.clock.set('2029-12-02T09:15:30.000Z');
    expect((await affiliate.status()).body).toMatchObject({ status: 'expired', expires_at: '2029-12-02T09:15:30.000Z' });
  });

  it('answers 409 TAX_FORM_EXPIRED to approve a W-8 that expired while it waited for review, under a rule counted from the signature', async () => {
    const project = await createProject(stack);
    await requireTaxInfo(stack, project, { w8_expiry_rule: 'three_years' });
    const affiliate = await signedInAffiliate(stack, project);
    expect((await affiliate.submit(w8ben({ signature_date: '2023-11-25' }))).status).toBe(201);
    stack.clock.set('2026-11-25T00:00:00.000Z');
    const response = await stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      status: 409,
      code: 'TAX_FORM_EXPIRED',
      message: expect.stringContaining('expired at 2026-11-25T00:00:00.000Z'),
      details: [],
    });
    expect((await affiliate.taxInfo()).body.status).toBe('submitted');
  });
});
