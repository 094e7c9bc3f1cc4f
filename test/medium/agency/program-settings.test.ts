import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { ADMIN, newProject } from './program-fixtures';

const START = '2026-11-21T12:00:00.000Z';

/**
 * A project's affiliate program settings (the parts of its referral links), on the domain and its
 * table: defaults, partial changes, clearing, and refusals that change nothing.
 */
describe('program settings (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
    harness.clock.set(START);
  });
  afterAll(() => harness.stop());

  const settings = () => harness.domain.programSettings;
  const stored = async (projectId: string) =>
    (await harness.sql.query('SELECT program_url, link_template, updated_by FROM agency.program_settings WHERE project_id = $1', [projectId])).rows;

  it('answers the defaults for a project that never wrote any, without writing', async () => {
    const projectId = newProject();
    expect(await settings().get(projectId)).toEqual({
      programUrl: null,
      linkTemplate: null,
      updatedAt: null,
      updatedBy: null,
      attributionWindowDays: 30,
      attributionModel: 'first_click',
    });
    expect(await stored(projectId)).toEqual([]);
  });

  it('changes only the fields listed, trims them, and clears one listed without a value', async () => {
    const projectId = newProject();
    expect(await settings().update(projectId, { mask: ['program_url'], programUrl: ' https://example.com/join ' }, ADMIN)).toEqual({
      programUrl: 'https://example.com/join',
      linkTemplate: null,
      updatedAt: new Date(START),
      updatedBy: ADMIN,
      attributionWindowDays: 30,
      attributionModel: 'first_click',
    });
    await settings().update(projectId, { mask: ['link_template'], linkTemplate: '{program_url}/r/{code}' }, ADMIN);
    expect(await settings().get(projectId)).toMatchObject({ programUrl: 'https://example.com/join', linkTemplate: '{program_url}/r/{code}' });
    // Listed without a value (null): cleared, the other kept.
    await settings().update(projectId, { mask: ['link_template'], linkTemplate: null }, null);
    expect(await stored(projectId)).toEqual([{ program_url: 'https://example.com/join', link_template: null, updated_by: null }]);
    await settings().update(projectId, { mask: ['program_url'] }, ADMIN);
    expect(await settings().get(projectId)).toMatchObject({ programUrl: null, linkTemplate: null });
    // Nothing listed: nothing written.
    await settings().update(projectId, { mask: [] }, 'someone-else');
    expect(await stored(projectId)).toEqual([{ program_url: null, link_template: null, updated_by: ADMIN }]);
  });

  it('refuses a bad program URL, a template without {code} and an unknown field at once, naming each, and changes nothing', async () => {
    const projectId = newProject();
    await settings().update(projectId, { mask: ['program_url'], programUrl: 'https://example.com' }, ADMIN);
    await expect(
      settings().update(
        projectId,
        { mask: ['program_url', 'link_template', 'colour'], programUrl: 'example.com', linkTemplate: 'https://example.com/?af=' },
        ADMIN,
      ),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'update_mask', reason: expect.stringContaining('colour') },
        { field: 'program_url', reason: expect.stringContaining('http or https') },
        { field: 'link_template', reason: expect.stringContaining('{code}') },
      ],
    });
    await expect(settings().update(projectId, { mask: ['program_url'], programUrl: '  ' }, ADMIN)).rejects.toMatchObject({
      details: [{ field: 'program_url' }],
    });
    expect(await stored(projectId)).toEqual([{ program_url: 'https://example.com', link_template: null, updated_by: ADMIN }]);
  });

  it('keeps each project’s settings its own', async () => {
    const [a, b] = [newProject(), newProject()];
    await settings().update(a, { mask: ['program_url'], programUrl: 'https://a.example' }, ADMIN);
    expect((await settings().get(b)).programUrl).toBeNull();
    await expect(settings().get('not-a-project')).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
  });
});
