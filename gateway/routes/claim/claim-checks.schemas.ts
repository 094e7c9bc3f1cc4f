import { z } from 'zod';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../../services/rules/pagination';
import { PAYOUT_KINDS } from '../../../services/rules/payout-vocabulary';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, resourceId, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of claim checks and vouchers, as the published @fuul/sdk (7.41.0) reads and sends
 * them: its query names, its camelCase body fields, its response keys. Amounts are decimal strings
 * of base units; on-chain times are unix seconds.
 */

/** The API's names of a check's status: a closed check is one whose voucher is out, unclaimed. */
export const CLAIM_CHECK_LIST_STATUSES = ['open', 'unclaimed', 'claimed', 'expired'] as const;
export type ClaimCheckListStatus = (typeof CLAIM_CHECK_LIST_STATUSES)[number];

export const MAX_CLOSE_IDS = 100;

const identifier = userIdentifier(z.string().min(1).max(512));
const identifierType = z.string().max(64);
const projectIdQuery = z
  .string()
  .max(64)
  .optional()
  .describe('With a wallet session token: the project it acts in (required). With an API key: the key’s own project, if given');

/** Whose checks: named by an API key caller; a wallet session acts for its own wallet. */
const userQuery = {
  user_identifier: identifier.optional().describe('The user (required with an API key; with a wallet session, its own address or left out)'),
  user_identifier_type: identifierTypeQuery.optional().describe('The identifier’s type; evm_address when left out'),
  project_id: projectIdQuery,
};

export const claimCheckListQuery = z.object({
  ...userQuery,
  status: z
    .enum(CLAIM_CHECK_LIST_STATUSES)
    .optional()
    .describe(
      'open: accumulating; unclaimed: closed into a voucher not redeemed yet; claimed: redeemed on chain; expired: its voucher expired ' +
        'unredeemed and its amount went back to an open check. Left out: every status but expired',
    ),
  ...pageQuery,
});

export const userOnlyQuery = z.object(userQuery);

export const claimHistoryQuery = z.object({
  ...userQuery,
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1).describe('Page number, from 1'),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(25).describe(`Rows per page, 1 to ${MAX_PAGE_SIZE}`),
});

/** The SDK sends userIdentifier / userIdentifierType; the snake_case names are accepted too (one spelling per request). */
const userBody = {
  userIdentifier: identifier.optional().describe('The user, as the Fuul SDK sends it (required with an API key)'),
  userIdentifierType: identifierType.optional().describe('The identifier’s type; evm_address when left out'),
  user_identifier: identifier.optional().describe('The same as userIdentifier'),
  user_identifier_type: identifierType.optional().describe('The same as userIdentifierType'),
};

export const closeBody = z.strictObject({
  ...userBody,
  claim_check_ids: z
    .array(resourceId)
    .min(1)
    .max(MAX_CLOSE_IDS)
    .describe(`1 to ${MAX_CLOSE_IDS} of the user’s claim check ids; each open one is signed, each closed one answers its voucher again`),
});

export const claimBody = z.strictObject(userBody);

const currencyFields = {
  currency_address: z.string().describe('The token contract, or 0x0000000000000000000000000000000000000000 for the native coin'),
  currency_chain_id: z
    .string()
    .describe(
      'The chain id as a decimal string: the Fuul SDK types this shape’s chain id as a string (everywhere else the API writes a JSON number)',
    ),
  currency_name: z.string(),
  currency_decimals: z.number().int(),
};

const restrictionMessage = z.string().describe('Present only when the tax gate withholds the check: what the user must do to claim it');

/** The refusals of a close that the program's set-up causes, which a listed open check names ahead of any close. */
export const CLOSE_UNAVAILABLE_CODES = ['CHAIN_NOT_CONFIGURED', 'CLAIM_SETTINGS_MISSING'] as const;

