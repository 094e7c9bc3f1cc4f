import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress } from '../../helpers/evm-addresses';

/** A JSON object nested `levels` deep: {"a":{"a":…{"a":1}}}. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** A valid condition with groups nested five deep (the bound), around one comparison. */
const deepCondition = `${'{"all":['.repeat(5)}{"metric":"volume_usd","op":"gte","value":"100"}${']}'.repeat(5)}`;
const invalid = (field: string) => ({
  code: 'VALIDATION_FAILED',
  kind: 'invalid_argument',
  details: expect.arrayContaining([{ field, reason: expect.any(String) }]),
});

/** The rules of segments and their badges (SegmentService, BadgeService), on the domain and its tables. */
describe('audience segments and badges (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const segmentCount = async (projectId: string) =>
    (await harness.sql.query('SELECT count(*)::int AS n FROM audience.segments WHERE project_id = $1', [projectId])).rows[0].n as number;
  const create = (projectId: string, name: string, more: { description?: string | null; conditionJson?: string | null } = {}) =>
    harness.domain.segments.create(projectId, { name, ...more });

  describe('fields', () => {
    it.each([
      ['an empty name', 'name', { name: '' }],
      ['a blank name', 'name', { name: '   ' }],
      ['a name over 100 characters', 'name', { name: 'x'.repeat(101) }],
      ['a name with a control character', 'name', { name: 'Gold\u0007' }],
      ['a description over 1,000 characters', 'description', { name: 'ok', description: 'd'.repeat(1_001) }],
      ['a condition that is no JSON', 'condition', { name: 'ok', conditionJson: 'volume > 5' }],
      ['a condition that is an array', 'condition', { name: 'ok', conditionJson: '[1,2]' }],
      ['a condition that is a string', 'condition', { name: 'ok', conditionJson: '"volume"' }],
      ['a condition that is null JSON', 'condition', { name: 'ok', conditionJson: 'null' }],
      ['a condition over 16 KB', 'condition', { name: 'ok', conditionJson: JSON.stringify({ k: 'x'.repeat(17_000) }) }],
      ['a condition nested past 32 levels', `condition${'.a'.repeat(32)}`, { name: 'ok', conditionJson: nested(33) }],
      ['a condition nested 2,000 levels (within 16 KB)', `condition${'.a'.repeat(32)}`, { name: 'ok', conditionJson: nested(2_000) }],
      ['a NUL character in a condition value', 'condition.a', { name: 'ok', conditionJson: '{"a":"\\u0000"}' }],
      ['a NUL character in a condition key', 'condition["a\\u0000"]', { name: 'ok', conditionJson: '{"a\\u0000":1}' }],
      ['a lone surrogate in a condition key', 'condition["\\ud800"]', { name: 'ok', conditionJson: '{"\\ud800":1}' }],
      ['a number beyond a double in a condition', 'condition.n', { name: 'ok', conditionJson: '{"n":1e400}' }],
    ])('refuses %s naming %s, and writes nothing', async (_case, field, input) => {
      const projectId = randomUUID();
      await expect(harness.domain.segments.create(projectId, input)).rejects.toMatchObject(invalid(field));
      expect(await segmentCount(projectId)).toBe(0);
    });

    it('lists every problem of a segment in one refusal', async () => {
      await expect(
        harness.domain.segments.create(randomUUID(), { name: '', description: 'd'.repeat(1_001), conditionJson: '[]' }),
      ).rejects.toMatchObject({
        details: [
          { field: 'name', reason: expect.any(String) },
          { field: 'description', reason: expect.any(String) },
          { field: 'condition', reason: expect.any(String) },
        ],
      });
    });

    it('trims the name, keeps an empty description as none, and stores a condition nested to the bound', async () => {
      const segment = await create(randomUUID(), '  Gold  ', { description: '', conditionJson: deepCondition });
      expect(segment).toMatchObject({ name: 'Gold', description: null, entriesCount: 0n, badge: null });
      expect(JSON.parse(segment.conditionJson ?? 'null')).toEqual(JSON.parse(deepCondition));
    });
  });

  describe('names', () => {
    it('refuses a second segment of the same name in any letter case, but not in another project', async () => {
      const projectId = randomUUID();
      await create(projectId, 'Unique name');
      await expect(create(projectId, 'UNIQUE NAME')).rejects.toMatchObject({
        code: 'AUDIENCE_NAME_TAKEN',
        kind: 'already_exists',
        details: [{ field: 'name', reason: expect.any(String) }],
      });
      expect((await create(randomUUID(), 'Unique name')).name).toBe('Unique name');
    });

    it('refuses a rename onto another segment’s name', async () => {
      const projectId = randomUUID();
      await create(projectId, 'Taken');
      const other = await create(projectId, 'Free');
      await expect(harness.domain.segments.update(projectId, other.id, ['name'], { name: 'taken' })).rejects.toMatchObject({
        code: 'AUDIENCE_NAME_TAKEN',
      });
      expect((await harness.domain.segments.get(projectId, other.id)).name).toBe('Free');
    });
  });

  describe('updates', () => {
    it('changes only the fields the mask names; a named field left unset is cleared; a name cannot be', async () => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Before', { description: 'keep', conditionJson: '{"metric":"conversions","op":"gt","value":1}' });
      harness.clock.advance(60_000);
      expect(await harness.domain.segments.update(projectId, segment.id, ['name'], { name: 'After' })).toMatchObject({
        name: 'After',
        description: 'keep',
        conditionJson: '{"op": "gt", "value": 1, "metric": "conversions"}',
        updatedAt: harness.clock.now(),
      });
      expect(await harness.domain.segments.update(projectId, segment.id, ['description', 'condition_json'], {})).toMatchObject({
        name: 'After',
        description: null,
        conditionJson: null,
      });
      await expect(harness.domain.segments.update(projectId, segment.id, ['name'], {})).rejects.toMatchObject(invalid('name'));
    });

    it('refuses a mask naming a field that cannot change, and an empty mask changes nothing', async () => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Fixed');
      await expect(harness.domain.segments.update(projectId, segment.id, ['id', 'name'], { name: 'x' })).rejects.toMatchObject(invalid('id'));
      expect(await harness.domain.segments.update(projectId, segment.id, [], { name: 'Ignored' })).toMatchObject({
        name: 'Fixed',
        updatedAt: segment.updatedAt,
      });
    });

    it('applies the condition rules to a change too', async () => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Conditional', { conditionJson: '{"metric":"conversions","op":"gt","value":1}' });
      await expect(harness.domain.segments.update(projectId, segment.id, ['condition_json'], { conditionJson: nested(40) })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      expect((await harness.domain.segments.get(projectId, segment.id)).conditionJson).toBe('{"op": "gt", "value": 1, "metric": "conversions"}');
    });
  });

  describe('lookup and deletion', () => {
    it.each([
      ['an unknown id', () => randomUUID()],
      ['a malformed id', () => 'not-a-uuid'],
    ])('does not find %s', async (_case, id) => {
      await expect(harness.domain.segments.get(randomUUID(), id())).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND', kind: 'not_found' });
    });

    it('does not find, change or delete a segment of another project', async () => {
      const owner = randomUUID();
      const segment = await create(owner, 'Theirs');
      const stranger = randomUUID();
      await expect(harness.domain.segments.get(stranger, segment.id)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      await expect(harness.domain.segments.update(stranger, segment.id, ['name'], { name: 'stolen' })).rejects.toMatchObject({
        code: 'AUDIENCE_NOT_FOUND',
      });
      await expect(harness.domain.segments.delete(stranger, segment.id)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      expect((await harness.domain.segments.get(owner, segment.id)).name).toBe('Theirs');
    });

    it('deletes a segment with its entries and badge', async () => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Doomed');
      await harness.domain.badges.create(projectId, segment.id, { name: 'B' });
      await harness.domain.entries.add(projectId, segment.id, evmAddress(7), 'evm_address');
      await harness.domain.segments.delete(projectId, segment.id);
      const { rows } = await harness.sql.query(
        `SELECT (SELECT count(*) FROM audience.entries WHERE segment_id = $1)::int AS entries,
                (SELECT count(*) FROM audience.badges WHERE segment_id = $1)::int AS badges`,
        [segment.id],
      );
      expect(rows[0]).toEqual({ entries: 0, badges: 0 });
      await expect(harness.domain.segments.delete(projectId, segment.id)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
    });

    it('lists a project’s segments in creation order, page by page, with the total', async () => {
      const projectId = randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        ids.push((await create(projectId, `Tier ${i}`)).id);
        harness.clock.advance(1_000);
      }
      const page = await harness.domain.segments.list(projectId, { page: 2, pageSize: 2, offset: 2 });
      expect(page).toMatchObject({ total: 3, records: [{ id: ids[2] }] });
    });
  });

  describe('badges', () => {
    it.each([
      ['an empty name', 'name', { name: '' }],
      ['a name over 100 characters', 'name', { name: 'b'.repeat(101) }],
      ['a description over 500 characters', 'description', { name: 'B', description: 'd'.repeat(501) }],
      ['an http image URL', 'image_url', { name: 'B', imageUrl: 'http://cdn.example.com/b.png' }],
      ['an image URL that is no URL', 'image_url', { name: 'B', imageUrl: 'gold.png' }],
      ['an image URL over 2,048 characters', 'image_url', { name: 'B', imageUrl: `https://cdn.example.com/${'x'.repeat(2_048)}` }],
    ])('refuses a badge with %s naming %s', async (_case, field, input) => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Badged');
      await expect(harness.domain.badges.create(projectId, segment.id, input)).rejects.toMatchObject(invalid(field));
      expect((await harness.domain.segments.get(projectId, segment.id)).badge).toBeNull();
    });

    it('gives a segment one badge: a second is refused, an update changes the named fields, a delete removes it', async () => {
      const projectId = randomUUID();
      const segment = await create(projectId, 'Gold');
      expect(await harness.domain.badges.create(projectId, segment.id, { name: 'Gold', imageUrl: 'https://cdn.example.com/gold.png' })).toMatchObject(
        {
          name: 'Gold',
          description: null,
          imageUrl: 'https://cdn.example.com/gold.png',
        },
      );
      await expect(harness.domain.badges.create(projectId, segment.id, { name: 'Again' })).rejects.toMatchObject({
        code: 'BADGE_EXISTS',
        kind: 'already_exists',
      });
      expect(await harness.domain.badges.update(projectId, segment.id, ['description', 'image_url'], { description: 'Top tier' })).toMatchObject({
        name: 'Gold',
        description: 'Top tier',
        imageUrl: null,
      });
      await expect(harness.domain.badges.update(projectId, segment.id, ['name', 'colour'], { name: 'x' })).rejects.toMatchObject(invalid('colour'));
      await harness.domain.badges.delete(projectId, segment.id);
      await expect(harness.domain.badges.delete(projectId, segment.id)).rejects.toMatchObject({ code: 'BADGE_NOT_FOUND' });
      await expect(harness.domain.badges.update(projectId, segment.id, ['name'], { name: 'x' })).rejects.toMatchObject({ code: 'BADGE_NOT_FOUND' });
    });
  });
});
