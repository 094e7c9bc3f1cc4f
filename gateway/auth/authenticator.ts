import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { AccessService } from '../access/access.service';
import { HttpError } from '../http/errors';
import type { RateLimiter } from '../http/rate-limit';
import type { ApiKeyCache } from './api-key-cache';
import type { AuthRequirement, Caller } from './caller';
import type { SessionTokens } from './session-token';

function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(header);
  return match?.[1];
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

const projectNotFound = () => new HttpError(404, 'PROJECT_NOT_FOUND', 'no project with this id');

/** The project a route scoped by path acts in (canonical by then: gateway/http/route.ts reads params first). */
function projectInPath(req: Request): string {
  const projectId = req.params.projectId;
  if (typeof projectId !== 'string') throw new Error(`${req.path}: a route scoped by path has no :projectId`);
  return projectId;
}

const unauthenticated = (message: string) => new HttpError(401, 'UNAUTHENTICATED', message, [], { 'WWW-Authenticate': 'Bearer' });

/**
 * Decides who is calling and whether they may: 401 without a valid credential, 404 for another
 * project's resources (a foreign id is never confirmed to exist), 403 for the wrong role,
 * 429 past the caller's rate limit.
 */
export class Authenticator {
  private readonly platformKeyHash: Buffer | undefined;

  constructor(
    private readonly access: AccessService,
    private readonly cache: ApiKeyCache,
    private readonly rateLimiter: RateLimiter,
    platformKey: string | undefined,
    private readonly sessions: SessionTokens,
  ) {
    this.platformKeyHash = platformKey ? sha256(platformKey) : undefined;
  }

  async authenticate(req: Request, requirement: AuthRequirement): Promise<Caller> {
    switch (requirement.kind) {
      case 'none': {
        const address = req.ip ?? 'unknown';
        this.limit(`ip:${address}`);
        return { kind: 'anonymous', address };
      }
      case 'platform':
        return this.authenticatePlatform(req);
      case 'api_key':
        return this.authenticateApiKey(req, requirement);
      case 'session':
        return this.authenticateSession(req);
    }
  }

  private authenticatePlatform(req: Request): Caller {
    if (!this.platformKeyHash) {
      throw new HttpError(403, 'PLATFORM_KEY_NOT_CONFIGURED', 'project creation is disabled: the server has no PLATFORM_API_KEY set');
    }
    const token = bearerToken(req);
    if (!token) throw unauthenticated('send the platform key as Authorization: Bearer <key>');
    if (!timingSafeEqual(sha256(token), this.platformKeyHash)) throw unauthenticated('the platform key is not valid');
    this.limit('platform');
    return { kind: 'platform' };
  }

  private async authenticateApiKey(req: Request, { roles, project }: Extract<AuthRequirement, { kind: 'api_key' }>): Promise<Caller> {
    const token = bearerToken(req);
    if (!token) throw unauthenticated('send an API key as Authorization: Bearer <key>');
    const hash = sha256(token).toString('base64');
    let key = this.cache.get(hash);
    if (!key) {
      const epoch = this.cache.currentEpoch();
      key = await this.access.verifyApiKey(token);
      if (!key) throw unauthenticated('the API key is not valid or has been revoked');
      this.cache.set(hash, key, epoch);
    }
    if (project === 'path' && projectInPath(req) !== key.projectId) throw projectNotFound();
    if (!roles.includes(key.role)) {
      throw new HttpError(403, 'FORBIDDEN', `this endpoint needs a key with role ${roles.join(' or ')}; this key is ${key.role}`);
    }
    this.limit(`key:${key.id}`);
    return { kind: 'api_key', keyId: key.id, projectId: key.projectId, role: key.role };
  }

  /** A wallet session acts in the existing project its path names, for its own address only. */
  private async authenticateSession(req: Request): Promise<Caller> {
    const token = bearerToken(req);
    if (!token) {
      throw unauthenticated('sign in with your wallet (POST /api/v1/auth/nonce, then /api/v1/auth/verify) and send Authorization: Bearer <token>');
    }
    const session = this.sessions.verify(token);
    if (!session) throw unauthenticated('the session token is not valid or has expired; sign in again');
    const projectId = projectInPath(req);
    if (!(await this.access.projectExists(projectId))) throw projectNotFound();
    this.limit(`session:${session.address}`);
    return { kind: 'session', address: session.address, projectId };
  }

  private limit(caller: string): void {
    const retryAfterMs = this.rateLimiter.take(caller);
    if (retryAfterMs > 0) {
      throw new HttpError(429, 'RATE_LIMITED', 'too many requests; slow down and retry after the delay in Retry-After', [], {
        'Retry-After': String(Math.ceil(retryAfterMs / 1000)),
      });
    }
  }
}
