import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { ApiKeyRecord } from '../access/api-key.repository';
import { canonicalUuid } from '../../services/rules/ids';
import { looksLikeApiKey } from '../access/api-key-secret';
import type { AccessService } from '../access/access.service';
import { HttpError } from '../http/errors';
import type { RateLimiter } from '../http/rate-limit';
import type { ApiKeyCache } from './api-key-cache';
import type { AuthRequirement, Caller } from './caller';
import type { SessionTokens, WalletSession } from './session-token';

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

const unauthenticated = (message: string, code = 'UNAUTHENTICATED') => new HttpError(401, code, message, [], { 'WWW-Authenticate': 'Bearer' });

/** The kinds of credential, as a 401 names them. */
type CredentialKind = 'platform' | 'api_key' | 'session';

const TAKES: Record<CredentialKind, string> = {
  platform: 'the platform key (Authorization: Bearer <PLATFORM_API_KEY of this deployment>)',
  api_key: 'a project API key (Authorization: Bearer <key shown once by POST /api/v1/projects or POST /api/v1/projects/{projectId}/api-keys>)',
  session: 'a wallet session token (Authorization: Bearer <token from POST /api/v1/auth/verify>)',
};

const SENT: Record<CredentialKind, string> = {
  platform: 'the platform key was sent',
  api_key: 'an API key was sent',
  session: 'a wallet session token was sent',
};

/**
 * A valid credential of another kind than the path takes: its own code, and a message that says
 * which kind the path takes and how to get one, rather than calling a working credential invalid.
 */
const wrongKind = (expected: CredentialKind, sent: CredentialKind) =>
  unauthenticated(`this endpoint takes ${TAKES[expected]}; ${SENT[sent]}`, 'WRONG_CREDENTIAL_KIND');

/**
 * Decides who is calling and whether they may: 401 without a valid credential (WRONG_CREDENTIAL_KIND
 * for a valid one of another kind), 404 for another project's resources (a foreign id is never
 * confirmed to exist), 403 for the wrong role, 429 past the caller's rate limit.
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
      case 'user_or_session':
        return this.authenticateUserOrSession(req, requirement);
    }
  }

  /**
   * A project API key (its project; the request names the user), or a wallet session acting for its
   * own wallet in the project of the `project_id` query parameter, which must exist. With a key,
   * a `project_id` that names another project is not found, like any foreign id.
   */
  private async authenticateUserOrSession(req: Request, { roles }: Extract<AuthRequirement, { kind: 'user_or_session' }>): Promise<Caller> {
    const token = bearerToken(req);
    if (!token) throw unauthenticated('send a project API key or a wallet session token as Authorization: Bearer <token>');
    const session = this.session(token);
    const projectParam = req.query.project_id;
    if (projectParam !== undefined && typeof projectParam !== 'string') {
      throw new HttpError(400, 'VALIDATION_FAILED', 'project_id: must be given once, as a project id', [
        { field: 'project_id', reason: 'must be one project id' },
      ]);
    }
    const namedProject = projectParam === undefined ? undefined : canonicalUuid(projectParam);
    if (session) {
      if (namedProject === undefined) {
        throw new HttpError(400, 'VALIDATION_FAILED', 'project_id: a wallet session acts in the project named by the project_id query parameter', [
          { field: 'project_id', reason: 'is required with a wallet session token' },
        ]);
      }
      if (!(await this.access.projectExists(namedProject))) throw projectNotFound();
      this.limit(`session:${session.address}`);
      return { kind: 'session', address: session.address, projectId: namedProject };
    }
    const key = await this.apiKey(token);
    if (!key) {
      if (this.isPlatformKey(token)) {
        throw unauthenticated(`this endpoint takes ${TAKES.api_key} or ${TAKES.session}; ${SENT.platform}`, 'WRONG_CREDENTIAL_KIND');
      }
      throw unauthenticated('the API key or session token is not valid (revoked, or expired: sign in again)');
    }
    if (namedProject !== undefined && namedProject !== key.projectId) throw projectNotFound();
    if (!roles.includes(key.role)) {
      throw new HttpError(
        403,
        'FORBIDDEN',
        `this endpoint needs a key with role ${roles.join(' or ')} (or the wallet's own session); this key is ${key.role}`,
      );
    }
    this.limit(`key:${key.id}`);
    return { kind: 'api_key', keyId: key.id, projectId: key.projectId, role: key.role };
  }

  private async authenticatePlatform(req: Request): Promise<Caller> {
    if (!this.platformKeyHash) {
      throw new HttpError(403, 'PLATFORM_KEY_NOT_CONFIGURED', 'project creation is disabled: the server has no PLATFORM_API_KEY set');
    }
    const token = bearerToken(req);
    if (!token) throw unauthenticated('send the platform key as Authorization: Bearer <key>');
    if (!this.isPlatformKey(token)) {
      const other = this.session(token) ? 'session' : (await this.apiKey(token)) ? 'api_key' : undefined;
      throw other ? wrongKind('platform', other) : unauthenticated('the platform key is not valid');
    }
    this.limit('platform');
    return { kind: 'platform' };
  }

  private async authenticateApiKey(req: Request, { roles, project }: Extract<AuthRequirement, { kind: 'api_key' }>): Promise<Caller> {
    const token = bearerToken(req);
    if (!token) throw unauthenticated('send an API key as Authorization: Bearer <key>');
    const key = await this.apiKey(token);
    if (!key) {
      const other = this.session(token) ? 'session' : this.isPlatformKey(token) ? 'platform' : undefined;
      throw other ? wrongKind('api_key', other) : unauthenticated('the API key is not valid or has been revoked');
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
    const session = this.session(token);
    if (!session) {
      const other = this.isPlatformKey(token) ? 'platform' : (await this.apiKey(token)) ? 'api_key' : undefined;
      throw other ? wrongKind('session', other) : unauthenticated('the session token is not valid or has expired; sign in again');
    }
    const projectId = projectInPath(req);
    if (!(await this.access.projectExists(projectId))) throw projectNotFound();
    this.limit(`session:${session.address}`);
    return { kind: 'session', address: session.address, projectId };
  }

  private isPlatformKey(token: string): boolean {
    return this.platformKeyHash !== undefined && timingSafeEqual(sha256(token), this.platformKeyHash);
  }

  private session(token: string): WalletSession | undefined {
    return this.sessions.verify(token);
  }

  /** The active API key a token is, from the cache or PostgreSQL; a token not shaped like one costs no query. */
  private async apiKey(token: string): Promise<ApiKeyRecord | undefined> {
    if (!looksLikeApiKey(token)) return undefined;
    // The one-shot digest: a Hash object per request costs more than the digest itself.
    const keyHash = hash('sha256', token, 'base64');
    const cached = this.cache.get(keyHash);
    if (cached) return cached;
    const epoch = this.cache.currentEpoch();
    const key = await this.access.verifyApiKey(token);
    if (key) this.cache.set(keyHash, key, epoch);
    return key;
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
