import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key. */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The headers of a delivery, the Standard Webhooks way (https://www.standardwebhooks.com):
 * `webhook-signature` is `v1,` and the base64 HMAC-SHA256, keyed by the secret's decoded bytes, of
 * `<webhook-id>.<webhook-timestamp>.<body>`; the timestamp is unix seconds.
 */
export function signatureHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
