import { z } from 'zod';

/** HTTP shapes of wallet sign-in (Sign-In with Ethereum, EIP-4361). */
const timestamp = z.string().describe('ISO-8601 UTC');

export const nonceBody = z.strictObject({
  address: z.string().max(64).describe('The wallet address that will sign: 0x followed by 40 hex digits, any letter case'),
});

export const nonceSchema = z.object({
  nonce: z.string(),
  message: z
    .string()
    .describe('The EIP-4361 message to sign with personal_sign (EIP-191), exactly as given; it carries the nonce, issued-at and expiration time'),
  expires_at: timestamp.describe('After this the message can no longer be verified; request a new nonce'),
});

export const verifyBody = z.strictObject({
  message: z.string().max(4_096).describe('The message from POST /api/v1/auth/nonce, unchanged'),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature: 0x followed by 130 hex digits')
    .describe('The personal_sign (EIP-191) signature of the message by its address'),
});

export const sessionSchema = z.object({
  token: z.string().describe('Send as Authorization: Bearer <token> to the affiliate portal; it acts for `address` only'),
  address: z.string().describe('The signed-in address, lowercase'),
  expires_at: timestamp,
});
