import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { SortOrder, SubAffiliateSort } from '../../../gen/referral/agency/v1/enums';
import { optionalEnum, requireField } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import { actorOf } from './actor';
import { toMasterMessage, toSubAffiliateMessage } from './programs.mappers';

type MasterHandlers = Pick<
  UnaryHandlers<AgencyServiceServer>,
  | 'designateMaster'
  | 'updateMasterSpread'
  | 'removeMaster'
  | 'getMaster'
  | 'listMasters'
  | 'bindSubAffiliates'
  | 'unbindSubAffiliate'
  | 'listSubAffiliates'
>;

/**
 * Master affiliates (the API's "agencies", the specification's path) and their sub-affiliates:
 * protobuf <-> domain (domain/master.service.ts), no rules.
 */
export function masterHandlers(domain: AgencyDomain): MasterHandlers {
  return {
    designateMaster: async (req) =>
      toMasterMessage(await domain.masters.designate(req.projectId, requireField(req.user, 'user'), req.spreadBps, actorOf(req.actor))),

    updateMasterSpread: async (req) =>
      toMasterMessage(await domain.masters.updateSpread(req.projectId, req.masterId, req.spreadBps, actorOf(req.actor))),

    removeMaster: async (req) => {
      const { released } = await domain.masters.remove(req.projectId, req.masterId, actorOf(req.actor));
      return { releasedSubAffiliates: String(released) };
    },

    getMaster: async (req) => toMasterMessage(await domain.masters.get(req.projectId, req.masterId)),

    listMasters: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.masters.list(req.projectId, page);
      return { results: records.map(toMasterMessage), pageInfo: pageInfo(page, total) };
    },

    bindSubAffiliates: async (req) => {
      const results = await domain.masters.bind(req.projectId, req.masterId, req.users, actorOf(req.actor));
      const master = await domain.masters.get(req.projectId, req.masterId);
      return {
        results: results.map(({ affiliate, bound }) => ({
          affiliate: { id: affiliate.id, identifier: affiliate.user.identifier, identifierType: affiliate.user.identifierType },
          bound,
        })),
        master: toMasterMessage(master),
      };
    },

    unbindSubAffiliate: async (req) => {
      await domain.masters.unbind(req.projectId, req.masterId, requireField(req.user, 'user'), actorOf(req.actor));
      return {};
    },

    listSubAffiliates: async (req) => {
      const page = toPage(req.page);
      const query = {
        sort: optionalEnum(SubAffiliateSort, req.sortBy, 'sort_by'),
        order: optionalEnum(SortOrder, req.order, 'order'),
        bound: req.bound,
      };
      const { records, total } = await domain.masters.listSubAffiliates(req.projectId, req.masterId, query, page);
      return { results: records.map(toSubAffiliateMessage), pageInfo: pageInfo(page, total) };
    },
  };
}
