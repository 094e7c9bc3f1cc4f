import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyRole } from './access.database';

const PREFIX_BY_ROLE: Record<ApiKeyRole, string> = {
  admin: 'rk_admin_',
  service_role: 'rk_service_',
  read_only: 'rk_read_',
  'send:tracking_event': 'rk_event_',
};

/** A new key: a recognisable prefix (secret scanners and people can spot it) and 256 random bits. */
export function generateApiKey(role: ApiKeyRole): { key: string; hash: Buffer; prefix: string } {
  const key = `${PREFIX_BY_ROLE[role]}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, PREFIX_BY_ROLE[role].length + 4) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** Whether a token has the shape of an API key (its role's prefix); only such tokens are looked up. */
export function looksLikeApiKey(token: string): boolean {
  return Object.values(PREFIX_BY_ROLE).some((prefix) => token.startsWith(prefix));
}
