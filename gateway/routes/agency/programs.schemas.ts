import { z } from 'zod';
import { ApplicationAction, ApplicationStatus, AttributionModel, SortOrder, SubAffiliateSort } from '../../../gen/referral/agency/v1/enums';
import { AGENCY_TEXT_LIMITS, APPLICATION_LIMITS, MASTER_RULES, TIER_PROTECTION_DAYS } from '../../../services/rules/contract-limits';
import { enumNames } from '../../../services/rules/enums';
import { DEFAULT_LINK_TEMPLATE, REFERRAL_LINK_LIMITS } from '../../../services/rules/referral-link';
import { listSchema, pageQuery } from '../../http/list';
import { resourceId } from '../../http/params';
import { affiliateCodeSchema, affiliateSchema, affiliateStatuses, code, identifier, identifierType, name, region, timestamp } from './agency.schemas';

/**
 * HTTP shapes of master affiliates (§4.5), tier protection and applications (snake_case); the gRPC
 * contract is proto/referral/agency. The service checks every rule again: these shapes refuse what
 * is malformed and document what is accepted.
 */
const applicationStatuses = z.enum(enumNames(ApplicationStatus));
const attributionModels = z.enum(enumNames(AttributionModel));
/** The attribution window's bounds in days (the agency checks the same: program-settings.service.ts). */
const ATTRIBUTION_WINDOW = { min: 1, max: 365 } as const;
const usd = z.string().describe('USD, a decimal string');
/** An amount earned in one currency, with the currency's details (null until the projection has seen the currency). */
export const earningSchema = z.object({
  currency_id: z.string(),
  currency_chain_id: z
    .number()
    .int()
    .nullable()
    .describe('The currency’s EVM chain id, a JSON number as in the currencies (null until the currency is known)'),
  currency_address: z.string().nullable(),
  currency_name: z.string().nullable(),
  currency_decimals: z.number().int().nullable(),
  amount: z.string().describe('Base units of the currency, a decimal string'),
});
const spreadBps = z
  .number()
  .int()
  .min(0)
  .max(MASTER_RULES.maxSpreadBps)
  .describe(`The master’s spread on each conversion of its sub-affiliates, in basis points (0 to ${MASTER_RULES.maxSpreadBps})`);
const defaultType = identifierType.default('evm_address').describe('The identifiers’ type; evm_address when left out');

// --- Master affiliates ---

export const designateMasterBody = z.strictObject({
  user_identifier: identifier.describe('An affiliate of the project'),
  user_identifier_type: defaultType,
  spread_bps: spreadBps,
});

export const spreadBody = z.strictObject({ spread_bps: spreadBps });

export const bindBody = z.strictObject({
  user_identifiers: z.array(identifier).describe(`Affiliates of the project, 1 to ${MASTER_RULES.maxBindUsers}`),
  user_identifier_type: defaultType,
});

export const subAffiliatesQuery = z.object({
  ...pageQuery,
  sort_by: z
    .enum(enumNames(SubAffiliateSort))
    .optional()
    .describe(
      'bound_at (default): newest binding first; name: A to Z; referred_volume, referred_conversions: what it brought this master ' +
        'while bound, highest first; volume_usd, revenue_usd, conversions: its own figures, highest first',
    ),
  order: z.enum(enumNames(SortOrder)).optional().describe('asc or desc; the sort’s own direction when left out'),
  bound: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true'))
    .describe('true: only those bound now; false: only former sub-affiliates; both when left out'),
});

const masterFields = {
  id: z.string().describe('The master’s affiliate id (the agencyId of these paths)'),
  identifier: z.string(),
  identifier_type: z.string(),
  name: z.string(),
  status: affiliateStatuses,
  spread_bps: z.number().int(),
  sub_affiliates_count: z.number().int().describe('Sub-affiliates bound now'),
  referred_volume_usd: usd.describe(
    'Combined L1 volume of its sub-affiliates (not its own): the volume of their conversions attributed while they were bound to it ' +
      '(the conversions’ frozen master), so an unbinding keeps what the bound period brought',
  ),
  designated_at: timestamp,
  earnings: z.array(earningSchema).describe('Its agency payouts (agency_payout) per currency: the sums of `agency_earnings` over its sub-affiliates'),
};

export const masterSchema = z.object(masterFields);
export const masterListSchema = listSchema(masterSchema);

