import type { IdentifierType } from '../gen/referral/common/v1/common';
import type { EnumName } from '../services/common/enums';

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
    const body = await this.get<UserAudiencesBody>(`/v1/audiences/audience-segments/user?${query}`);
    return body.results.map((audience) => ({
      id: audience.id,
      name: audience.name,
      badgeName: audience.badge_name,
      badgeDescription: audience.badge_description,
      badgeImage: audience.badge_image,
    }));
  }

  private async get<T>(path: string): Promise<T> {
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
      const error = body as { code?: string; message?: string; details?: Array<{ field: string; reason: string }> } | undefined;
      throw new ReferralApiError(
        response.status,
        error?.code ?? 'HTTP_ERROR',
        error?.message ?? `request failed with HTTP ${response.status}`,
        error?.details ?? [],
        response.headers.get('x-request-id'),
      );
    }
    return body as T;
  }
}
