import { createSegment, useStackWithProject } from '../helpers/fixtures';

/** A JSON object nested `levels` deep: {"a":{"a":…{"a":1}}}. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/**
 * A segment's condition is JSON stored in jsonb, in the condition language: it is bounded
 * (32 levels, 16 KB, 5 levels of groups, 50 comparisons) and may hold nothing PostgreSQL cannot store
 * or JSON cannot carry faithfully. Each refusal is a 400
 * naming the path, and nothing is written. Here as raw HTTP bodies reach the gateway; the service's
 * own checks of the same rules are tested on its domain (test/medium/audience/segments.test.ts).
 */
describe('segment conditions', () => {
  const { stack, project } = useStackWithProject();

  const base = () => `/api/v1/projects/${project.id}/audiences`;
  const count = async () => (await stack.db.query('SELECT count(*)::int AS n FROM audience.segments')).rows[0].n as number;
  const post = (rawBody: string) => stack.api.post(base(), { key: project.keys.admin, rawBody, headers: { 'content-type': 'application/json' } });

  it.each([
    ['a NUL character in a key', '{"name":"n","condition":{"a\\u0000":1}}', 'condition["a\\u0000"]', 'NUL'],
    ['a NUL character in a value', '{"name":"n","condition":{"k":["x\\u0000"]}}', 'condition.k[0]', 'NUL'],
    ['a lone high surrogate in a value', '{"name":"n","condition":{"k":"\\ud800"}}', 'condition.k', 'surrogate'],
    ['a lone low surrogate in a key', '{"name":"n","condition":{"\\udc00x":true}}', 'condition["\\udc00x"]', 'surrogate'],
    ['1e400', '{"name":"n","condition":{"n":1e400}}', 'condition.n', 'finite'],
    ['1e309', '{"name":"n","condition":{"n":[-1e309]}}', 'condition.n[0]', 'finite'],
    ['400 digits', `{"name":"n","condition":{"n":${'9'.repeat(400)}}}`, 'condition.n', 'finite'],
  ])('refuses %s with 400 naming the path', async (_case, rawBody, field, reason) => {
    const before = await count();
    const response = await post(rawBody);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(field),
      details: [{ field, reason: expect.stringContaining(reason) }],
    });
    expect(await count()).toBe(before);
  });

  it('refuses nesting past 32 levels (and 7,000 of them) with 400 naming the path', async () => {
    const before = await count();
    const deep = await post(`{"name":"deep","condition":${nested(33)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.details).toEqual([{ field: `condition${'.a'.repeat(32)}`, reason: 'nests more than 32 levels of objects and arrays' }]);
    const deeper = await post(`{"name":"deeper","condition":${nested(7_000)}}`);
    expect(deeper.status).toBe(400);
    expect(deeper.body.details[0].field.startsWith('condition.a.a.a')).toBe(true);
    expect(deeper.body.details[0].reason).toContain('levels');
    expect(await count()).toBe(before);
  });

  it('refuses a condition outside the language with 400 naming each path, and keeps a valid one', async () => {
    const before = await count();
    const bad = await post(
      JSON.stringify({
        name: 'bad',
        condition: {
          all: [
            { metric: 'volume_usd', op: 'gte', value: '1' },
            { metric: 'volume_usd', op: 'gte', value: 1 },
            { metric: 'volume_usd', op: 'between', value: 1 },
            { metric: 'earnings', op: 'gt', value: '5' },
          ],
        },
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'condition.all[2].op', reason: expect.any(String) },
        { field: 'condition.all[3].currency_id', reason: expect.any(String) },
      ],
    });
    const leaf = { metric: 'volume_usd', op: 'gte', value: '100' };
    const deep = (levels: number): unknown => (levels === 0 ? leaf : { any: [deep(levels - 1)] });
    const tooDeep = await post(JSON.stringify({ name: 'too deep', condition: deep(6) }));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.details).toEqual([{ field: `condition${'.any[0]'.repeat(5)}.any`, reason: expect.stringContaining('levels deep') }]);
    const tooMany = await post(JSON.stringify({ name: 'too many', condition: { any: Array.from({ length: 51 }, () => leaf) } }));
    expect(tooMany.status).toBe(400);
    expect(await count()).toBe(before);

    const kept = await post(JSON.stringify({ name: 'just deep enough', condition: deep(5) }));
    expect(kept.status).toBe(201);
    expect(kept.body.condition).toEqual(deep(5));
  });

  it('applies the same rules to a change (PATCH), and changes nothing', async () => {
    const segment = await createSegment(stack, project, { condition: { metric: 'conversions', op: 'gt', value: 1 } });
    const path = `${base()}/${segment.id}`;
    const patch = (rawBody: string) => stack.api.patch(path, { key: project.keys.admin, rawBody, headers: { 'content-type': 'application/json' } });
    expect((await patch('{"condition":{"n":1e400}}')).body.details).toEqual([{ field: 'condition.n', reason: expect.stringContaining('finite') }]);
    expect((await patch(`{"condition":${nested(40)}}`)).status).toBe(400);
    expect((await patch('{"condition":{"\\u0000":1}}')).status).toBe(400);
    expect((await stack.api.get(path, { key: project.keys.admin })).body.condition).toEqual({ metric: 'conversions', op: 'gt', value: 1 });
  });
});