export const claimCheckItemSchema = z.object({
  id: z.string(),
  ...currencyFields,
  reason: z
    .enum(PAYOUT_KINDS)
    .describe(
      'The kind of payout the check holds, named as movements and leaderboards name it (specification §2.12). Its voucher carries ' +
        'the numeric reason of the ClaimCheck struct instead: 0 affiliate_payout, 1 end_user_payout, 2 agency_payout',
    ),
  amount: z.string().describe('Base units, as a decimal string'),
  status: z.enum(CLAIM_CHECK_LIST_STATUSES),
  deadline_seconds: z.number().int().nullable().optional().describe('The voucher’s deadline (unix seconds); null while open; absent when restricted'),
  created_at: z.string().describe('ISO-8601 UTC'),
  restriction_message: restrictionMessage.optional(),
  close_unavailable: z
    .enum(CLOSE_UNAVAILABLE_CODES)
    .optional()
    .describe(
      'Only on an open check that POST /api/v1/claim-checks/close would refuse for the program’s set-up, with the code it would answer: ' +
        'CHAIN_NOT_CONFIGURED (claims on the currency’s chain are not set up yet), CLAIM_SETTINGS_MISSING (the project has no on-chain address yet). ' +
        'The amount stays in the check; it closes once the program is set up',
    ),
});

export const claimCheckListSchema = listSchema(claimCheckItemSchema).extend({
  claim_checks: z.array(claimCheckItemSchema).describe('The same items as results (the key the Fuul SDK reads)'),
});

export const claimResponseSchema = z
  .object({
    id: z.string().describe('The claim check'),
    project_address: z.string(),
    to: z.string().describe('Who the voucher pays'),
    currency: z.string(),
    currency_type: z.number().int().describe('0 native, 1 ERC-20 (IFuulProject.TokenType)'),
    amount: z.string().describe('Base units, as a decimal string'),
    reason: z
      .number()
      .int()
      .describe('The ClaimCheck struct’s numeric reason (IFuulManager.ClaimReason): 0 affiliate_payout, 1 end_user_payout, 2 agency_payout'),
    token_id: z.string().describe('Always "0": fungible currencies'),
    chain_id: z.number().int().describe('The chain to redeem it on (the EIP-712 domain’s chainId), a JSON number'),
    deadline: z.number().int().optional().describe('Unix seconds: redeemable while block.timestamp <= deadline; absent when restricted'),
    proof: z.string().optional().describe('32 bytes, unique: the contract redeems a proof once; absent when restricted'),
    signatures: z.array(z.string()).optional().describe('One EIP-712 signature per signer; absent when restricted'),
    claim_manager: z
      .string()
      .optional()
      .describe(
        'The ClaimManager contract the voucher was signed for (its EIP-712 verifyingContract): send claim([...]) there; absent when restricted',
      ),
    restriction_message: restrictionMessage.optional(),
  })
  .describe('Fuul v2’s ClaimCheck struct, ready for ClaimManager.claim([...])');

export const claimResponsesSchema = z.array(claimResponseSchema);

const totalItem = z.object({ ...currencyFields, amount: z.string().describe('Base units, as a decimal string') });

export const totalsSchema = z.object({
  claimed: z.array(totalItem).describe('Redeemed on chain, per currency'),
  unclaimed: z.array(totalItem).describe('Not redeemed yet (open, or closed into a voucher), per currency'),
  pending: z
    .array(totalItem)
    .describe('Pending, per currency: movements held or waiting for an approval, in no check yet (they join `unclaimed` once available)'),
  debt: z
    .array(totalItem)
    .describe(
      'Owed, per currency: reversals of amounts a voucher had already carried (closed, claimed or expired). Paid first out of what the user earns next; absent currencies owe nothing',
    ),
});

export const claimHistorySchema = z.object({
  results: z.array(
    z.object({
      hash: z.string().describe('The transaction that redeemed the vouchers'),
      claimed_at: z.string().describe('ISO-8601 UTC: the time of its block'),
      ...currencyFields,
      amount: z.string().describe('Base units, summed over the transaction’s vouchers in this currency'),
    }),
  ),
  total_count: z.number().int().describe('(transaction, currency) rows'),
  next_page: z.number().int().nullable().describe('page + 1 while more rows follow; otherwise null'),
});

export const claimSettingsBody = z.strictObject({
  project_address: z
    .string()
    .max(64)
    .describe('The project’s account in the ClaimManager (0x + 40 hex): its deposits are held under it, and every voucher names it'),
});

export const claimSettingsSchema = z.object({
  project_address: z.string(),
  updated_at: z.string().describe('ISO-8601 UTC'),
});
