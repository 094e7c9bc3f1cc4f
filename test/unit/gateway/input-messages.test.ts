import { z } from 'zod';
import { zodDetails } from '../../../gateway/http/errors';
import { hinted, inputError, oneOf, sketch } from '../../../gateway/http/input-messages';
import { payoutTermsBody } from '../../../gateway/routes/claim/claim.schemas';
import { taxInfoBody } from '../../../gateway/routes/tax/tax.schemas';
import { traitInput } from '../../../gateway/routes/audience/user-traits.schemas';

/** What a request part's 400 says, as the gateway parses it (gateway/http/route.ts). */
function reasons(schema: z.ZodType, value: unknown) {
  const parsed = schema.safeParse(value, { error: inputError });
  if (parsed.success) throw new Error('expected the value to be refused');
  return zodDetails(parsed.error);
}

/** A union that matches nothing says which shapes it takes, for every union of the API, not one field. */
describe('the messages of shapes a value matches none of (gateway/http/input-messages.ts)', () => {
  const currency = '00000000-0000-4000-8000-000000000000';
  const reward = 'expected {"fixed": "<base units as a decimal string>"} or {"bps": <0-10000>}';

  it.each([
    ['a fixed reward as a JSON number', { affiliate: { fixed: 5000000 } }, 'affiliate'],
    ['a reward with both keys', { end_user: { fixed: '1', bps: 1 } }, 'end_user'],
    ['a reward as a string', { affiliate: '250' }, 'affiliate'],
    ['a tier’s reward of another shape', { tiers: [{ audience_id: currency, affiliate: { percent: 5 } }] }, 'tiers[0].affiliate'],
  ])('payout terms: %s names both reward shapes', (_name, change, field) => {
    expect(reasons(payoutTermsBody, { currency_id: currency, ...change })).toEqual([{ field, reason: reward }]);
  });

  it('keeps the precise message when one shape is meant and only its bound is broken', () => {
    expect(reasons(payoutTermsBody, { currency_id: currency, affiliate: { bps: 20_000 } })).toEqual([
      { field: 'affiliate.bps', reason: expect.stringContaining('10000') },
    ]);
  });

  it.each([
    ['an unknown form type', { form_type: 'w10' }],
    ['no form type', { legal_name: 'Ada' }],
  ])('a discriminated shape names its discriminator’s values: %s', (_name, body) => {
    expect(reasons(taxInfoBody, body)).toEqual([{ field: 'form_type', reason: 'expected "w9", "w8ben" or "w8bene"' }]);
  });

  it.each([null, { a: 1 }, [1]])('a union of plain types names them: trait value %j', (value) => {
    const body = { identifier: `0x${'1'.repeat(40)}`, identifier_type: 'evm_address', name: 'tier', value };
    expect(reasons(traitInput, body)).toEqual([{ field: 'value', reason: 'expected a number, a string or a boolean' }]);
  });

  it('sketches any schema from its parts: keys, literals, enums, bounds, formats, hints, arrays', () => {
    const schema = z.union([
      z.strictObject({ kind: z.literal('pin'), at: z.iso.datetime() }),
      z.strictObject({ kind: z.enum(['a', 'b']), ids: z.array(z.uuid()).optional(), n: z.number().int().min(1).max(5).nullable() }),
      hinted(z.string().regex(/^[0-9]+$/), 'a decimal string'),
    ]);
    expect(reasons(schema, 7)).toEqual([
      {
        field: '(body)',
        reason: 'expected {"kind": "pin", "at": "<datetime>"}, {"kind": "a"|"b", "ids": ["<uuid>", …], "n": <1-5>} or "<a decimal string>"',
      },
    ]);
    expect(sketch(z.strictObject({ a: z.string(), b: z.boolean(), c: z.number(), d: z.null(), e: z.string() }))).toBe(
      '{"a": "<text>", "b": true|false, "c": <number>, "d": null, …}',
    );
    expect(oneOf(['x'])).toBe('x');
    expect(oneOf(['x', 'y', 'x'])).toBe('x or y');
  });

  it('leaves every other issue in zod’s words', () => {
    expect(reasons(z.strictObject({ n: z.number() }), { n: 'one' })).toEqual([
      { field: 'n', reason: 'Invalid input: expected number, received string' },
    ]);
  });
});
