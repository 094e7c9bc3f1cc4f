import { SortOrder, SubAffiliateSort } from '../../../gen/referral/agency/v1/enums';
import { MASTER_RULES } from '../../../services/rules/contract-limits';
import { enumValue } from '../../../services/rules/enums';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { affiliateQuery } from './agency.schemas';
import { presentDesignatedMaster, presentMaster, presentMasterDetail, presentSubAffiliate } from './programs.presenters';
import {
  bindBody,
  bindResultSchema,
  designatedMasterSchema,
  designateMasterBody,
  masterDetailSchema,
  masterListSchema,
  removedMasterSchema,
  spreadBody,
  subAffiliateListSchema,
  subAffiliatesQuery,
} from './programs.schemas';
import { projectAdmin } from '../route-access';

const tags = ['Master affiliates'];
const NOT_FOUND = { description: 'AGENCY_NOT_FOUND: no master affiliate of the project has this id (or PROJECT_NOT_FOUND)' };

/** Master affiliates ("agencies", §2.11, §4.5) under /api/v1/projects/:projectId/agencies: admin keys only, reads included (§5.3). */
export function masterRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/agencies',
        operationId: 'designateMasterAffiliate',
        summary: 'Make an affiliate a master affiliate with a spread',
        description:
          'Any existing affiliate of the project (specification §2.11). The master earns `spread_bps` of each conversion of its ' +
          'sub-affiliates (agency_payout). Its agency id is its affiliate id. A sub-affiliate is unbound from its master in the same ' +
          'transaction (a master is never a sub-affiliate), named in `unbound_from`: its binding ends at the designation, what it ' +
          'brought that master while bound stays the master’s (it is listed there with `bound: false`), and both histories say why ' +
          '(`unbound_from_master` and `sub_affiliate_unbound` with `became_master: true`, `master_designated` with `unbound_from_master`). ' +
          '404 AFFILIATE_NOT_FOUND for a user who is no affiliate; 409 ALREADY_MASTER.',
        tags,
        auth: projectAdmin,
        body: designateMasterBody,
        responses: {
          201: { description: 'The master affiliate', schema: designatedMasterSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
          409: { description: 'ALREADY_MASTER' },
        },
      },
      async ({ body, caller }) => {
        const master = await clients.agency.designateMaster({
          projectId: caller.projectId,
          user: { identifier: body.user_identifier, identifierType: body.user_identifier_type },
          spreadBps: body.spread_bps,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 201, body: presentDesignatedMaster(master) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/agencies',
        operationId: 'listMasterAffiliates',
        summary:
          'The project’s master affiliates, newest designation first, with sub_affiliates_count, referred_volume_usd and earnings per currency',
        tags,
        auth: projectAdmin,
        query: subAffiliatesQuery.pick({ page: true, page_size: true }),
        responses: { 200: { description: 'A page of master affiliates', schema: masterListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.agency.listMasters({ projectId: caller.projectId, page: pageRequest(query) });
        return { status: 200, body: listBody(page, presentMaster) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/agencies/:agencyId',
        operationId: 'getMasterAffiliate',
        summary: 'One master affiliate with its per-currency earnings and its spread history',
        description:
          '`referred_volume_usd` and `earnings` (its agency_payout movements) always equal the sums of `referred_volume_usd` and ' +
          '`agency_earnings` over its sub-affiliates list, former sub-affiliates (`bound: false`) included for the period they were ' +
          'bound: each conversion keeps the master it was paid under. `sub_affiliates_count` counts those bound now. After master ' +
          'status is removed this path answers 404 AGENCY_NOT_FOUND (see DELETE); designated again, the master shows its figures of ' +
          'every earlier designation too, its former sub-affiliates listed as `bound: false`.',
        tags,
        auth: projectAdmin,
        responses: { 200: { description: 'The master affiliate', schema: masterDetailSchema }, 404: NOT_FOUND },
      },
      async ({ params, caller }) => ({
        status: 200,
        body: presentMasterDetail(await clients.agency.getMaster({ projectId: caller.projectId, masterId: params.agencyId })),
      }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/agencies/:agencyId',
        operationId: 'updateMasterAffiliateSpread',
        summary: 'Change a master affiliate’s spread',
        description:
          'From now on: conversions before the change keep the spread of their moment (the spread history keeps every period). ' +
          'The same spread again changes nothing.',
        tags,
        auth: projectAdmin,
        body: spreadBody,
        responses: { 200: { description: 'The master affiliate', schema: masterDetailSchema }, 404: NOT_FOUND },
      },
      async ({ params, body, caller }) => {
        const master = await clients.agency.updateMasterSpread({
          projectId: caller.projectId,
          masterId: params.agencyId,
          spreadBps: body.spread_bps,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: presentMasterDetail(master) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/agencies/:agencyId',
        operationId: 'removeMasterAffiliate',
        summary: 'Remove master status',
        description:
          'Its sub-affiliates become regular affiliates (their bindings end now) and it is a regular affiliate again. Nothing is ' +
          'deleted: every past attribution and payout stays as it was, and attribution at a moment before the removal still names it. ' +
          'Afterwards the agency paths answer 404 AGENCY_NOT_FOUND for it and the agencies list leaves it out; what it brought in as ' +
          'a master stays on the affiliate (`referred_volume_usd` and `agency_earnings` of GET …/affiliates/:userIdentifier and the ' +
          'affiliate list, its history’s `sub_affiliate_unbound` and `payouts` entries). Conversions after the removal pay it nothing.',
        tags,
        auth: projectAdmin,
        responses: { 200: { description: 'What the removal released', schema: removedMasterSchema }, 404: NOT_FOUND },
      },
      async ({ params, caller }) => {
        const removed = await clients.agency.removeMaster({
          projectId: caller.projectId,
          masterId: params.agencyId,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: { id: params.agencyId, released_sub_affiliates: Number(removed.releasedSubAffiliates) } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/agencies/:agencyId/sub-affiliates',
        operationId: 'bindSubAffiliates',
        summary: 'Bind affiliates to a master affiliate',
        description:
          'All or nothing: every affiliate is bound, or none is and the error lists each refused one in `details` ' +
          '(`user_identifiers[i]`): 404 AFFILIATE_NOT_FOUND for a user who is no affiliate of the project; 409 ALREADY_BOUND for one ' +
          'bound to another master (an affiliate has at most one); 409 IS_MASTER for a master (never a sub-affiliate). One already ' +
          `bound to this master stays as it is (\`bound: false\`). At most ${MASTER_RULES.maxBindUsers} identifiers (413 TOO_MANY_USERS).`,
        tags,
        auth: projectAdmin,
        body: bindBody,
        arrayLimit: { field: 'user_identifiers', max: MASTER_RULES.maxBindUsers, code: 'TOO_MANY_USERS' },
        responses: {
          200: { description: 'Each affiliate, and the master with its new count', schema: bindResultSchema },
          404: { description: 'AGENCY_NOT_FOUND, or AFFILIATE_NOT_FOUND naming the users who are no affiliates' },
          409: { description: 'ALREADY_BOUND or IS_MASTER, naming each refused affiliate' },
        },
      },
      async ({ params, body, caller }) => {
        const bound = await clients.agency.bindSubAffiliates({
          projectId: caller.projectId,
          masterId: params.agencyId,
          users: body.user_identifiers.map((identifier) => ({ identifier, identifierType: body.user_identifier_type })),
          actor: { apiKeyId: caller.keyId },
        });
        return {
          status: 200,
          body: {
            results: bound.results.map((result) => {
              const affiliate = required(result.affiliate, 'results.affiliate');
              return { id: affiliate.id, identifier: affiliate.identifier, identifier_type: affiliate.identifierType, bound: result.bound };
            }),
            agency: presentMasterDetail(required(bound.master, 'master')),
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/agencies/:agencyId/sub-affiliates/:userIdentifier',
        operationId: 'unbindSubAffiliate',
        summary: 'Unbind a sub-affiliate from its master affiliate',
        description:
          'Its binding ends now (kept in the history); conversions from now on pay no agency spread for it. 404 SUB_AFFILIATE_NOT_FOUND when it is not bound to this master.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        responses: { 204: { description: 'Unbound' }, 404: { description: 'AGENCY_NOT_FOUND or SUB_AFFILIATE_NOT_FOUND' } },
      },
      async ({ params, query, caller }) => {
        await clients.agency.unbindSubAffiliate({
          projectId: caller.projectId,
          masterId: params.agencyId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/agencies/:agencyId/sub-affiliates',
        operationId: 'listSubAffiliates',
        summary: 'A master affiliate’s sub-affiliates, former ones included, with their own figures and what each brought the master',
        description:
          'Every affiliate ever bound to the master, one row each with its latest binding (`bound: false` for a former one), so the ' +
          'master’s `referred_volume_usd` is the sum of `referred_volume_usd` over this list (its agency `earnings` the sum of ' +
          '`agency_earnings`), before and after an unbinding. `bound=true` lists only those bound now (`sub_affiliates_count` of them).',
        tags,
        auth: projectAdmin,
        query: subAffiliatesQuery,
        responses: { 200: { description: 'A page of sub-affiliates', schema: subAffiliateListSchema }, 404: NOT_FOUND },
      },
      async ({ params, query, caller }) => {
        const page = await clients.agency.listSubAffiliates({
          projectId: caller.projectId,
          masterId: params.agencyId,
          sortBy: query.sort_by === undefined ? SubAffiliateSort.UNSPECIFIED : enumValue(SubAffiliateSort, query.sort_by),
          order: query.order === undefined ? SortOrder.UNSPECIFIED : enumValue(SortOrder, query.order),
          bound: query.bound,
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentSubAffiliate) };
      },
    ),
  ];
}
