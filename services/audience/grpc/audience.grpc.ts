import type { AudienceServiceServer } from '../../../gen/referral/audience/v1/audience';
import { pageInfo, toPage } from '../../rules/pagination';
import { Deadline } from '../../platform/deadline';
import { requireField } from '../../rules/fields';
import type { Logger } from '../../platform/logger';
import type { AudienceDomain } from '../composition';
import { type CallContext, implementService } from '../../platform/grpc/service';
import {
  toBadgeMessage,
  toEntryBatchMessage,
  toEntryMessage,
  toSegmentEvaluationMessage,
  toSegmentMessage,
  toUserAudienceResult,
  toUserTierResult,
  toUserTraitMessage,
} from './audience.mappers';

/** Room left before the caller's deadline for the answer to travel back. */
const ANSWER_MARGIN_MS = 500;
/** Without a caller deadline (never from the gateway), how long a call may take. */
const DEFAULT_CALL_BUDGET_MS = 60_000;

function deadlineOf(context: CallContext): Deadline {
  return Deadline.before(context.deadline, ANSWER_MARGIN_MS, DEFAULT_CALL_BUDGET_MS);
}

/** A wait the caller asked for, cut short so the answer arrives before the caller's deadline. */
function waitWithinDeadline(waitMs: number, context: CallContext): number {
  return waitMs <= 0 ? 0 : Math.min(waitMs, deadlineOf(context).remainingMs());
}

/**
 * Translates protobuf <-> domain and delegates; no rules live here. Fields the contract requires
 * are resolved here (services/rules/fields.ts), so the domain takes them as given.
 */
export function createAudienceGrpcService(domain: AudienceDomain, logger: Logger): AudienceServiceServer {
  return implementService<AudienceServiceServer>(
    'AudienceService',
    {
      createSegment: async (req) =>
        toSegmentMessage(
          await domain.segments.create(req.projectId, {
            name: req.name,
            description: req.description,
            conditionJson: req.conditionJson,
            tierRank: req.tierRank,
          }),
        ),

      listSegments: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.segments.list(req.projectId, page);
        return { results: records.map(toSegmentMessage), pageInfo: pageInfo(page, total) };
      },

      getSegment: async (req) => toSegmentMessage(await domain.segments.get(req.projectId, req.segmentId)),

      updateSegment: async (req) =>
        toSegmentMessage(
          await domain.segments.update(req.projectId, req.segmentId, req.updateMask ?? [], {
            name: req.name,
            description: req.description,
            conditionJson: req.conditionJson,
            tierRank: req.tierRank,
          }),
        ),

      deleteSegment: async (req) => {
        await domain.segments.delete(req.projectId, req.segmentId);
        return {};
      },

      addEntry: async (req) => {
        const user = requireField(req.user, 'user');
        return toEntryMessage(await domain.entries.add(req.projectId, req.segmentId, user.identifier, user.identifierType));
      },

      listEntries: async (req) => {
        const result = await domain.entries.list(
          req.projectId,
          req.segmentId,
          toPage(req.page),
          req.cursor || undefined,
          req.identifierPrefix || undefined,
        );
        return {
          results: result.records.map(toEntryMessage),
          pageInfo: pageInfo(result, result.total),
          nextCursor: result.nextCursor ?? undefined,
        };
      },

      removeEntry: async (req) => {
        const removed = await domain.entries.remove(req.projectId, req.segmentId, req.identifier, req.identifierType);
        return { removed: String(removed) };
      },

      submitEntryBatch: async (req, context) => {
        const { batch, created } = await domain.batches.submit(req.projectId, req.segmentId, req.entries, req.idempotencyKey, {
          deadline: deadlineOf(context),
          waitMs: Math.max(0, req.waitMs),
        });
        return { batch: toEntryBatchMessage(batch), created };
      },

      getEntryBatch: async (req, context) =>
        toEntryBatchMessage(await domain.batches.get(req.projectId, req.segmentId, req.jobId, waitWithinDeadline(req.waitMs, context))),

      evaluateSegment: async (req) => toSegmentEvaluationMessage(await domain.evaluations.start(req.projectId, req.segmentId)),

      getSegmentEvaluation: async (req) => toSegmentEvaluationMessage(await domain.evaluations.get(req.projectId, req.segmentId)),

      createBadge: async (req) => toBadgeMessage(await domain.badges.create(req.projectId, req.segmentId, requireField(req.badge, 'badge'))),

      // A badge field the mask lists but the request leaves unset is cleared (a name cannot be).
      updateBadge: async (req) => toBadgeMessage(await domain.badges.update(req.projectId, req.segmentId, req.updateMask ?? [], req.badge ?? {})),

      deleteBadge: async (req) => {
        await domain.badges.delete(req.projectId, req.segmentId);
        return {};
      },

      getUserAudiences: async (req) => {
        const outcomes = await domain.userAudiences.lookup(
          req.lookups.map((lookup, index) => {
            const user = requireField(lookup.user, `lookups[${index}].user`);
            return { projectId: lookup.projectId, identifier: user.identifier, identifierType: user.identifierType };
          }),
        );
        return { results: outcomes.map(toUserAudienceResult) };
      },

      getUserTiers: async (req) => {
        const outcomes = await domain.userAudiences.tiers(
          req.lookups.map((lookup, index) => {
            const user = requireField(lookup.user, `lookups[${index}].user`);
            return { projectId: lookup.projectId, identifier: user.identifier, identifierType: user.identifierType };
          }),
        );
        return { results: outcomes.map(toUserTierResult) };
      },

      checkMemberships: async (req) =>
        domain.userAudiences.memberships(
          req.projectId,
          req.queries.map((query, index) => {
            const user = requireField(query.user, `queries[${index}].user`);
            return { segmentId: query.segmentId, identifier: user.identifier, identifierType: user.identifierType };
          }),
        ),

      upsertUserTraits: async (req) => {
        const outcome = await domain.traits.upsert(
          req.projectId,
          req.traits.map((trait, index) => {
            const user = requireField(trait.user, `traits[${index}].user`);
            return {
              identifier: user.identifier,
              identifierType: user.identifierType,
              name: trait.name,
              value: trait.value ?? {},
              updatedAt: trait.updatedAt,
            };
          }),
        );
        return { received: String(outcome.received), written: String(outcome.written), ignored: String(outcome.ignored) };
      },

      listUserTraits: async (req) => {
        const user = requireField(req.user, 'user');
        const page = toPage(req.page);
        const { records, total } = await domain.traits.list(req.projectId, user.identifier, user.identifierType, page);
        return { results: records.map(toUserTraitMessage), pageInfo: pageInfo(page, total) };
      },
    },
    logger,
    // Lookups of many callers share one call: each is checked alone (UserAudienceService), so one bad lookup fails alone.
    { idsCheckedPerItem: { getUserAudiences: 'lookups', getUserTiers: 'lookups' } },
  );
}
