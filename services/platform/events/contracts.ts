import { z } from 'zod';
import { IdentifierType } from '../../../gen/referral/common/v1/common';
import { enumNames } from '../../rules/enums';
import { MAX_AMOUNT } from '../../rules/money';

/**
 * The events that cross service boundaries, one entry per type: its name,
 * `<producer>.<what happened>`, and the shape of its payload (snake_case JSON). Producers write them
 * with appendOutboxEvents (../outbox/append.ts); consumers receive them parsed by these schemas.
 * Payloads carry ids and the few facts a consumer needs, never whole rows of the producer's schema.
 * A new event is one entry here; change a shape only in ways old consumers still read.
 */
/**
 * One payout: a positive integer no larger than a voucher's uint256 (services/rules/money.ts), so a
 * consumer's column of single amounts (NUMERIC(78,0)) always holds it; a larger one is unreadable, set
 * aside once, never retried forever.
 */
const payoutAmount = z
  .string()
  .regex(/^[1-9][0-9]*$/)
  .refine((value) => value.length < 78 || BigInt(value) <= MAX_AMOUNT, { message: `at most 2^256 − 1 (${MAX_AMOUNT})` });
/** Base units that may be zero (a part of an amount). */
const baseUnits = z.string().regex(/^(0|[1-9][0-9]*)$/);

const uuid = z.uuid();
const user = z.object({ identifier: z.string().min(1), identifier_type: z.enum(enumNames(IdentifierType)) });

/** Users that entered or left one segment together (one applied batch, one dashboard add, one removal). */
const audienceEntries = z.object({
  segment_id: uuid,
  /** static: added by hand or through the API; dynamic: by the segment's condition. */
  kind: z.enum(['static', 'dynamic']),
  users: z.array(user).min(1),
});

