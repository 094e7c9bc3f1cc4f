import { z } from 'zod';
import { listSchema, pageQuery } from '../../http/list';
import { currencyRefSchema } from './claim.schemas';
import { userQuery } from './payout-queries.schemas';

/** HTTP shapes of the points balances (docs/claims.md#points): whole points as decimal strings. */
const points = z.string().describe('Whole points, a decimal string');

const balanceFields = {
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  balance: points,
  credited: points.describe('Every point that became available to the user, a decimal string'),
  taken_back: points.describe('What reversals took back from the balance, a decimal string'),
  updated_at: z.string().nullable().describe('ISO-8601 UTC; null when the user was never credited'),
};

export const pointBalanceQuery = z.object(userQuery);
export const pointBalanceSchema = z.object({ ...balanceFields, currency: currencyRefSchema });

export const pointBalancesQuery = z.object({
  ...pageQuery,
  user_identifier: userQuery.user_identifier.describe('Only this user’s balance (one row, "0" when never credited)'),
  user_identifier_type: userQuery.user_identifier_type,
});
export const pointBalancesSchema = listSchema(z.object(balanceFields)).extend({ currency: currencyRefSchema });