export const masterDetailSchema = z.object({
  ...masterFields,
  spread_history: z
    .array(z.object({ spread_bps: z.number().int(), valid_from: timestamp, valid_to: timestamp.nullable() }))
    .describe('The spreads of the current designation, newest first: a conversion is paid at the spread in force at its moment'),
});

const linkLength = REFERRAL_LINK_LIMITS.maxLength;

export const programSettingsSchema = z.object({
  program_url: z.string().nullable().describe('Where a referred person lands (an http or https URL without query or fragment); null until set'),
  link_template: z
    .string()
    .describe('The referral link, `{code}` standing for the code and `{program_url}` for the program URL: the project’s, or the default'),
  default_link_template: z.string().describe(`The template in force when none is set: ${DEFAULT_LINK_TEMPLATE}`),
  example_link: z.string().nullable().describe('The link of a code named EXAMPLE under these settings; null while there is no link (no program URL)'),
  updated_at: timestamp.nullable().describe('null until first changed'),
  attribution_window_days: z
    .number()
    .int()
    .describe(
      `How many days before a connect_wallet a click of its tracking id still refers the wallet (${ATTRIBUTION_WINDOW.min} to ${ATTRIBUTION_WINDOW.max}; 30 until set)`,
    ),
  attribution_model: attributionModels.describe('Which click of the window refers the wallet: the oldest (first_click, until set) or the newest'),
});

export const programSettingsBody = z.strictObject({
  program_url: z
    .string()
    .max(linkLength * 2)
    .nullable()
    .optional()
    .describe(`An absolute http or https URL without credentials, query or fragment, at most ${linkLength} characters; null clears it`),
  link_template: z
    .string()
    .max(linkLength * 2)
    .nullable()
    .optional()
    .describe(
      `Must contain {code}; may start with {program_url}; with both filled in, an absolute http or https URL; at most ${linkLength} ` +
        `characters; null returns to the default (${DEFAULT_LINK_TEMPLATE})`,
    ),
  attribution_window_days: z
    .number()
    .int()
    .min(ATTRIBUTION_WINDOW.min)
    .max(ATTRIBUTION_WINDOW.max)
    .nullable()
    .optional()
    .describe(`Days, ${ATTRIBUTION_WINDOW.min} to ${ATTRIBUTION_WINDOW.max}; null returns to the default (30)`),
  attribution_model: attributionModels.nullable().optional().describe('first_click or last_click; null returns to the default (first_click)'),
});

/** The signed-in wallet's affiliate, as the portal shows it: each code with the link to share. */
export const portalAffiliateSchema = affiliateSchema.extend({
  codes: z
    .array(
      affiliateCodeSchema.extend({
        link: z
          .string()
          .nullable()
          .describe('The referral link to share (the project’s link template with this code); null while the program has no link'),
      }),
    )
    .describe('Oldest first'),
  program_url: z.string().nullable().describe('The program’s URL; null while the project has set none'),
});

export const designatedMasterSchema = masterDetailSchema.extend({
  unbound_from: z
    .object({ id: z.string(), identifier: z.string(), identifier_type: z.string() })
    .nullable()
    .describe(
      'The master it was a sub-affiliate of until this designation unbound it (a master is never a sub-affiliate); null when it was bound to none',
    ),
});

export const removedMasterSchema = z.object({
  id: z.string(),
  released_sub_affiliates: z.number().int().describe('Sub-affiliates that became regular affiliates'),
});

export const bindResultSchema = z.object({
  results: z
    .array(
      z.object({
        id: z.string(),
        identifier: z.string(),
        identifier_type: z.string(),
        bound: z.boolean().describe('false: it was already bound to this master'),
      }),
    )
    .describe('One per identifier, in the order given'),
  agency: masterDetailSchema,
});

export const subAffiliateSchema = z.object({
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.string(),
  name: z.string(),
  status: affiliateStatuses,
  bound: z.boolean().describe('Bound to this master now; false for a former sub-affiliate, listed for what it brought while bound'),
  bound_at: timestamp.describe('When its latest binding to this master began'),
  unbound_at: timestamp.nullable().describe('When its latest binding ended; null while bound'),
  referred_volume_usd: usd.describe('What it brought this master: the volume of its conversions attributed while bound to it'),
  referred_conversions: z.number().int().describe('Conversions it brought this master'),
  agency_earnings: z.array(earningSchema).describe('What this master earned (agency_payout) from its conversions, per currency'),
  volume_usd: usd.describe('Its own volume, all its conversions'),
  revenue_usd: usd,
  conversions: z.number().int(),
  earnings: z.array(earningSchema).describe('Its own affiliate payouts per currency'),
});
export const subAffiliateListSchema = listSchema(subAffiliateSchema);

