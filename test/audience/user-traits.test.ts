import { createProject, evmAddress, mixedCase, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

const trait = (n: number, name: string, value: unknown, updatedAt?: string) => ({
  identifier: evmAddress(n),
  identifier_type: 'evm_address',
  name,
  value,
  ...(updatedAt ? { updated_at: updatedAt } : {}),
});

/** User traits: POST /v1/user-traits/batch and GET /v1/user-traits, through the real stack. */
describe('user traits (POST /v1/user-traits/batch, GET /v1/user-traits)', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const push = (traits: unknown[], key = project.keys.service) => stack.api.post('/v1/user-traits/batch', { key, body: { traits } });
  const traitsOf = async (n: number, key = project.keys.service, query = '') => {
    const response = await stack.api.get(`/v1/user-traits?user_identifier=${evmAddress(n)}&user_identifier_type=evm_address${query}`, { key });
    expect(response.status).toBe(200);
    return response.body;
  };
  const stored = async (n: number, name: string) =>
    (
      await stack.db.query(
        `SELECT value::text AS value, jsonb_typeof(value) AS type, updated_at FROM audience.user_traits
         WHERE project_id = $1 AND identifier_type = 'evm_address' AND identifier = $2 AND name = $3`,
        [project.id, evmAddress(n), name],
      )
    ).rows[0] as { value: string; type: string; updated_at: Date } | undefined;

  it('stores numbers, strings and booleans and answers them by name, with counts', async () => {
    const response = await push([trait(1, 'tier_level', 3), trait(1, 'country', 'PT'), trait(1, 'kyc.passed', true)]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: 3, written: 3, ignored: 0 });
    expect(await traitsOf(1)).toEqual({
      results: [
        { name: 'country', value: 'PT', updated_at: stack.clock.now().toISOString() },
        { name: 'kyc.passed', value: true, updated_at: stack.clock.now().toISOString() },
        { name: 'tier_level', value: 3, updated_at: stack.clock.now().toISOString() },
      ],
      total_results: 3,
      page: 1,
      page_size: 25,
    });
  });

  it('keeps a number exactly as sent, past what a double holds', async () => {
    const raw = `{"traits":[
      {"identifier":"${evmAddress(2)}","identifier_type":"evm_address","name":"balance","value":1000000000000000000000001},
      {"identifier":"${evmAddress(2)}","identifier_type":"evm_address","name":"ratio","value":0.10000000000000000000001},
      {"identifier":"${evmAddress(2)}","identifier_type":"evm_address","name":"big","value":1.5e24},
      {"identifier":"${evmAddress(2)}","identifier_type":"evm_address","name":"neg","value":-42}]}`;
    const response = await stack.api.post('/v1/user-traits/batch', {
      key: project.keys.service,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: 4, written: 4, ignored: 0 });
    expect(await stored(2, 'balance')).toMatchObject({ type: 'number', value: '1000000000000000000000001' });
    expect(await stored(2, 'ratio')).toMatchObject({ type: 'number', value: '0.10000000000000000000001' });
    expect(await stored(2, 'big')).toMatchObject({ type: 'number', value: '1500000000000000000000000' });
    expect(await stored(2, 'neg')).toMatchObject({ type: 'number', value: '-42' });
    // A number-like string stays a string.
    await push([trait(2, 'code', '12')]);
    expect(await stored(2, 'code')).toMatchObject({ type: 'string', value: '"12"' });
  });

  it('lets the latest updated_at win and ignores an older write', async () => {
    await push([trait(3, 'points', 10, '2026-11-21T10:00:00.000Z')]);
    const older = await push([trait(3, 'points', 5, '2026-11-21T09:00:00.000Z')]);
    expect(older.body).toEqual({ received: 1, written: 0, ignored: 1 });
    expect((await stored(3, 'points'))!.value).toBe('10');

    const newer = await push([trait(3, 'points', 20, '2026-11-21T11:00:00.000Z')]);
    expect(newer.body).toEqual({ received: 1, written: 1, ignored: 0 });
    expect(await stored(3, 'points')).toMatchObject({ value: '20', updated_at: new Date('2026-11-21T11:00:00.000Z') });

    // The same request again: nothing older comes back, and the counts say it landed again.
    const again = await push([trait(3, 'points', 20, '2026-11-21T11:00:00.000Z')]);
    expect(again.body).toEqual({ received: 1, written: 1, ignored: 0 });
    expect((await stored(3, 'points'))!.value).toBe('20');
  });

  it('dates a write without updated_at by its arrival on the service clock', async () => {
    stack.clock.advance(60_000);
    await push([trait(4, 'streak', 1)]);
    expect((await stored(4, 'streak'))!.updated_at).toEqual(stack.clock.now());
    // An explicit time before that arrival loses to it.
    const late = await push([trait(4, 'streak', 99, new Date(stack.clock.now().getTime() - 1_000).toISOString())]);
    expect(late.body).toEqual({ received: 1, written: 0, ignored: 1 });
    stack.clock.advance(1_000);
    await push([trait(4, 'streak', 2)]);
    expect((await stored(4, 'streak'))!.value).toBe('2');
  });

  it('in one batch keeps the latest write of a user and name and counts the others ignored', async () => {
    const response = await push([
      trait(5, 'level', 1, '2026-11-21T08:00:00.000Z'),
      trait(5, 'level', 3, '2026-11-21T08:30:00.000Z'),
      trait(5, 'level', 2, '2026-11-21T08:10:00.000Z'),
      { ...trait(5, 'level', 7), identifier: mixedCase(evmAddress(5)) },
    ]);
    // The undated one is dated now (the test clock is past 08:30), so it wins; the same user in any letter case is one user.
    expect(response.body).toEqual({ received: 4, written: 1, ignored: 3 });
    expect((await stored(5, 'level'))!.value).toBe('7');
  });

  it('refuses a batch with any invalid trait, naming each, and writes nothing', async () => {
    const response = await push([
      trait(6, 'ok', 1),
      trait(6, 'bad name', 1),
      trait(6, '1starts_with_digit', 1),
      { ...trait(6, 'x', 1), identifier: '0x12' },
      trait(6, 'huge', 1e300),
      trait(6, 'future', 1, new Date(stack.clock.now().getTime() + 3_600_000).toISOString()),
      trait(6, 'long', 'a'.repeat(1_001)),
    ]);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual([
      'traits[1].name',
      'traits[2].name',
      'traits[3].identifier',
      'traits[4].value',
      'traits[5].updated_at',
      'traits[6].value',
    ]);
    expect(await stored(6, 'ok')).toBeUndefined();
  });

  it('refuses values that are not numbers, strings or booleans, and malformed bodies, with 400', async () => {
    for (const value of [null, { a: 1 }, [1]]) {
      const response = await push([trait(7, 'v', value)]);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'traits[0].value' })] });
    }
    const malformed = await stack.api.post('/v1/user-traits/batch', {
      key: project.keys.service,
      rawBody: '{"traits":[{"value":01}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'INVALID_JSON' });
    const nul = await stack.api.post('/v1/user-traits/batch', { key: project.keys.service, body: { traits: [trait(7, 'v', 'a\u0000b')] } });
    expect(nul.status).toBe(400);
    expect(await stored(7, 'v')).toBeUndefined();
    const unknownField = await push([{ ...trait(7, 'v', 1), extra: true }]);
    expect(unknownField.status).toBe(400);
  });

  it('answers 413 past 10,000 traits and accepts exactly 10,000', async () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => trait(100_000 + index, 'bulk', index));
    const tooMany = await push(many(10_001));
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toMatchObject({ code: 'BATCH_TOO_LARGE' });
    const full = await push(many(10_000));
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ received: 10_000, written: 10_000, ignored: 0 });
    const { rows } = await stack.db.query(`SELECT count(*)::int AS n FROM audience.user_traits WHERE project_id = $1 AND name = 'bulk'`, [
      project.id,
    ]);
    expect(rows[0].n).toBe(10_000);
  });

  it('keeps projects apart, pages a user’s traits, and admits read_only keys to read only', async () => {
    const other = await createProject(stack, 'Other program');
    await push([trait(8, 'a', 1), trait(8, 'b', 2), trait(8, 'c', 3)]);
    expect((await traitsOf(8, other.keys.service)).results).toEqual([]);
    const page = await traitsOf(8, project.keys.readOnly, '&page=2&page_size=2');
    expect(page).toMatchObject({ results: [{ name: 'c', value: 3 }], total_results: 3, page: 2, page_size: 2 });
    const readOnlyWrite = await push([trait(8, 'd', 4)], project.keys.readOnly);
    expect(readOnlyWrite.status).toBe(403);
    const badUser = await stack.api.get('/v1/user-traits?user_identifier=0x12&user_identifier_type=evm_address', { key: project.keys.service });
    expect(badUser.status).toBe(400);
  });

  it('answers under the /api prefix too', async () => {
    const response = await stack.api.post('/api/v1/user-traits/batch', { key: project.keys.service, body: { traits: [trait(9, 'p', false)] } });
    expect(response.status).toBe(200);
    const read = await stack.api.get(`/api/v1/user-traits?user_identifier=${evmAddress(9)}&user_identifier_type=evm_address`, {
      key: project.keys.service,
    });
    expect(read.body.results).toEqual([{ name: 'p', value: false, updated_at: expect.any(String) }]);
  });
});
