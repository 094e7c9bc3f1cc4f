import { z } from 'zod';
import { pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';
import { leaderboardUserTypes } from '../claim/claim.schemas';
import { timestamp } from './agency.schemas';

/**
 * HTTP shapes of the volume, revenue and referred-users leaderboards and of referred volumes by user,
 * as the Fuul SDK (7.41.0) sends and reads them (docs/affiliates.md#leaderboards).
 */

const ownEntry = {
  user_identifier: userIdentifier(z.string().min(1).max(512)).optional().describe('Only this user’s entry, with its rank'),
  user_address: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('The same as user_identifier (the Fuul SDK’s deprecated name); the two must agree when both are sent'),
  identifier_type: identifierTypeQuery.optional().describe('The type of user_identifier (the name the Fuul SDK sends); evm_address when left out'),
  user_identifier_type: identifierTypeQuery.optional().describe('The same as identifier_type'),
};

export const metricBoardQuery = z.object({
  ...pageQuery,
  ...ownEntry,
  user_type: leaderboardUserTypes
    .default('affiliate')
    .describe('affiliate: affiliates by what the users they referred brought; end_user: users by what their own conversions brought'),
  currency_address: z.string().max(128).optional().describe('Accepted and not used: volume and revenue are in USD, whatever the currency'),
  fields: z.string().max(200).optional().describe('Accepted and not used: each entry carries its conversions as `attributions`'),
});

const boardFields = {
  total_results: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  calculated_at: timestamp.describe('When the board was read (after the request arrived: identical requests that overlap share a read)'),
};

const rankedUser = {
  rank: z.number().int().describe('From 1: affiliates’ ties by affiliate id, end users’ by identifier'),
  address: z.string().describe('The user’s identifier'),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  affiliate_code: z.string().nullable().describe('The affiliate’s oldest code; null for an end user'),
};

export const volumeBoardSchema = z.object({
  results: z.array(
    z.object({
      ...rankedUser,
      total_amount: z.string().describe('USD volume as a decimal string'),
      chain_id: z.null().describe('Always null: volume is in USD, on no chain'),
    }),
  ),
  ...boardFields,
});

export const revenueBoardSchema = z.object({
  results: z.array(
    z.object({
      ...rankedUser,
      total_amount: z.string().describe('USD revenue as a decimal string'),
      attributions: z.number().int().describe('The conversions behind it'),
    }),
  ),
  ...boardFields,
});

export const referredUsersQuery = z.object({ ...pageQuery, ...ownEntry });

export const referredUsersBoardSchema = z.object({
  results: z.array(
    z.object({
      rank: z.number().int().describe('From 1, ties by affiliate id'),
      address: z.string().describe('The affiliate’s identifier'),
      user_identifier: z.string(),
      user_identifier_type: z.string(),
      total_referred_users: z.number().int().describe('The users it referred, converted or not'),
    }),
  ),
  ...boardFields,
});

export const referredVolumeQuery = z.object({
  user_identifiers: z
    .string()
    .min(1)
    .max(100 * 513)
    .transform((value) => value.split(',').map((identifier) => identifier.trim()))
    .pipe(z.array(z.string()).max(100, 'at most 100 users'))
    .describe('The users, separated by commas (1 to 100), as the Fuul SDK joins them'),
  identifier_type: identifierTypeQuery.optional().describe('Their type; evm_address when left out'),
  no_cache: z.enum(['true', 'false']).optional().describe('Accepted: every answer is read when asked'),
});

export const referredVolumeSchema = z.object({
  project_id: z.string(),
  referred_volumes: z.array(
    z.object({
      user_identifier: z.string().describe('As sent'),
      referred_volume: z
        .number()
        .describe('USD: what the users it referred brought (0 when it is no affiliate); a JSON number as the Fuul SDK types it'),
    }),
  ),
  total_count: z.number().int(),
});
