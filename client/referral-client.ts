import type { IdentifierType } from '../gen/referral/common/v1/common';
import type { EnumName } from '../services/rules/enums';

/**
 * The public TypeScript client. By design it exposes only the user-audiences lookup: audience
 * writes (add, remove, batch, badges) are available over HTTP only.
 */

/** evm_address, solana_address, …: the vocabulary referral.common.v1.IdentifierType (types only: nothing of it runs here). */
export type UserIdentifierType = EnumName<typeof IdentifierType>;

export interface UserAudience {
  id: string;
  name: string;
  badgeName: string | null;
  badgeDescription: string | null;
  badgeImage: string | null;
}

export interface ReferralClientOptions {
  /** Where the gateway answers, e.g. https://referrals.example.com */
  baseUrl: string;
  /** A project API key with the service_role (or read_only) role. */
  apiKey: string;
  /** Per request; default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** An error answer of the API, with its stable code (e.g. VALIDATION_FAILED) and field details. */
export class ReferralApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ field: string; reason: string }>,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ReferralApiError';
  }
}

interface UserAudiencesBody {
  results: Array<{
    id: string;
    name: string;
    badge_name: string | null;
    badge_description: string | null;
    badge_image: string | null;
  }>;
}

export class ReferralClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ReferralClientOptions) {
    if (!options.apiKey) throw new Error('ReferralClient needs an apiKey');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** The audiences a user belongs to, with each audience's badge (empty when in none). */
  async getUserAudiences(user: { userIdentifier: string; userIdentifierType: UserIdentifierType }): Promise<UserAudience[]> {
    const query = new URLSearchParams({ user_identifier: user.userIdentifier, user_identifier_type: user.userIdentifierType });
    const body = await this.get(`/v1/audiences/audience-segments/user?${query}`, isUserAudiencesBody);
    return body.results.map((audience) => ({
      id: audience.id,
      name: audience.name,
      badgeName: audience.badge_name,
      badgeDescription: audience.badge_description,
      badgeImage: audience.badge_image,
    }));
  }

  /** GET as JSON; an answer that is not the shape `isExpected` checks is an error, never trusted as it. */
  private async get<T>(path: string, isExpected: (body: unknown) => body is T): Promise<T> {
    const response = await this.fetch(`${this.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const error = isRecord(body) ? body : {};
      throw new ReferralApiError(
        response.status,
        typeof error.code === 'string' ? error.code : 'HTTP_ERROR',
        typeof error.message === 'string' ? error.message : `request failed with HTTP ${response.status}`,
        Array.isArray(error.details) ? error.details.filter(isFieldViolation) : [],
        response.headers.get('x-request-id'),
      );
    }
    if (!isExpected(body)) {
      throw new ReferralApiError(
        response.status,
        'UNEXPECTED_RESPONSE',
        `the answer to ${path} is not the documented shape`,
        [],
        response.headers.get('x-request-id'),
      );
    }
    return body;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNullableString = (value: unknown) => value === null || typeof value === 'string';

function isFieldViolation(value: unknown): value is { field: string; reason: string } {
  return isRecord(value) && typeof value.field === 'string' && typeof value.reason === 'string';
}

function isUserAudiencesBody(body: unknown): body is UserAudiencesBody {
  return (
    isRecord(body) &&
    Array.isArray(body.results) &&
    body.results.every(
      (item) =>
        isRecord(item) &&
        typeof item.id === 'string' &&
        typeof item.name === 'string' &&
        isNullableString(item.badge_name) &&
        isNullableString(item.badge_description) &&
        isNullableString(item.badge_image),
    )
  );
}
