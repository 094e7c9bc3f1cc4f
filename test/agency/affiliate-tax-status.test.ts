import { createProject, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import { taxEventsProjected } from '../helpers/agency-projections';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, requireTaxInfo, signedInAffiliate, w8ben, w9 } from '../tax/tax-forms';

const START = '2026-11-21T12:00:00.000Z';

/**
 * The affiliate list's tax_status over HTTP: the gateway no longer asks the tax service
 * for each page; the agency answers from its projection of the tax service's events, fed through
 * the real outbox relay, queues and worker. After every submission, review and settings change the
 * list must say what the tax service itself answers (the affiliate detail still asks it), once the
 * projection has applied the tax events written so far (a bounded wait).
 */
describe('the affiliate list’s tax_status follows the tax service (HTTP)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());
  afterEach(() => stack.clock.set(START));

  async function affiliateOf(project: TestProject, name: string): Promise<Affiliate> {
    const affiliate = await signedInAffiliate(stack, project);
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: affiliate.wallet.address, identifier_type: 'evm_address', name },
    });
    if (created.status !== 201) throw new Error(`affiliate creation failed: ${created.status} ${created.text}`);
    return affiliate;
  }

  /** Each affiliate's tax_status in the list and in its detail (the tax service's answer), once the projection caught up. */
  async function statuses(project: TestProject, affiliates: Affiliate[]) {
    await taxEventsProjected(stack);
    const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=100`, { key: project.keys.readOnly });
    expect(list.status).toBe(200);
    const listed = new Map(
      (list.body.results as Array<{ identifier: string; tax_status: string }>).map((item) => [item.identifier, item.tax_status]),
    );
    const own: string[] = [];
    for (const affiliate of affiliates) {
      const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate.wallet.address}`, { key: project.keys.readOnly });
      expect(detail.status).toBe(200);
      own.push(detail.body.tax_status);
    }
    const fromList = affiliates.map((affiliate) => listed.get(affiliate.wallet.address));
    expect(fromList).toEqual(own);
    return fromList;
  }

  const review = (project: TestProject, affiliate: Affiliate, action: 'approve' | 'revoke') =>
    stack.api.post(adminPaths(project, affiliate.wallet.address)[action], {
      key: project.keys.admin,
      ...(action === 'revoke' ? { body: { reason: 'TIN does not match' } } : {}),
    });

  it('follows submitting, approving, revoking and the project’s settings, as the tax service answers them', async () => {
    const project = await createProject(stack, 'Taxed program');
    const [ann, ben] = [await affiliateOf(project, 'Ann'), await affiliateOf(project, 'Ben')];
    expect(await statuses(project, [ann, ben])).toEqual(['not_required', 'not_required']);

    await requireTaxInfo(stack, project);
    expect(await statuses(project, [ann, ben])).toEqual(['not_submitted', 'not_submitted']);

    expect((await ann.submit(w9())).status).toBe(201);
    expect(await statuses(project, [ann, ben])).toEqual(['submitted', 'not_submitted']);

    expect((await review(project, ann, 'approve')).status).toBe(200);
    expect(await statuses(project, [ann, ben])).toEqual(['approved', 'not_submitted']);

    expect((await review(project, ann, 'revoke')).status).toBe(200);
    expect(await statuses(project, [ann, ben])).toEqual(['revoked', 'not_submitted']);

    const off = await stack.api.patch(adminPaths(project, '0x').settings, { key: project.keys.admin, body: { require_tax_info: false } });
    expect(off.status).toBe(200);
    expect(await statuses(project, [ann, ben])).toEqual(['not_required', 'not_required']);
  });

  it('reads an approved W-8 as expired from its expires_at on, before any sweep', async () => {
    const project = await createProject(stack, 'W-8 program');
    await requireTaxInfo(stack, project);
    const [cleo, dan] = [await affiliateOf(project, 'Cleo'), await affiliateOf(project, 'Dan')];
    expect((await cleo.submit(w8ben())).status).toBe(201);
    const approved = await review(project, cleo, 'approve');
    expect(approved.status).toBe(200);
    expect(await statuses(project, [cleo, dan])).toEqual(['approved', 'not_submitted']);
    stack.clock.set(approved.body.expires_at);
    expect(await statuses(project, [cleo, dan])).toEqual(['expired', 'not_submitted']);
  });

  it('answers an affiliate nobody told the tax service about as the project’s default', async () => {
    const project = await createProject(stack, 'Untaxed program');
    const identifier = randomEvmAddress();
    await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier, identifier_type: 'evm_address', name: 'Eve' },
    });
    const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates`, { key: project.keys.admin });
    expect(list.body.results).toEqual([expect.objectContaining({ identifier, tax_status: 'not_required' })]);
  });
});
