import { z } from 'zod';
import { optionalEnv, requiredInProduction, serviceEnv } from '../platform/config';
import { DEVELOPMENT_KEY_ID, developmentKeyRing, parseKeyRing } from '../platform/crypto/field-cipher';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { DeliverySettings } from './domain/delivery-settings';

const ENCRYPTION_VARIABLES = ['WEBHOOK_SECRET_KEYS', 'WEBHOOK_SECRET_ACTIVE_KEY_ID'] as const;

export const webhooksConfigSchema = z
  .object({
    ...serviceEnv(SERVICE_CATALOG.webhooks.defaultGrpcPort),
    /**
     * Keys that encrypt endpoints' signing secrets: `id:base64key,...` (32 bytes each). The secrets
     * must stay usable for HMAC, so they are sealed (not hashed); keep retired keys listed until no
     * stored secret names them.
     */
    WEBHOOK_SECRET_KEYS: optionalEnv(z.string()),
    WEBHOOK_SECRET_ACTIVE_KEY_ID: optionalEnv(z.string()),
    /** How long one delivery attempt may take (connect, send, answer) before it counts as failed. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Attempts per delivery at most (the retry window usually ends them first). */
    WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(20),
    /** The first retry's delay; each next one doubles, less up to half of it at random (jitter). */
    WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
    /** A delivery that still fails this long after its event arrived is given up (failed). */
    WEBHOOK_RETRY_WINDOW_HOURS: z.coerce
      .number()
      .min(0)
      .max(24 * 7)
      .default(24),
    /** Deliveries in flight at once per process. */
    WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  })
  .superRefine(requiredInProduction(ENCRYPTION_VARIABLES))
  .transform((env, ctx) => {
    const { WEBHOOK_SECRET_KEYS: spec, WEBHOOK_SECRET_ACTIVE_KEY_ID: activeKeyId, ...rest } = env;
    if (spec === undefined && activeKeyId === undefined) {
      return { ...rest, encryption: { keys: developmentKeyRing(), activeKeyId: DEVELOPMENT_KEY_ID, development: true } };
    }
    const ring = spec === undefined ? undefined : parseKeyRing(spec);
    if (ring === undefined)
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET_KEYS'], message: 'must be set together with WEBHOOK_SECRET_ACTIVE_KEY_ID' });
    else if ('problem' in ring) ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET_KEYS'], message: ring.problem });
    if (activeKeyId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET_ACTIVE_KEY_ID'], message: 'must be set together with WEBHOOK_SECRET_KEYS' });
    } else if (ring && 'keys' in ring && !ring.keys.has(activeKeyId)) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET_ACTIVE_KEY_ID'], message: 'names no key listed in WEBHOOK_SECRET_KEYS' });
    }
    if (!ring || 'problem' in ring || activeKeyId === undefined || !ring.keys.has(activeKeyId)) return z.NEVER;
    return { ...rest, encryption: { keys: ring.keys, activeKeyId, development: false } };
  });

export type WebhooksConfig = z.output<typeof webhooksConfigSchema>;

export function deliverySettingsOf(config: WebhooksConfig): DeliverySettings {
  return {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_HOURS * 3_600_000,
    production: config.NODE_ENV === 'production',
  };
}
