import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../services/platform/clock';

/** What a session token stands for: one wallet address, until it expires. */
export interface WalletSession {
  /** Lowercase 0x address. */
  address: string;
  issuedAt: Date;
  expiresAt: Date;
}

const VERSION = 'v1';
const TOKEN = /^v1\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;

interface Payload {
  sub: string;
  iat: number;
  exp: number;
}

/**
 * Compact, stateless wallet session tokens: `v1.<payload>.<mac>`, where the payload is base64url
 * JSON `{ sub, iat, exp }` (address, unix seconds) and the mac is HMAC-SHA256 over `v1.<payload>`
 * with SESSION_SECRET. Nothing is stored server-side, so a token ends only by expiring: lifetimes
 * are short (SESSION_TTL_SECONDS), and rotating SESSION_SECRET ends every session at once.
 */
export class SessionTokens {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {
    this.key = Buffer.from(secret, 'utf8');
  }

  issue(address: string): { token: string; session: WalletSession } {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const payload: Payload = { sub: address.toLowerCase(), iat, exp: iat + this.ttlSeconds };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return { token: `${body}.${this.mac(body).toString('base64url')}`, session: toSession(payload) };
  }

  /** The session a token stands for, or undefined when it is malformed, forged or expired. */
  verify(token: string): WalletSession | undefined {
    const match = TOKEN.exec(token);
    if (!match) return undefined;
    const body = `${VERSION}.${match[1]}`;
    const given = Buffer.from(match[2]!, 'base64url');
    const expected = this.mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const payload = parsePayload(match[1]!);
    if (!payload) return undefined;
    if (this.clock.now().getTime() >= payload.exp * 1000) return undefined;
    return toSession(payload);
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}

function parsePayload(encoded: string): Payload | undefined {
  try {
    const value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Payload;
    if (typeof value.sub === 'string' && ADDRESS.test(value.sub) && Number.isInteger(value.iat) && Number.isInteger(value.exp)) return value;
  } catch {
    // Falls through: a payload that does not parse is no session.
  }
  return undefined;
}

function toSession(payload: Payload): WalletSession {
  return { address: payload.sub, issuedAt: new Date(payload.iat * 1000), expiresAt: new Date(payload.exp * 1000) };
}
