import { z } from 'zod';
import { TrackingOutcome } from '../../../gen/referral/agency/v1/enums';
import { enumNames } from '../../../services/rules/enums';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery } from '../../http/params';
import { identifier, timestamp } from './agency.schemas';

/** HTTP shapes of the tracking events list (snake_case); the gRPC contract is proto/referral/agency. */
export const trackingEventListQuery = z.object({
  ...pageQuery,
  tracking_id: z.string().min(1).max(256).optional().describe('Only the events of this tracking id (metadata.tracking_id), exactly'),
  name: z.string().min(1).max(256).optional().describe('Only the events of this name (e.g. pageview, connect_wallet), exactly'),
  user_identifier: identifier.optional().describe('Only the events of this user'),
  user_identifier_type: identifierTypeQuery.default('evm_address').describe('The type of user_identifier; evm_address when left out'),
});

export const trackingEventSchema = z.object({
  id: z.string(),
  name: z.string(),
  tracking_id: z.string(),
  user_identifier: z.string().nullable().describe('null for an anonymous event'),
  user_identifier_type: z.string().nullable(),
  signature_verified: z.boolean(),
  referrer: z.string().nullable().describe('metadata.referrer as sent'),
  received_at: timestamp,
  processed_at: timestamp.nullable().describe('null until the event’s batch is processed'),
  outcome: z
    .enum(enumNames(TrackingOutcome))
    .nullable()
    .describe('What processing decided for a pageview naming a code or a connect_wallet; null for other events, or before processing'),
  affiliate_id: z.string().nullable().describe('The affiliate the outcome names (the code’s holder, or the existing referrer)'),
  code: z.string().nullable().describe('The code the outcome names, lower-cased'),
  args: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
});

export const trackingEventListSchema = listSchema(trackingEventSchema);
