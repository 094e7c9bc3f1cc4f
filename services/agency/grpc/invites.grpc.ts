import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import type { InviteCode } from '../../../gen/referral/agency/v1/invites';
import { requireField } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { InviteCodeRecord } from '../repositories/invite-code.repository';

type InviteHandlers = Pick<
  UnaryHandlers<AgencyServiceServer>,
  'generateInviteCodes' | 'listInviteCodes' | 'updateInviteCode' | 'checkCodeUsable' | 'endReferral'
>;

/** Invite codes and the end of a referral: protobuf <-> domain, no rules (as agency.grpc.ts). */
export function inviteHandlers(domain: AgencyDomain): InviteHandlers {
  return {
    generateInviteCodes: async (req) => ({
      codes: await domain.inviteCodes.generate(req.projectId, requireField(req.user, 'user'), req.quantity, req.maxUses ?? null),
    }),

    listInviteCodes: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.inviteCodes.list(req.projectId, requireField(req.user, 'user'), page);
      return { results: records.map(toInviteCode), pageInfo: pageInfo(page, total) };
    },

    updateInviteCode: async (req) => {
      const updated = await domain.inviteCodes.setMaxUses(req.projectId, req.code, req.maxUses ?? null);
      return { code: updated.code, maxUses: updated.maxUses ?? undefined, uses: updated.uses };
    },

    checkCodeUsable: async (req) => ({ usable: await domain.inviteCodes.usable(req.projectId, req.code) }),

    endReferral: async (req) => {
      const ended = await domain.referrals.end(req.projectId, requireField(req.user, 'user'), req.code, requireField(req.referrer, 'referrer'), {
        byUser: req.byUser,
        actorId: req.actorApiKeyId ?? null,
      });
      return { code: ended.code, referredAt: ended.referredAt };
    },
  };
}

function toInviteCode(record: InviteCodeRecord): InviteCode {
  return {
    code: record.code,
    createdAt: record.createdAt,
    maxUses: record.maxUses ?? undefined,
    uses: record.uses,
    usedBy: record.usedBy.map((use) => ({ user: use.user, usedAt: use.usedAt })),
    clicks: String(record.clicks),
  };
}
