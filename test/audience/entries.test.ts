import { createProject, createSegment, evmAddress, mixedCase, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

describe('audience entries', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const addPath = (segmentId: string) => `/api/v1/projects/${project.id}/audiences/${segmentId}/entries`;
  const count = async (segmentId: string) =>
    (await stack.db.query('SELECT count(*)::int AS n FROM audience.entries WHERE segment_id = $1', [segmentId])).rows[0].n as number;

  describe('dashboard add (POST /api/v1/projects/:projectId/audiences/:audienceId/entries)', () => {
    it('adds a user and answers 201 with the entry', async () => {
      const segment = await createSegment(stack, project);
      const response = await stack.api.post(addPath(segment.id), {
        key: project.keys.admin,
        body: { identifier: evmAddress(1), identifier_type: 'evm_address' },
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        identifier: evmAddress(1),
        identifier_type: 'evm_address',
        kind: 'static',
        source: 'dashboard',
        added_at: stack.clock.now().toISOString(),
      });
      const fetched = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
      expect(fetched.body.entries_count).toBe(1);
    });

    it('answers 409 AUDIENCE_ENTRY_EXISTS when the user is already there, in any letter case', async () => {
      const segment = await createSegment(stack, project);
      const user = evmAddress(0xabcdef);
      await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier: user, identifier_type: 'evm_address' } });
      const again = await stack.api.post(addPath(segment.id), {
        key: project.keys.admin,
        body: { identifier: user.toUpperCase().replace('0X', '0x'), identifier_type: 'evm_address' },
      });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ status: 409, code: 'AUDIENCE_ENTRY_EXISTS', message: 'user is already in this audience', details: [] });
      expect(await count(segment.id)).toBe(1);
    });

    it('takes a service_role key as well (specification §5.1): 201, then 409 for the same user; a read_only key stays 403', async () => {
      const segment = await createSegment(stack, project);
      const body = { identifier: evmAddress(0x5e5), identifier_type: 'evm_address' };
      const added = await stack.api.post(addPath(segment.id), { key: project.keys.service, body });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ identifier: evmAddress(0x5e5), identifier_type: 'evm_address', kind: 'static' });
      const again = await stack.api.post(addPath(segment.id), { key: project.keys.service, body });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('AUDIENCE_ENTRY_EXISTS');
      const reader = await stack.api.post(addPath(segment.id), { key: project.keys.readOnly, body: { ...body, identifier: evmAddress(0x5e6) } });
      expect(reader.status).toBe(403);
      expect(await count(segment.id)).toBe(1);
    });

    it('refuses invalid identifiers and unknown types with 400, writing nothing', async () => {
      const segment = await createSegment(stack, project);
      const cases = [
        [{ identifier: '0x123', identifier_type: 'evm_address' }, 'identifier'],
        [{ identifier: evmAddress(1), identifier_type: 'bitcoin_address' }, 'identifier_type'],
        [{ identifier: 'not an email', identifier_type: 'email' }, 'identifier'],
        [{ identifier: evmAddress(1) }, 'identifier_type'],
      ] as const;
      for (const [body, field] of cases) {
        const response = await stack.api.post(addPath(segment.id), { key: project.keys.admin, body });
        expect(response.status).toBe(400);
        expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      expect(await count(segment.id)).toBe(0);
    });

    it('accepts the other identifier types in their own formats', async () => {
      const segment = await createSegment(stack, project);
      const users = [
        ['7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', 'solana_address'],
        [`0x${'ab'.repeat(32)}`, 'sui_address'],
        ['rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 'xrpl_address'],
        ['GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7', 'stellar_address'],
        ['Someone@Example.com', 'email'],
      ];
      for (const [identifier, identifier_type] of users) {
        const response = await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier, identifier_type } });
        expect(response.status).toBe(201);
      }
      const emails = await stack.db.query("SELECT identifier FROM audience.entries WHERE segment_id = $1 AND identifier_type = 'email'", [
        segment.id,
      ]);
      expect(emails.rows).toEqual([{ identifier: 'someone@example.com' }]);
    });
  });

  describe('listing (GET /v1/audience-segments/{segmentId}/entries)', () => {
    it('lists newest first, by page and by cursor, covering every entry exactly once', async () => {
      const segment = await createSegment(stack, project);
      const added: string[] = [];
      for (let i = 0; i < 7; i += 1) {
        const user = evmAddress(1_000 + i);
        await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier: user, identifier_type: 'evm_address' } });
        added.push(user);
        stack.clock.advance(1_000);
      }
      const newestFirst = [...added].reverse();

      const page2 = await stack.api.get(`/v1/audience-segments/${segment.id}/entries?page=2&page_size=3`, { key: project.keys.service });
      expect(page2.status).toBe(200);
      expect(page2.body).toMatchObject({ total_results: 7, page: 2, page_size: 3 });
      expect(page2.body.results.map((e: { identifier: string }) => e.identifier)).toEqual(newestFirst.slice(3, 6));

      const walked: string[] = [];
      const pages: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `page_size=3&cursor=${encodeURIComponent(cursor)}` : 'page_size=3';
        const response = await stack.api.get(`/v1/audience-segments/${segment.id}/entries?${query}`, { key: project.keys.readOnly });
        expect(response.status).toBe(200);
        walked.push(...response.body.results.map((e: { identifier: string }) => e.identifier));
        pages.push(response.body.page);
        cursor = response.body.next_cursor;
      } while (cursor);
      expect(walked).toEqual(newestFirst);
      expect(pages).toEqual([1, 2, 3]);
    });

    it('refuses a forged cursor with 400', async () => {
      const segment = await createSegment(stack, project);
      const response = await stack.api.get(`/v1/audience-segments/${segment.id}/entries?cursor=bm9wZQ`, { key: project.keys.service });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('INVALID_CURSOR');
    });
  });

  describe('removal (DELETE /v1/audience-segments/{segmentId}/entries/{userIdentifier})', () => {
    it('removes a user given in any letter case and answers 204, then 404', async () => {
      const segment = await createSegment(stack, project);
      const user = evmAddress(0xfeed);
      await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier: user, identifier_type: 'evm_address' } });

      const removed = await stack.api.delete(`/v1/audience-segments/${segment.id}/entries/${mixedCase(user)}`, { key: project.keys.service });
      expect(removed.status).toBe(204);
      expect(await count(segment.id)).toBe(0);
      const fetched = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
      expect(fetched.body.entries_count).toBe(0);

      const again = await stack.api.delete(`/v1/audience-segments/${segment.id}/entries/${user}`, { key: project.keys.service });
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('AUDIENCE_ENTRY_NOT_FOUND');
    });

    it('narrows by user_identifier_type', async () => {
      const segment = await createSegment(stack, project);
      const user = 'someone@example.com';
      await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier: user, identifier_type: 'email' } });

      const wrongType = await stack.api.delete(`/v1/audience-segments/${segment.id}/entries/${user}?user_identifier_type=evm_address`, {
        key: project.keys.service,
      });
      expect(wrongType.status).toBe(400);
      const right = await stack.api.delete(`/v1/audience-segments/${segment.id}/entries/${user}?user_identifier_type=email`, {
        key: project.keys.service,
      });
      expect(right.status).toBe(204);
    });

    it('answers 404 for a segment of another project', async () => {
      const other = await createProject(stack);
      const foreign = await createSegment(stack, other);
      await stack.api.post(`/api/v1/projects/${other.id}/audiences/${foreign.id}/entries`, {
        key: other.keys.admin,
        body: { identifier: evmAddress(9), identifier_type: 'evm_address' },
      });
      const response = await stack.api.delete(`/v1/audience-segments/${foreign.id}/entries/${evmAddress(9)}`, { key: project.keys.service });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('AUDIENCE_NOT_FOUND');
      expect(await count(foreign.id)).toBe(1);
    });
  });

  describe('dashboard removal (DELETE /api/v1/projects/:projectId/audiences/:audienceId/entries/:userIdentifier)', () => {
    it('removes a user for an admin key (204, then 404), refuses a read_only key, and touches no other project’s audience', async () => {
      const segment = await createSegment(stack, project);
      const user = evmAddress(0xdead);
      await stack.api.post(addPath(segment.id), { key: project.keys.admin, body: { identifier: user, identifier_type: 'evm_address' } });
      const entryPath = `${addPath(segment.id)}/${mixedCase(user)}?user_identifier_type=evm_address`;

      expect((await stack.api.delete(entryPath, { key: project.keys.readOnly })).status).toBe(403);
      expect(await count(segment.id)).toBe(1);
      expect((await stack.api.delete(entryPath, { key: project.keys.admin })).status).toBe(204);
      expect(await count(segment.id)).toBe(0);
      const again = await stack.api.delete(entryPath, { key: project.keys.admin });
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('AUDIENCE_ENTRY_NOT_FOUND');

      const other = await createProject(stack);
      const foreign = await createSegment(stack, other);
      await stack.api.post(`/api/v1/projects/${other.id}/audiences/${foreign.id}/entries`, {
        key: other.keys.admin,
        body: { identifier: user, identifier_type: 'evm_address' },
      });
      const crossed = await stack.api.delete(`${addPath(foreign.id)}/${user}`, { key: project.keys.admin });
      expect(crossed.status).toBe(404);
      expect(await count(foreign.id)).toBe(1);
    });
  });
});