export const EVENT_PAYLOADS = {
  /** Users added to a segment (only those that were not in it already). */
  'audience.entry_added': audienceEntries,
  /** Users removed from a segment. */
  'audience.entry_removed': audienceEntries,
  /** A segment was deleted, and every entry with it (no entry_removed events follow). */
  'audience.segment_deleted': z.object({ segment_id: uuid }),
  /**
   * The segments one user is in (each with its kind of entry), as they were when published: the
   * audience service's answer to agency.affiliate.created, because the agency projects the
   * memberships of affiliates only and set aside the user's earlier entry events. Entries only: it
   * never says that the user left a segment (entry_removed does). Internal: no webhook publishes it.
   */
  'audience.memberships.published': z.object({
    user,
    memberships: z.array(z.object({ segment_id: uuid, kind: z.enum(['static', 'dynamic']) })).min(1),
  }),
  /**
   * A segment's tier facts as they are after a write that set them (its tier_rank set, changed or
   * cleared, or the name of a tier changed): the state, not the change, so applying it twice or late
   * is harmless. tier_rank null: the segment is no tier (any more).
   */
  'audience.segment_tier_changed': z.object({ segment_id: uuid, name: z.string(), tier_rank: z.number().int().min(1).nullable() }),
  /** An admin approved an affiliate application: the user joins the (static) segment named. */
  'agency.application.approved': z.object({
    project_id: uuid,
    application_id: uuid,
    audience_id: uuid,
    user,
  }),
  /** A user became an affiliate: by an admin (API key), by itself (self-service, its wallet's signature) or by an approved application. */
  'agency.affiliate.created': z.object({
    affiliate_id: uuid,
    user,
    name: z.string(),
    region: z.string().nullable(),
    codes: z.array(z.string()),
    source: z.enum(['admin', 'self_service', 'application']),
    application_id: uuid.nullable(),
    joined_at: z.iso.datetime({ offset: true }),
  }),
  /**
   * A user was referred: its first referral, the one that stays (POST /api/v1/referrals, or a
   * conversion's referral_code). Emitted once per referred user, in the transaction that wrote the
   * referral. Internal: no webhook publishes it.
   */
  'agency.referral.created': z.object({
    project_id: uuid,
    user,
    affiliate: z.object({ id: uuid, user }),
    referred_at: z.iso.datetime({ offset: true }),
  }),
  /**
   * Identified tracking events of one processed batch (POST /api/v1/events), counted per user, event
   * name and UTC day: additions, applied once per event id by consumers (the audience's
   * `event_count(name, days)` condition). Anonymous events (no user) are not counted here.
   */
  'agency.user_events.counted': z.object({
    project_id: uuid,
    counts: z.array(z.object({ user, name: z.string().min(1), day: z.iso.date(), count: z.number().int().positive() })).min(1),
  }),
  /** An admin approved or rejected an application (holding it decides nothing). */
  'agency.application.decided': z.object({
    application_id: uuid,
    user,
    decision: z.enum(['approved', 'rejected']),
    /** The rejection's reason; null for an approval. */
    reason: z.string().nullable(),
    /** The static segment an approved affiliate joins; null for a rejection. */
    audience_id: uuid.nullable(),
    affiliate_id: uuid.nullable(),
    decided_at: z.iso.datetime({ offset: true }),
  }),
  /**
   * An affiliate was suspended (with a reason), flagged for review (with a reason), unflagged, or made active again
   * (reactivated, or by an approved application). Suspending a flagged affiliate goes from flagged to suspended.
   */
  'agency.affiliate.status_changed': z.object({
    affiliate_id: uuid,
    user,
    from: z.enum(['active', 'flagged', 'suspended']),
    to: z.enum(['active', 'flagged', 'suspended']),
    reason: z.string().nullable(),
    changed_at: z.iso.datetime({ offset: true }),
  }),
  /** A close signed vouchers for some of a user's checks (one event per close that signed any). Never the signatures. */
  'claim.claim_check.closed': z.object({
    user,
    closed_at: z.iso.datetime({ offset: true }),
    claim_checks: z
      .array(
        z.object({
          claim_check_id: uuid,
          reason: z.enum(['affiliate', 'end_user', 'agency']),
          /** Base units, a decimal string. */
          amount: z.string().regex(/^[0-9]+$/),
          currency_address: z.string().min(1),
          currency_chain_id: z.string().regex(/^[0-9]+$/),
          /** Unix seconds, a decimal string. */
          deadline: z.string().regex(/^[0-9]+$/),
        }),
      )
      .min(1),
  }),
  /** The chain watcher saw a voucher redeemed (transaction null: redeemed before the first block watched). */
  'claim.claim_check.claimed': z.object({
    claim_check_id: uuid,
    user,
    reason: z.enum(['affiliate', 'end_user', 'agency']),
    amount: z.string().regex(/^[0-9]+$/),
    currency_address: z.string().min(1),
    currency_chain_id: z.string().regex(/^[0-9]+$/),
    transaction_hash: z.string().nullable(),
    block_number: z
      .string()
      .regex(/^[0-9]+$/)
      .nullable(),
    claimed_at: z.iso.datetime({ offset: true }),
  }),
  /** An affiliate's tax status changed (submitted, approved, revoked, expired). Statuses only: never a form field or a tax id. */
  'tax.tax_status.changed': z.object({
    project_id: uuid,
    user,
    from: z.enum(['not_submitted', 'submitted', 'approved', 'revoked', 'expired']),
    to: z.enum(['submitted', 'approved', 'revoked', 'expired']),
    changed_at: z.iso.datetime({ offset: true }),
    /**
     * The record's expires_at after the change (an approved W-8's; null otherwise), so a projection
     * answers `expired` once it passes, before the sweep announces it. Optional: events written
     * before it existed still parse (the tax migration 0004_publish_tax_statuses published the state they describe).
     */
    expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
    /**
     * The order of the user's changes: the id of the tax service's history row, a decimal string,
     * increasing with each change of the user's current record (changes of one user take turns on
     * its row lock). A projection keeps the highest it saw. Optional, as expires_at.
     */
    version: z
      .string()
      .regex(/^[0-9]+$/)
      .optional(),
  }),
  /**
   * The statuses of current tax records as they were when published: the backfill of the agency's
   * projection (tax migration 0004_publish_tax_statuses) for records that changed before events carried expires_at and
   * version. Up to 1,000 users per event, of one project. Internal: no webhook publishes it.
   */
  'tax.tax_statuses.published': z.object({
    project_id: uuid,
    records: z
      .array(
        z.object({
          user,
          status: z.enum(['submitted', 'approved', 'revoked', 'expired']),
          expires_at: z.iso.datetime({ offset: true }).nullable(),
          /** As tax.tax_status.changed's: the id of the record's latest history row. */
          version: z.string().regex(/^[0-9]+$/),
        }),
      )
      .min(1),
  }),
  /**
   * A project's tax settings were written (the first time, or any field changed): the facts the
   * effective status reads, as they are after the write (state, not change). `version` increases
   * with every write of the project's settings. Internal: no webhook publishes it.
   */
  'tax.tax_settings.changed': z.object({
    project_id: uuid,
    require_tax_info: z.boolean(),
    version: z.string().regex(/^[0-9]+$/),
    changed_at: z.iso.datetime({ offset: true }),
  }),
  /**
   * The claim service paid a conversion (or found no terms for it): who it was attributed to, its
   * volume and revenue, and what each beneficiary earned. Emitted once per conversion, in the
   * transaction that wrote its movements.
   */
  'claim.conversion.processed': z.object({
    conversion_id: z.string().min(1),
    name: z.string().min(1),
    status: z.enum(['processed', 'no_terms']),
    occurred_at: z.iso.datetime({ offset: true }),
    user,
    /** The affiliate (and master) it was attributed to, by the agency service's ids; null when nobody earns from it. */
    affiliate: z.object({ id: z.string().min(1), user }).nullable(),
    master: z.object({ id: z.string().min(1), user, spread_bps: z.number().int().min(0).max(10_000) }).nullable(),
    /**
     * The affiliate's upline frozen with the attribution (levels 2..4, docs/claims.md#referral-levels), for the
     * per-level metrics (r2..r4 volume counts whether or not the level was paid); absent from events written
     * before referral levels existed.
     */
    upline: z.array(z.object({ level: z.number().int().min(2).max(4), id: z.string().min(1), user })).optional(),
    tier_id: uuid.nullable(),
    /** Non-negative USD decimal strings. */
    volume_usd: z.string().nullable(),
    revenue_usd: z.string().nullable(),
    currency_id: uuid.nullable(),
    /** The currency the payouts are in (currencies never change), so a consumer shows earnings without asking the claim service; null when nothing was paid. */
    currency: z
      .object({
        id: uuid,
        /** Null for a point currency (no chain, no address: docs/claims.md#points), and only then. */
        chain_id: z
          .string()
          .regex(/^[1-9][0-9]*$/)
          .nullable(),
        address: z.string().min(1).nullable(),
        name: z.string(),
        decimals: z.number().int().min(0).max(77),
        /** erc20, native or point; absent from events written before points existed (read as a chain currency). */
        type: z.enum(['erc20', 'native', 'point']).optional(),
      })
      .nullable()
      .optional(),
    /**
     * What each beneficiary was paid. An affiliate_payout is what the affiliate kept: its code's rebate went to
     * the user as an end_user_payout with `rebate: true` (docs/claims.md#rebates); `rebate` is absent from
     * other payouts and from events written before rebates existed.
     */
    payouts: z.array(
      z.object({
        kind: z.enum(['affiliate_payout', 'end_user_payout', 'agency_payout']),
        user,
        amount: payoutAmount,
        rebate: z.literal(true).optional(),
        /** An affiliate_payout's referral level (1 the referring affiliate, 2..4 its upline); absent on other kinds and on older events (level 1). */
        level: z.number().int().min(1).max(4).optional(),
      }),
    ),
  }),
  /**
   * The claim service reversed a share of a processed conversion (a refund, an unwound trade): the
   * share (basis points of the whole conversion), the same share of its volume and revenue to take
   * out of every figure, and what came back from each movement (where the money was: `pending`, or
   * `available` with what left its open check and what became the user's debt). Emitted once per
   * reversal, in the transaction that wrote it; its conversion's attribution as frozen when paid.
   */
  'claim.conversion.reversed': z.object({
    conversion_id: z.string().min(1),
    reversal_id: z.string().min(1),
    name: z.string().min(1),
    share_bps: z.number().int().min(1).max(10_000),
    reason: z.string(),
    reversed_at: z.iso.datetime({ offset: true }),
    occurred_at: z.iso.datetime({ offset: true }),
    user,
    affiliate: z.object({ id: z.string().min(1), user }).nullable(),
    master: z.object({ id: z.string().min(1), user }).nullable(),
    /** As on the processed event: the upline frozen with the attribution; absent on older events. */
    upline: z.array(z.object({ level: z.number().int().min(2).max(4), id: z.string().min(1), user })).optional(),
    /** The reversed share of the conversion's volume and revenue: non-negative USD decimal strings. */
    volume_usd: z.string().nullable(),
    revenue_usd: z.string().nullable(),
    currency_id: uuid.nullable(),
    reversals: z.array(
      z.object({
        kind: z.enum(['affiliate_payout', 'end_user_payout', 'agency_payout']),
        user,
        amount: payoutAmount,
        was: z.enum(['pending', 'available']),
        from_check: baseUnits,
        to_debt: baseUnits,
        /** Of an available point movement: what came out of the user's points balance; absent when 0 (and before points existed). */
        from_points: baseUnits.optional(),
        /** Set on what came back from a rebate (as the processed event's payouts); absent otherwise. */
        rebate: z.literal(true).optional(),
        /** As on the processed event's payouts: an affiliate_payout's level; absent means 1. */
        level: z.number().int().min(1).max(4).optional(),
      }),
    ),
  }),
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export type EventPayload<T extends EventType> = z.output<(typeof EVENT_PAYLOADS)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_PAYLOADS, value);
}
