import { USER_TRAIT_RULES } from '../../../services/rules/contract-limits';
import { exactNumberAt } from '../../http/exact-json';
import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentTraitCounts, presentUserTrait } from './user-traits.presenters';
import { traitsBatchBody, traitsBatchSchema, userTraitListSchema, userTraitsQuery } from './user-traits.schemas';
import { serviceReader, serviceRole } from '../route-access';

const tags = ['User traits'];

/** Traits a project's backend pushes for its users, read by dynamic audiences' conditions (`trait:<name>`). */
export function userTraitRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/v1/user-traits/batch',
        operationId: 'upsertUserTraits',
        summary: `Set up to ${USER_TRAIT_RULES.maxPerBatch.toLocaleString('en-US')} user traits`,
        description:
          'The whole batch is validated first: one invalid trait refuses the batch (400, `details` names each index) and nothing is written. ' +
          'Then every trait is written at once. Per user and name the write with the latest `updated_at` wins (the arrival time when it has none): ' +
          'an older write is ignored, and one as new as the stored one replaces it, so a retried request changes nothing. ' +
          'Answers how many traits were received, written and ignored. Dynamic audiences re-evaluate the users whose traits were written.',
        tags,
        auth: serviceRole,
        body: traitsBatchBody,
        bodyLimit: 'batch',
        exactNumbers: true,
        arrayLimit: { field: 'traits', max: USER_TRAIT_RULES.maxPerBatch, code: 'BATCH_TOO_LARGE' },
        responses: { 200: { description: 'Written', schema: traitsBatchSchema } },
      },
      async ({ body, caller, req }) => {
        const counts = await clients.audience.upsertUserTraits({
          projectId: caller.projectId,
          traits: body.traits.map((trait, index) => ({
            user: { identifier: trait.identifier, identifierType: trait.identifier_type },
            name: trait.name,
            value:
              typeof trait.value === 'number'
                ? { number: exactNumberAt(req, ['traits', index, 'value']) ?? String(trait.value) }
                : typeof trait.value === 'string'
                  ? { text: trait.value }
                  : { flag: trait.value },
            updatedAt: trait.updated_at === undefined ? undefined : new Date(trait.updated_at),
          })),
        });
        return { status: 200, body: presentTraitCounts(counts) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/v1/user-traits',
        operationId: 'listUserTraits',
        summary: 'A user’s traits, by name',
        description:
          'A user without traits gets an empty page. A number is answered as a JSON number; beyond 15 significant digits a reader that parses JSON into ' +
          'doubles (JavaScript) sees it rounded, though it is stored and compared exactly.',
        tags,
        auth: serviceReader,
        query: userTraitsQuery,
        responses: { 200: { description: 'A page of the user’s traits', schema: userTraitListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.audience.listUserTraits({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentUserTrait) };
      },
    ),
  ];
}
