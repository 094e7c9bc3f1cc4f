import { createProject } from '../helpers/fixtures';
import { startStack, TEST_PLATFORM_KEY, type TestStack } from '../helpers/stack';

describe('projects and API keys', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  describe('POST /api/v1/projects', () => {
    it('creates a project with one key of each role, shown in full once', async () => {
      const response = await stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name: '  Spring campaign ' } });

      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ id: expect.any(String), name: 'Spring campaign', created_at: expect.any(String) });
      expect(response.body.api_keys.map((key: { role: string }) => key.role).sort()).toEqual([
        'admin',
        'read_only',
        'send:tracking_event',
        'service_role',
      ]);
      for (const key of response.body.api_keys) expect(key.key).toMatch(/^rk_[a-z]+_[A-Za-z0-9_-]{43}$/);

      const listed = await stack.api.get(`/api/v1/projects/${response.body.id}/api-keys`, { key: response.body.api_keys[0].key });
      expect(listed.status).toBe(200);
      expect(listed.body.total_results).toBe(4);
      expect(JSON.stringify(listed.body)).not.toContain(response.body.api_keys[1].key);
      expect(listed.body.results[0]).toEqual({
        id: expect.any(String),
        role: expect.any(String),
        name: expect.any(String),
        key_prefix: expect.stringMatching(/^rk_/),
        created_at: expect.any(String),
      });
    });

    it('stores only hashes of the keys', async () => {
      const project = await createProject(stack);
      const { rows } = await stack.db.query('SELECT key_hash, key_prefix FROM access.api_keys WHERE project_id = $1', [project.id]);
      expect(rows).toHaveLength(4);
      const everything = JSON.stringify(rows.map((row) => [row.key_hash.toString('utf8'), row.key_prefix]));
      for (const key of Object.values(project.keys)) expect(everything).not.toContain(key);
    });

    it('answers 401 without the platform key or with a wrong one, and creates nothing', async () => {
      const before = await stack.db.query('SELECT count(*)::int AS n FROM access.projects');
      const missing = await stack.api.post('/api/v1/projects', { body: { name: 'x' } });
      const wrong = await stack.api.post('/api/v1/projects', { key: `${TEST_PLATFORM_KEY}x`, body: { name: 'x' } });
      const projectKey = await stack.api.post('/api/v1/projects', { key: (await createProject(stack)).keys.admin, body: { name: 'x' } });

      for (const response of [missing, wrong]) {
        expect(response.status).toBe(401);
        expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', details: [] });
      }
      // A project's key is valid, but not the kind this path takes (test/auth/sign-in.test.ts has every combination).
      expect(projectKey.body).toMatchObject({ status: 401, code: 'WRONG_CREDENTIAL_KIND', details: [] });
      const after = await stack.db.query('SELECT count(*)::int AS n FROM access.projects');
      expect(after.rows[0].n).toBe(before.rows[0].n + 1);
    });

    it('rejects an empty or unknown-field body with 400', async () => {
      const empty = await stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name: '   ' } });
      expect(empty.status).toBe(400);
      expect(empty.body.details).toEqual([{ field: 'name', reason: expect.any(String) }]);
      const extra = await stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name: 'ok', owner: 'me' } });
      expect(extra.status).toBe(400);
      expect(extra.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('API keys', () => {
    it('creates a key of the asked role that works at once', async () => {
      const project = await createProject(stack);
      const created = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
        key: project.keys.admin,
        body: { role: 'service_role', name: 'backend' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ role: 'service_role', name: 'backend', key: expect.stringMatching(/^rk_service_/) });

      const used = await stack.api.get('/v1/audiences/audience-segments', { key: created.body.key });
      expect(used.status).toBe(200);
    });

    it('refuses an unknown role with 400', async () => {
      const project = await createProject(stack);
      const response = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
        key: project.keys.admin,
        body: { role: 'owner', name: 'x' },
      });
      expect(response.status).toBe(400);
      expect(response.body.details[0].field).toBe('role');
    });

    it('revokes a key, after which it answers 401', async () => {
      const project = await createProject(stack);
      // Used once so the gateway has it cached: revocation must still take effect at once.
      expect((await stack.api.get('/v1/audiences/audience-segments', { key: project.keys.service })).status).toBe(200);

      const revoked = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${project.keyIds.service}`, { key: project.keys.admin });
      expect(revoked.status).toBe(204);

      const after = await stack.api.get('/v1/audiences/audience-segments', { key: project.keys.service });
      expect(after.status).toBe(401);
      const listed = await stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.admin });
      expect(listed.body.results.map((key: { id: string }) => key.id)).not.toContain(project.keyIds.service);
      const again = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${project.keyIds.service}`, { key: project.keys.admin });
      expect(again.status).toBe(404);
    });

    it('says which key a request is made with, its role without its secret, to admin and read_only keys', async () => {
      const project = await createProject(stack);
      const current = (key: string) => stack.api.get(`/api/v1/projects/${project.id}/api-keys/current`, { key });
      const readOnly = await current(project.keys.readOnly);
      expect(readOnly.status).toBe(200);
      expect(readOnly.body).toEqual({
        id: project.keyIds.readOnly,
        role: 'read_only',
        name: 'default read_only key',
        key_prefix: expect.stringMatching(/^rk_/),
        created_at: expect.any(String),
      });
      expect(JSON.stringify(readOnly.body)).not.toContain(project.keys.readOnly);
      expect((await current(project.keys.admin)).body).toMatchObject({ id: project.keyIds.admin, role: 'admin' });
      expect((await current(project.keys.service)).status).toBe(403);
    });

    it('will not revoke the last admin key of a project', async () => {
      const project = await createProject(stack);
      const response = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${project.keyIds.admin}`, { key: project.keys.admin });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('LAST_ADMIN_KEY');
      expect((await stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.admin })).status).toBe(200);
    });
  });

  describe('access rules across projects and roles', () => {
    it('answers 404 to a key of another project, for every project-scoped route', async () => {
      const a = await createProject(stack, 'A');
      const b = await createProject(stack, 'B');
      const probes = [
        stack.api.get(`/api/v1/projects/${b.id}/api-keys`, { key: a.keys.admin }),
        stack.api.post(`/api/v1/projects/${b.id}/api-keys`, { key: a.keys.admin, body: { role: 'admin', name: 'x' } }),
        stack.api.delete(`/api/v1/projects/${b.id}/api-keys/${b.keyIds.service}`, { key: a.keys.admin }),
        stack.api.get(`/api/v1/projects/${b.id}/audiences`, { key: a.keys.admin }),
        stack.api.post(`/api/v1/projects/${b.id}/audiences`, { key: a.keys.admin, body: { name: 'x' } }),
      ];
      for (const response of await Promise.all(probes)) {
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('PROJECT_NOT_FOUND');
      }
      // Still usable by its own project.
      expect((await stack.api.get('/v1/audiences/audience-segments', { key: b.keys.service })).status).toBe(200);
    });

    it('answers 403 to a key of the wrong role', async () => {
      const project = await createProject(stack);
      const cases = [
        stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.service }),
        stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.readOnly }),
        stack.api.post(`/api/v1/projects/${project.id}/audiences`, { key: project.keys.readOnly, body: { name: 'x' } }),
        stack.api.post(`/api/v1/projects/${project.id}/audiences`, { key: project.keys.service, body: { name: 'x' } }),
        stack.api.get('/v1/audiences/audience-segments', { key: project.keys.admin }),
        stack.api.post('/v1/audience-segments/00000000-0000-0000-0000-000000000000/badge', {
          key: project.keys.readOnly,
          body: { name: 'x' },
        }),
      ];
      for (const response of await Promise.all(cases)) {
        expect(response.status).toBe(403);
        expect(response.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      }
    });

    it('lets a read_only key read', async () => {
      const project = await createProject(stack);
      expect((await stack.api.get(`/api/v1/projects/${project.id}/audiences`, { key: project.keys.readOnly })).status).toBe(200);
      expect((await stack.api.get('/v1/audiences/audience-segments', { key: project.keys.readOnly })).status).toBe(200);
    });

    it('answers 401 to a missing, malformed or unknown key', async () => {
      const project = await createProject(stack);
      const responses = await Promise.all([
        stack.api.get('/v1/audiences/audience-segments'),
        stack.api.get('/v1/audiences/audience-segments', { headers: { authorization: `Basic ${project.keys.service}` } }),
        stack.api.get('/v1/audiences/audience-segments', { key: 'rk_service_unknown' }),
      ]);
      for (const response of responses) {
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
      }
    });
  });
});

describe('a deployment without PLATFORM_API_KEY', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ gatewayEnv: { PLATFORM_API_KEY: undefined } });
  });
  afterAll(() => stack.stop());

  it('answers 403 to project creation and says why at start-up', async () => {
    const response = await stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name: 'x' } });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('PLATFORM_KEY_NOT_CONFIGURED');
    expect(stack.logs.text()).toContain('PLATFORM_API_KEY is not set');
  });
});
