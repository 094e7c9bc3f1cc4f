import type { Affiliate, AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { ApplicationAction, ApplicationStatus, AttributionModel } from '../../../gen/referral/agency/v1/enums';
import { optionalEnum, requireEnum, requireField } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { UserInput } from '../../rules/subject';
import { toAffiliateMessage } from './agency.mappers';
import { toApplicationMessage, toDecisionResultMessage, toProgramSettingsMessage } from './programs.mappers';

type Handlers = UnaryHandlers<AgencyServiceServer>;
type ProgramHandlers = Pick<
  Handlers,
  | 'setTierProtection'
  | 'endTierProtection'
  | 'submitApplication'
  | 'getOwnApplication'
  | 'listApplications'
  | 'getApplication'
  | 'decideApplication'
  | 'bulkDecideApplications'
  | 'getProgramSettings'
  | 'updateProgramSettings'
>;

import { actorOf } from './actor';

/**
 * Tier protection, applications and program settings: protobuf <-> domain, no rules (as agency.grpc.ts;
 * masters are masters.grpc.ts).
 * An affiliate in an answer is completed by domain.details (master, tiers) before it is mapped.
 */
export function programHandlers(domain: AgencyDomain): ProgramHandlers {
  const affiliateMessage = async (projectId: string, user: UserInput): Promise<Affiliate> =>
    toAffiliateMessage(await domain.details.describeOne(await domain.affiliates.get(projectId, user)));

  return {
    setTierProtection: async (req) => {
      const user = requireField(req.user, 'user');
      await domain.tierProtection.set(
        req.projectId,
        user,
        { tierId: req.tierId, protectionDays: req.protectionDays, expiresAt: req.expiresAt },
        actorOf(req.actor).apiKeyId,
      );
      return affiliateMessage(req.projectId, user);
    },

    endTierProtection: async (req) => {
      const user = requireField(req.user, 'user');
      await domain.tierProtection.end(req.projectId, user, actorOf(req.actor).apiKeyId);
      return affiliateMessage(req.projectId, user);
    },

    submitApplication: async (req) =>
      toApplicationMessage(
        await domain.applications.submit(req.projectId, requireField(req.user, 'user'), {
          name: req.name,
          region: req.region,
          message: req.message,
          code: req.code,
        }),
      ),

    getOwnApplication: async (req) => {
      const { application, affiliate } = await domain.applications.own(req.projectId, requireField(req.user, 'user'));
      return {
        application: toApplicationMessage(application),
        affiliate: affiliate ? toAffiliateMessage(await domain.details.describeOne(affiliate)) : undefined,
      };
    },

    listApplications: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.applications.list(req.projectId, optionalEnum(ApplicationStatus, req.status, 'status'), page);
      return { results: records.map(toApplicationMessage), pageInfo: pageInfo(page, total) };
    },

    getApplication: async (req) => toApplicationMessage(await domain.applications.get(req.projectId, req.applicationId)),

    decideApplication: async (req) =>
      toApplicationMessage(
        await domain.applications.decide(
          req.projectId,
          req.applicationId,
          { action: requireEnum(ApplicationAction, req.action, 'action'), audienceId: req.audienceId, reason: req.reason, note: req.note },
          actorOf(req.actor).apiKeyId,
        ),
      ),

    bulkDecideApplications: async (req) => ({
      results: (
        await domain.applications.decideMany(
          req.projectId,
          req.applicationIds,
          { action: requireEnum(ApplicationAction, req.action, 'action'), audienceId: req.audienceId, reason: req.reason, note: req.note },
          actorOf(req.actor).apiKeyId,
        )
      ).map(toDecisionResultMessage),
    }),

    getProgramSettings: async (req) => toProgramSettingsMessage(await domain.programSettings.get(req.projectId)),

    updateProgramSettings: async (req) =>
      toProgramSettingsMessage(
        await domain.programSettings.update(
          req.projectId,
          {
            mask: req.updateMask ?? [],
            programUrl: req.programUrl,
            linkTemplate: req.linkTemplate,
            attributionWindowDays: req.attributionWindowDays,
            attributionModel: optionalEnum(AttributionModel, req.attributionModel, 'attribution_model'),
          },
          actorOf(req.actor).apiKeyId,
        ),
      ),
  };
}
