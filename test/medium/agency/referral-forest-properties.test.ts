import fc from 'fast-check';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newProject, newUser } from './fixtures';

const AFFILIATES = 7;
const index = fc.integer({ min: 0, max: AFFILIATES - 1 });
/** A referral attempt of affiliate `user`'s wallet by affiliate `by`'s code, or the end of `user`'s referral. */
type Step = { kind: 'refer'; user: number; by: number } | { kind: 'end'; user: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('refer' as const), user: index, by: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), user: index }) },
);

/**
 * Random referral forests of affiliates (docs/claims.md#referral-levels): whatever the order of referrals
 * and ended referrals, each attempt is answered as a model of the forest says (created, ALREADY_REFERRED,
 * SELF_REFERRAL, or REFERRAL_CYCLE exactly when the user is the referrer or one of its ancestors), no cycle
 * ever forms, and attribution answers every affiliate's upline as the model's chain, cut at level 4.
 */
describe('referral forests (property, domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  it('never closes a cycle and answers each chain as the forest is', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const projectId = newProject();
        harness.clock.set('2026-11-01T00:00:00.000Z');
        const affiliates: Array<Awaited<ReturnType<typeof newAffiliate>>> = [];
        for (let n = 0; n < AFFILIATES; n++) affiliates.push(await newAffiliate(harness, projectId, `A${n}`));
        /** The model: who referred each affiliate's wallet now. */
        const parent = new Map<number, number>();
        const chainOf = (from: number) => {
          const chain: number[] = [];
          for (let at = parent.get(from); at !== undefined && chain.length < AFFILIATES; at = parent.get(at)) chain.push(at);
          return chain;
        };
        for (const action of steps) {
          const user = affiliates[action.user]!;
          if (action.kind === 'end') {
            const by = parent.get(action.user);
            if (by === undefined) continue;
            const referrer = affiliates[by]!;
            await harness.domain.referrals.end(projectId, user.user, referrer.code, referrer.user, { byUser: false, actorId: null });
            parent.delete(action.user);
            continue;
          }
          const expected =
            action.user === action.by
              ? 'SELF_REFERRAL'
              : parent.has(action.user)
                ? parent.get(action.user) === action.by
                  ? 'existing'
                  : 'ALREADY_REFERRED'
                : chainOf(action.by).includes(action.user)
                  ? 'REFERRAL_CYCLE'
                  : 'created';
          const answer = await harness.domain.referrals.refer(projectId, user.user, affiliates[action.by]!.code).then(
            (result) => (result.created ? 'created' : 'existing'),
            (error: { code: string }) => error.code,
          );
          expect(answer).toBe(expected);
          if (answer === 'created') parent.set(action.user, action.by);
          // Never a cycle: every chain ends.
          for (let n = 0; n < AFFILIATES; n++) expect(chainOf(n)).not.toContain(n);
        }
        // Attribution of a new user of each affiliate: the model's chain, levels 2..4.
        harness.clock.set('2026-11-02T00:00:00.000Z');
        const users = affiliates.map(() => newUser());
        for (let n = 0; n < AFFILIATES; n++) await harness.domain.referrals.refer(projectId, users[n]!, affiliates[n]!.code);
        const answers = await harness.domain.attribution.resolveBatch(
          projectId,
          users.map((user) => ({ user, at: new Date('2026-11-03T00:00:00.000Z') })),
        );
        answers.forEach((answer, n) => {
          if ('error' in answer) throw answer.error;
          expect(answer.ancestors.map((ancestor) => [ancestor.level, ancestor.affiliate.id])).toEqual(
            chainOf(n)
              .slice(0, 3)
              .map((up, position) => [position + 2, affiliates[up]!.affiliate.id]),
          );
        });
      }),
      { numRuns: 25 },
    );
  });
});
