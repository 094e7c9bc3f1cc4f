import { randomBytes } from 'node:crypto';
import { createProject, createSegment, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

/**
 * The referral link over HTTP: the project's program URL and link template (admin, read by
 * read_only keys), and the signed-in wallet's affiliate record in the portal, each code with its
 * link. Membership is the affiliate record, however it was made (an admin here, an application,
 * the SDK), never the wallet's application.
 */
describe('program settings and the portal’s affiliate (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const settingsPath = (p: TestProject = project) => `/api/v1/projects/${p.id}/program-settings`;
  const portalAffiliate = (p: TestProject = project) => `/api/v1/projects/${p.id}/affiliate-portal/affiliate`;
  const admin = () => ({ key: project.keys.admin });
  const newCode = (prefix: string) => `${prefix}_${randomBytes(3).toString('hex')}`;

  async function adminAffiliate(wallet: TestWallet, code: string, p: TestProject = project) {
    const created = await stack.api.post(`/api/v1/projects/${p.id}/affiliates`, {
      key: p.keys.admin,
      body: { identifier: wallet.checksumAddress, identifier_type: 'evm_address', name: 'Made by an admin', code },
    });
    if (created.status !== 201) throw new Error(`affiliate creation failed: ${created.status} ${created.text}`);
    return created.body as { id: string };
  }

  it('answers the defaults until set, then each change, and refuses a bad value naming its field without changing anything', async () => {
    const fresh = await createProject(stack);
    const read = (key = fresh.keys.admin) => stack.api.get(settingsPath(fresh), { key });
    expect(await read()).toMatchObject({
      status: 200,
      body: {
        program_url: null,
        link_template: '{program_url}?af={code}',
        default_link_template: '{program_url}?af={code}',
        example_link: null,
        updated_at: null,
      },
    });

    const patch = (body: Record<string, unknown>, key = fresh.keys.admin) => stack.api.patch(settingsPath(fresh), { key, body });
    expect(await patch({ program_url: 'https://example.com/join' })).toMatchObject({
      status: 200,
      body: {
        program_url: 'https://example.com/join',
        link_template: '{program_url}?af={code}',
        example_link: 'https://example.com/join?af=EXAMPLE',
        updated_at: expect.any(String),
      },
    });
    expect((await patch({ link_template: '{program_url}/r/{code}?utm_source=affiliates' })).body).toMatchObject({
      program_url: 'https://example.com/join',
      example_link: 'https://example.com/join/r/EXAMPLE?utm_source=affiliates',
    });

    for (const [body, field] of [
      [{ program_url: 'example.com' }, 'program_url'],
      [{ program_url: 'https://example.com/?ref=1' }, 'program_url'],
      [{ link_template: 'https://example.com/?af=' }, 'link_template'],
      [{ link_template: '{program_url}?af={code}&u={user}' }, 'link_template'],
      [{ program_url: 42 }, 'program_url'],
      [{ colour: 'blue' }, ''],
    ] as const) {
      const refused = await patch(body);
      expect(refused).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      if (field) expect(refused.body.details).toEqual([expect.objectContaining({ field })]);
    }
    expect((await read()).body).toMatchObject({
      program_url: 'https://example.com/join',
      link_template: '{program_url}/r/{code}?utm_source=affiliates',
    });

    // null clears the program URL, and returns the template to the default.
    expect((await patch({ program_url: null, link_template: null })).body).toMatchObject({
      program_url: null,
      link_template: '{program_url}?af={code}',
      example_link: null,
    });

    // read_only keys read; only admin keys write; another project's key sees nothing.
    expect((await read(fresh.keys.readOnly)).status).toBe(200);
    expect((await patch({ program_url: 'https://example.com' }, fresh.keys.readOnly)).status).toBe(403);
    expect((await read(project.keys.admin)).status).toBe(404);
  });

  it('lets an affiliate made by an admin find itself in the portal, each code with its link once the program has one', async () => {
    const wallet = await newWallet();
    const first = newCode('FIRST');
    const affiliate = await adminAffiliate(wallet, first);
    const token = await signIn(stack, wallet);
    // Never applied: the application path has nothing, yet the wallet is an affiliate.
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliate-portal/application`, { key: token })).status).toBe(404);

    const before = await stack.api.get(portalAffiliate(), { key: token });
    expect(before).toMatchObject({
      status: 200,
      body: { id: affiliate.id, identifier: wallet.address, status: 'active', program_url: null, codes: [{ code: first, uses: 0, link: null }] },
    });

    expect((await stack.api.patch(settingsPath(), { ...admin(), body: { program_url: 'https://app.example.org' } })).status).toBe(200);
    const second = newCode('second');
    expect((await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/codes`, { key: token, body: { code: second } })).status).toBe(201);
    expect((await stack.api.get(portalAffiliate(), { key: token })).body).toMatchObject({
      program_url: 'https://app.example.org',
      codes: [
        { code: first, link: `https://app.example.org?af=${first}` },
        { code: second, link: `https://app.example.org?af=${second}` },
      ],
    });

    // A template of the project's own, even one that does not use the program URL.
    expect(
      (await stack.api.patch(settingsPath(), { ...admin(), body: { link_template: 'https://join.example.org/?af={code}&src=portal' } })).status,
    ).toBe(200);
    expect((await stack.api.get(portalAffiliate(), { key: token })).body.codes[0]).toMatchObject({
      link: `https://join.example.org/?af=${first}&src=portal`,
    });

    // It cannot apply (it is an affiliate): the portal reads that from this record, not from an application.
    expect(
      await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, { key: token, body: { name: 'Again' } }),
    ).toMatchObject({
      status: 409,
      body: { code: 'AFFILIATE_EXISTS' },
    });
  });

  it('answers 404 AFFILIATE_NOT_FOUND for a wallet that is no affiliate, also while its application waits, and the affiliate once approved', async () => {
    const wallet = await newWallet();
    const token = await signIn(stack, wallet);
    expect(await stack.api.get(portalAffiliate(), { key: token })).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    const applied = await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, { key: token, body: { name: 'Applicant' } });
    expect(applied.status).toBe(201);
    expect((await stack.api.get(portalAffiliate(), { key: token })).status).toBe(404);
    const audience = await createSegment(stack, project);
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/applications/${applied.body.id}/approve`, {
          ...admin(),
          body: { audience_id: audience.id },
        })
      ).status,
    ).toBe(200);
    expect(await stack.api.get(portalAffiliate(), { key: token })).toMatchObject({ status: 200, body: { identifier: wallet.address } });
  });

  it('keeps a wallet’s affiliate record to its own project, and the path to wallet sessions', async () => {
    const other = await createProject(stack);
    const wallet = await newWallet();
    await adminAffiliate(wallet, newCode('OTHER'), other);
    const token = await signIn(stack, wallet);
    expect((await stack.api.get(portalAffiliate(other), { key: token })).status).toBe(200);
    expect(await stack.api.get(portalAffiliate(), { key: token })).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    expect(await stack.api.get(portalAffiliate(), admin())).toMatchObject({ status: 401, body: { code: 'WRONG_CREDENTIAL_KIND' } });
  });
});