// --- Tier protection ---

export const tierProtectionBody = z.strictObject({
  tier_id: resourceId.describe('A tier of the project: an audience segment with a tier_rank'),
  protection_days: z
    .number()
    .int()
    .min(TIER_PROTECTION_DAYS.min)
    .max(TIER_PROTECTION_DAYS.max)
    .optional()
    .describe(`${TIER_PROTECTION_DAYS.min} to ${TIER_PROTECTION_DAYS.max} days from now; or give expires_at`),
  expires_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(`When it ends, at most ${TIER_PROTECTION_DAYS.max} days ahead; or give protection_days`),
});

// --- Applications ---

export const applicationBody = z.strictObject({
  name,
  region: region.nullable().optional(),
  message: z
    .string()
    .max(APPLICATION_LIMITS.messageLength * 2)
    .nullable()
    .optional()
    .describe(`Up to ${APPLICATION_LIMITS.messageLength} characters, for the reviewer`),
  code: code.nullable().optional().describe('The code the applicant would like; given at approval when it is free then'),
});

export const applicationSchema = z.object({
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.string(),
  name: z.string(),
  region: z.string().nullable(),
  message: z.string().nullable(),
  code: z.string().nullable().describe('The code the applicant asked for'),
  status: applicationStatuses.describe('pending -> approved | rejected | on_hold; on_hold -> approved | rejected; approved and rejected are final'),
  created_at: timestamp,
  updated_at: timestamp,
  hold_note: z.string().nullable(),
  held_at: timestamp.nullable(),
  decided_at: timestamp.nullable().describe('When it was approved or rejected'),
  rejection_reason: z.string().nullable(),
  audience_id: z.string().nullable().describe('Approved: the static audience the affiliate was added to'),
  affiliate_id: z.string().nullable().describe('Approved: the affiliate'),
  granted_code: z.string().nullable().describe('Approved: the desired code when it was free and given'),
});

export const ownApplicationSchema = applicationSchema.extend({
  affiliate: affiliateSchema.nullable().describe('Once approved: the affiliate the application made'),
});

export const applicationListQuery = z.object({ ...pageQuery, status: applicationStatuses.optional() });
export const applicationListSchema = listSchema(applicationSchema);

export const approveBody = z.strictObject({ audience_id: resourceId.describe('A static audience segment of the project; the affiliate joins it') });
export const rejectBody = z.strictObject({
  reason: z
    .string()
    .max(AGENCY_TEXT_LIMITS.reasonLength * 2)
    .describe(`Required, 1 to ${AGENCY_TEXT_LIMITS.reasonLength} characters; recorded with the rejection`),
});
export const holdBody = z.strictObject({
  note: z
    .string()
    .max(APPLICATION_LIMITS.noteLength * 2)
    .optional()
    .describe(`Up to ${APPLICATION_LIMITS.noteLength} characters`),
});

export const bulkBody = z.strictObject({
  action: z.enum(enumNames(ApplicationAction)),
  application_ids: z.array(resourceId).describe(`1 to ${APPLICATION_LIMITS.maxBulkIds} application ids`),
  audience_id: resourceId.optional().describe('approve: the static audience segment'),
  reason: z
    .string()
    .max(AGENCY_TEXT_LIMITS.reasonLength * 2)
    .optional()
    .describe('reject: required'),
  note: z
    .string()
    .max(APPLICATION_LIMITS.noteLength * 2)
    .optional()
    .describe('hold: optional'),
});

export const bulkResultSchema = z.object({
  results: z
    .array(
      z.object({
        application_id: z.string(),
        ok: z.boolean(),
        application: applicationSchema.nullable().describe('Set when this application was decided'),
        error: z
          .object({ code: z.string(), message: z.string(), details: z.array(z.object({ field: z.string(), reason: z.string() })) })
          .nullable()
          .describe('Set when this application was refused (it alone), e.g. APPLICATION_DECIDED or APPLICATION_NOT_FOUND'),
      }),
    )
    .describe('One per id, in the order given'),
});
