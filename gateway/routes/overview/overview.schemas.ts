import { z } from 'zod';

/** The longest period the home reads: a year and a day (a leap year's 366 days). */
export const MAX_PERIOD_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const utcDay = z
  .string()
  .regex(DAY, 'must be a UTC day (YYYY-MM-DD)')
  // 2026-02-30 rolls over into March: no such day.
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value;
  }, 'is no such day');

export const overviewQuery = z.object({
  from: utcDay.describe('The first UTC day of the period (YYYY-MM-DD), included'),
  to: utcDay.describe(`The last UTC day of the period (YYYY-MM-DD), included; at most ${MAX_PERIOD_DAYS} days after from`),
});

const currencySchema = z.object({
  id: z.string(),
  name: z.string(),
  decimals: z.number().int(),
  chain_id: z.number().int().nullable(),
  address: z.string().nullable(),
});

const amountSchema = z.object({
  currency_id: z.string(),
  amount: z.string().describe('Base units, a decimal string'),
});

const daySchema = z.object({
  day: z.string().describe('A UTC day (YYYY-MM-DD)'),
  conversions: z.number().int(),
  volume_usd: z.string(),
  payouts: z.array(amountSchema).describe('What the day’s conversions pay, per currency that has an amount'),
});

export const overviewSchema = z.object({
  project: z.object({ id: z.string(), name: z.string() }),
  period: z.object({ from: z.string(), to: z.string() }),
  queues: z.object({
    applications_pending: z.number().int(),
    tax_forms_to_review: z.number().int(),
    conversions_in_review: z.number().int(),
    failing_webhooks: z.number().int(),
  }),
  figures: z.object({
    conversions: z.number().int().describe('Conversions received in the period, any status'),
    volume_usd: z.string(),
    new_affiliates: z.number().int(),
    currencies: z.array(currencySchema).describe('The currencies that `payouts` and the days’ payouts name'),
    payouts: z.array(amountSchema).describe('What the period’s conversions pay (net of reversals, declined movements left out)'),
    days: z.array(daySchema).describe('Every UTC day of the period, oldest first, days without conversions included'),
    complete: z
      .boolean()
      .describe('False when the period holds more conversions or new affiliates than the home reads: the figures are then of the newest ones'),
  }),
  top_affiliates: z
    .array(
      z.object({
        user_identifier: z.string(),
        user_identifier_type: z.string(),
        name: z.string().nullable(),
        conversions: z.number().int(),
        volume_usd: z.string(),
      }),
    )
    .describe('Up to five affiliates, by the volume of the period’s conversions attributed to them'),
});

export type Overview = z.infer<typeof overviewSchema>;
