import { z } from 'zod';
import { optionalEnv, requiredInProduction, serviceEnv } from '../platform/config';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import { DEVELOPMENT_KEY_ID, developmentKeyRing, parseKeyRing } from '../platform/crypto/field-cipher';

const ENCRYPTION_VARIABLES = ['TAX_ENCRYPTION_KEYS', 'TAX_ENCRYPTION_ACTIVE_KEY_ID'] as const;

export const taxConfigSchema = z
  .object({
    ...serviceEnv(SERVICE_CATALOG.tax.defaultGrpcPort),
    /**
     * Keys that encrypt tax identification numbers: `id:base64key,...` (32 bytes each). Keep
     * retired keys listed until no stored value names them; new values use the active key.
     */
    TAX_ENCRYPTION_KEYS: optionalEnv(z.string()),
    TAX_ENCRYPTION_ACTIVE_KEY_ID: optionalEnv(z.string()),
    /** How often approved W-8 forms past their expiry are moved to expired. */
    W8_EXPIRY_SWEEP_EVERY_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  })
  .superRefine(requiredInProduction(ENCRYPTION_VARIABLES))
  .transform((env, ctx) => {
    const { TAX_ENCRYPTION_KEYS: spec, TAX_ENCRYPTION_ACTIVE_KEY_ID: activeKeyId, ...rest } = env;
    if (spec === undefined && activeKeyId === undefined) {
      return { ...rest, encryption: { keys: developmentKeyRing(), activeKeyId: DEVELOPMENT_KEY_ID, development: true } };
    }
    // Every problem at once, so a deployment is fixed in one pass.
    const ring = spec === undefined ? undefined : parseKeyRing(spec);
    if (ring === undefined)
      ctx.addIssue({ code: 'custom', path: ['TAX_ENCRYPTION_KEYS'], message: 'must be set together with TAX_ENCRYPTION_ACTIVE_KEY_ID' });
    else if ('problem' in ring) ctx.addIssue({ code: 'custom', path: ['TAX_ENCRYPTION_KEYS'], message: ring.problem });
    if (activeKeyId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['TAX_ENCRYPTION_ACTIVE_KEY_ID'], message: 'must be set together with TAX_ENCRYPTION_KEYS' });
    } else if (ring && 'keys' in ring && !ring.keys.has(activeKeyId)) {
      ctx.addIssue({ code: 'custom', path: ['TAX_ENCRYPTION_ACTIVE_KEY_ID'], message: 'names no key listed in TAX_ENCRYPTION_KEYS' });
    }
    if (!ring || 'problem' in ring || activeKeyId === undefined || !ring.keys.has(activeKeyId)) return z.NEVER;
    return { ...rest, encryption: { keys: ring.keys, activeKeyId, development: false } };
  });

export type TaxConfig = z.output<typeof taxConfigSchema>;
