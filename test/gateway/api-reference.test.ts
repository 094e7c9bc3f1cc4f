import { startStack, type TestStack } from '../helpers/stack';

/** Statuses every operation can answer before or beside its own logic (gateway/openapi/document.ts). */
const ANY = [400, 429, 431, 500];
const SIGNED_IN = [401, 403];
const SERVICES = [503, 504];
const WITH_BODY = [413, 415];
const statuses = (...lists: number[][]) => [...new Set(lists.flat())].sort((a, b) => a - b);
/** Behind a credential, answered by a service. */
const api = (...own: number[]) => statuses(own, ANY, SIGNED_IN, SERVICES);

/** `in:name`, with `?` when not required. */
const PAGE = ['query:page?', 'query:page_size?'];
/** Whose claim checks: named with an API key, or the wallet session's own in the project of project_id. */
const ACTING_USER = ['query:user_identifier?', 'query:user_identifier_type?', 'query:project_id?'];
/** A leaderboard's own entry: the user, under its SDK names and ours. */
const BOARD_USER = ['query:user_identifier?', 'query:user_address?', 'query:identifier_type?', 'query:user_identifier_type?'];
/** The Fuul SDK's camelCase names of the user, and ours (sorted). */
const BODY_USER = ['userIdentifier', 'userIdentifierType', 'user_identifier', 'user_identifier_type'];

interface Expected {
  /** none, platformKey, walletSession, or `apiKey:<roles>` as the description lists them; alternatives joined by `|`. */
  security: string;
  params?: string[];
  /** The JSON body's properties (sorted) and its required list, in declaration order. */
  body?: { properties: string[]; required?: string[] };
  responses: number[];
}

/** Every operation of the API but the /api aliases of the /v1 paths (checked against their twins below). */
const OPERATIONS: Record<string, Expected> = {
  'GET /healthz': { security: 'none', responses: statuses([200], ANY) },
  'GET /readyz': { security: 'none', responses: statuses([200, 503], ANY) },
  'GET /openapi.json': { security: 'none', responses: statuses([200], ANY) },
  'GET /docs': { security: 'none', responses: statuses([200], ANY) },
  'GET /docs/init.js': { security: 'none', responses: statuses([200], ANY) },
  'POST /api/v1/projects': { security: 'platformKey', body: { properties: ['name'], required: ['name'] }, responses: api(201, ...WITH_BODY) },
  'POST /api/v1/projects/{projectId}/api-keys': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['name', 'role'], required: ['role', 'name'] },
    responses: api(201, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/api-keys': { security: 'apiKey:admin', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/api-keys/current': { security: 'apiKey:admin,read_only', params: ['path:projectId'], responses: api(200, 404) },
  'DELETE /api/v1/projects/{projectId}/api-keys/{keyId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:keyId'],
    responses: api(204, 404, 409),
  },
  'POST /api/v1/projects/{projectId}/audiences': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['condition', 'description', 'name', 'tier_rank'], required: ['name'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/audiences': { security: 'apiKey:admin,read_only', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/audiences/{audienceId}': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:audienceId'],
    responses: api(200, 404),
  },
  'PATCH /api/v1/projects/{projectId}/audiences/{audienceId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    body: { properties: ['condition', 'description', 'name', 'tier_rank'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'DELETE /api/v1/projects/{projectId}/audiences/{audienceId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    responses: api(204, 404),
  },
  'POST /api/v1/projects/{projectId}/audiences/{audienceId}/evaluate': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    responses: api(202, 400, 404),
  },
  'GET /api/v1/projects/{projectId}/audiences/{audienceId}/evaluation': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:audienceId'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/audiences/{audienceId}/entries': {
    security: 'apiKey:admin,service_role',
    params: ['path:projectId', 'path:audienceId'],
    body: { properties: ['identifier', 'identifier_type'], required: ['identifier', 'identifier_type'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/audiences/{audienceId}/entries': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:audienceId', ...PAGE, 'query:cursor?', 'query:search?'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/audiences/{audienceId}/entries/batch': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId', 'query:wait?', 'header:idempotency-key?'],
    body: { properties: ['entries'], required: ['entries'] },
    responses: api(200, 202, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/audiences/{audienceId}/entries/batch/{jobId}': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:audienceId', 'path:jobId', 'query:wait?'],
    responses: api(200, 404),
  },
  'DELETE /api/v1/projects/{projectId}/audiences/{audienceId}/entries/{userIdentifier}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId', 'path:userIdentifier', 'query:user_identifier_type?'],
    responses: api(204, 404),
  },
  'POST /api/v1/projects/{projectId}/audiences/{audienceId}/badge': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    body: { properties: ['description', 'image_url', 'name'], required: ['name'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'PATCH /api/v1/projects/{projectId}/audiences/{audienceId}/badge': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    body: { properties: ['description', 'image_url', 'name'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /api/v1/projects/{projectId}/audiences/{audienceId}/badge': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:audienceId'],
    responses: api(204, 404),
  },
  'GET /v1/audiences/audience-segments': { security: 'apiKey:service_role,read_only', params: PAGE, responses: api(200) },
  'GET /v1/audiences/audience-segments/user': {
    security: 'apiKey:service_role,read_only',
    params: ['query:user_identifier', 'query:user_identifier_type'],
    responses: api(200),
  },
  'GET /v1/audience-segments/{segmentId}/entries': {
    security: 'apiKey:service_role,read_only',
    params: ['path:segmentId', ...PAGE, 'query:cursor?'],
    responses: api(200, 404),
  },
  'POST /v1/audience-segments/{segmentId}/entries/batch': {
    security: 'apiKey:service_role',
    params: ['path:segmentId', 'query:wait?', 'header:idempotency-key?'],
    body: { properties: ['entries'], required: ['entries'] },
    responses: api(200, 202, 404, 409, ...WITH_BODY),
  },
  'GET /v1/audience-segments/{segmentId}/entries/batch/{jobId}': {
    security: 'apiKey:service_role,read_only',
    params: ['path:segmentId', 'path:jobId', 'query:wait?'],
    responses: api(200, 404),
  },
  'DELETE /v1/audience-segments/{segmentId}/entries/{userIdentifier}': {
    security: 'apiKey:service_role',
    params: ['path:segmentId', 'path:userIdentifier', 'query:user_identifier_type?'],
    responses: api(204, 404),
  },
  'POST /v1/audience-segments/{segmentId}/badge': {
    security: 'apiKey:service_role',
    params: ['path:segmentId'],
    body: { properties: ['description', 'image_url', 'name'], required: ['name'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'PATCH /v1/audience-segments/{segmentId}/badge': {
    security: 'apiKey:service_role',
    params: ['path:segmentId'],
    body: { properties: ['description', 'image_url', 'name'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /v1/audience-segments/{segmentId}/badge': { security: 'apiKey:service_role', params: ['path:segmentId'], responses: api(204, 404) },
  'POST /v1/user-traits/batch': {
    security: 'apiKey:service_role',
    body: { properties: ['traits'], required: ['traits'] },
    responses: api(200, ...WITH_BODY),
  },
  'GET /v1/user-traits': {
    security: 'apiKey:service_role,read_only',
    params: ['query:user_identifier', 'query:user_identifier_type', ...PAGE],
    responses: api(200),
  },
  'POST /api/v1/auth/nonce': {
    security: 'none',
    body: { properties: ['address'], required: ['address'] },
    responses: statuses([200], ANY, SERVICES, WITH_BODY),
  },
  'POST /api/v1/auth/verify': {
    security: 'none',
    body: { properties: ['message', 'signature'], required: ['message', 'signature'] },
    responses: statuses([200, 401], ANY, SERVICES, WITH_BODY),
  },
  // Its body is one of three forms: checked on its own below.
  'POST /api/v1/projects/{projectId}/affiliate-portal/tax-info': {
    security: 'walletSession',
    params: ['path:projectId'],
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/affiliate-portal/tax-info': {
    security: 'walletSession',
    params: ['path:projectId'],
    responses: api(200, 404, 409),
  },
  'GET /api/v1/projects/{projectId}/affiliate-portal/tax-status': { security: 'walletSession', params: ['path:projectId'], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/tax-settings': { security: 'apiKey:admin', params: ['path:projectId'], responses: api(200, 404) },
  'PATCH /api/v1/projects/{projectId}/tax-settings': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: {
      properties: ['company_address', 'company_contact_email', 'company_legal_name', 'company_tax_id', 'require_tax_info', 'w8_expiry_rule'],
    },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/tax-submissions': {
    security: 'apiKey:admin',
    params: ['path:projectId', ...PAGE, 'query:status?', 'query:user_identifier?', 'query:user_identifier_type?'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/approve': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:user_identifier_type?'],
    responses: api(200, 404, 409),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/revoke': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:user_identifier_type?'],
    body: { properties: ['reason'], required: ['reason'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-status': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:user_identifier_type?'],
    responses: api(200, 404, 409),
  },
  'GET /api/v1/projects/{projectId}/audit-log': { security: 'apiKey:admin', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'POST /api/v1/projects/{projectId}/currencies': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['address', 'chain_id', 'decimals', 'name', 'type'], required: ['name', 'decimals', 'type'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/currencies': { security: 'apiKey:admin', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'PUT /api/v1/projects/{projectId}/payout-terms/{conversionName}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:conversionName'],
    body: {
      properties: [
        'affiliate',
        'affiliate2',
        'affiliate3',
        'affiliate4',
        'affiliate_allowlist_audience_id',
        'caps',
        'currency_id',
        'end_user',
        'end_user_allowlist_audience_id',
        'hold_days',
        'require_approval',
        'tiers',
      ],
      required: ['currency_id'],
    },
    responses: api(200, 201, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/payout-terms/{conversionName}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:conversionName'],
    responses: api(200, 404),
  },
  'DELETE /api/v1/projects/{projectId}/payout-terms/{conversionName}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:conversionName'],
    responses: api(204, 404),
  },
  'GET /api/v1/projects/{projectId}/payout-terms': { security: 'apiKey:admin', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'POST /api/v1/projects/{projectId}/movements/approve': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['conversion_ids', 'reason'], required: ['conversion_ids'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/movements/decline': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['conversion_ids', 'reason'], required: ['conversion_ids'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/ledger/reconciliation': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'query:currency_id?'],
    responses: api(200, 404),
  },
  'POST /api/v1/conversions': {
    security: 'apiKey:service_role',
    body: {
      properties: ['id', 'name', 'occurred_at', 'referral_code', 'revenue_usd', 'reward_base', 'user', 'volume_usd'],
      required: ['id', 'name', 'user'],
    },
    responses: api(200, 202, 409, ...WITH_BODY),
  },
  'POST /api/v1/conversions/batch': {
    security: 'apiKey:service_role',
    body: { properties: ['conversions'], required: ['conversions'] },
    responses: api(200, 202, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/conversions': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', ...PAGE, 'query:status?', 'query:name?', 'query:user_identifier?', 'query:user_identifier_type?'],
    responses: api(200, 404),
  },
  'GET /api/v1/conversions/{conversionId}': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:conversionId'],
    responses: api(200, 404),
  },
  'POST /api/v1/conversions/{conversionId}/reverse': {
    security: 'apiKey:service_role,admin',
    params: ['path:conversionId'],
    body: { properties: ['reason', 'reversal_id', 'share_bps'], required: ['reversal_id', 'reason'] },
    responses: api(200, 201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/payouts/movements': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: [
      ...PAGE,
      'query:user_identifier?',
      'query:user_identifier_type?',
      'query:identifier_type?',
      'query:type?',
      'query:status?',
      'query:from_date?',
      'query:to_date?',
      'query:project_id?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: [
      ...PAGE,
      'query:user_identifier?',
      'query:user_identifier_type?',
      'query:identifier_type?',
      'query:project_id?',
      'query:type?',
      'query:from?',
      'query:to?',
      'query:group_by?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts/by-referrer': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: [
      'query:user_identifier?',
      'query:user_identifier_type?',
      'query:identifier_type?',
      'query:project_id?',
      'query:referrer_scope?',
      'query:from_date?',
      'query:to_date?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts/terms-by-tier': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:tier_ids?'],
    responses: api(200),
  },
  'GET /api/v1/conversions': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier?', 'query:identifier_type?'],
    responses: api(200),
  },
  'GET /api/v1/payouts/leaderboard/payouts': {
    security: 'apiKey:service_role,admin,read_only|walletSession',
    params: [
      ...PAGE,
      'query:currency_address?',
      'query:chain_id?',
      'query:user_type?',
      'query:user_identifier?',
      'query:user_address?',
      'query:user_identifier_type?',
      'query:identifier_type?',
      'query:from?',
      'query:to?',
      'query:fields?',
      'query:conversion_external_ids?',
      'query:conversion_external_ids[]?',
      'query:project_id?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts/leaderboard/points': {
    security: 'apiKey:service_role,admin,read_only',
    params: [
      ...PAGE,
      'query:user_type?',
      'query:user_identifier?',
      'query:user_address?',
      'query:user_identifier_type?',
      'query:identifier_type?',
      'query:from?',
      'query:to?',
      'query:fields?',
      'query:conversion_external_ids?',
      'query:conversion_external_ids[]?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts/points/balance': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: ['query:user_identifier?', 'query:user_identifier_type?', 'query:identifier_type?', 'query:project_id?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/points/balances': {
    security: 'apiKey:admin',
    params: ['path:projectId', ...PAGE, 'query:user_identifier?', 'query:user_identifier_type?'],
    responses: api(200, 404),
  },
  'GET /api/v1/payouts/leaderboard/volume': {
    security: 'apiKey:service_role,admin,read_only',
    params: [...PAGE, ...BOARD_USER, 'query:user_type?', 'query:currency_address?', 'query:fields?'],
    responses: api(200),
  },
  'GET /api/v1/payouts/leaderboard/revenue': {
    security: 'apiKey:service_role,admin,read_only',
    params: [...PAGE, ...BOARD_USER, 'query:user_type?', 'query:currency_address?', 'query:fields?'],
    responses: api(200),
  },
  'GET /api/v1/leaderboard/referred': {
    security: 'apiKey:service_role,admin,read_only',
    params: [...PAGE, ...BOARD_USER],
    responses: api(200),
  },
  'GET /api/v1/payouts/leaderboard/referred-volume': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifiers', 'query:identifier_type?', 'query:no_cache?'],
    responses: api(200),
  },
  'POST /api/v1/projects/{projectId}/affiliates': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['code', 'identifier', 'identifier_type', 'name', 'region'], required: ['identifier', 'identifier_type', 'name'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/affiliates': {
    security: 'apiKey:admin,read_only',
    params: [
      'path:projectId',
      ...PAGE,
      'query:status?',
      'query:region?',
      'query:q?',
      'query:audience?',
      'query:audience_ids?',
      'query:conversions?',
      'query:sort_by?',
      'query:order?',
    ],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/affiliates/metrics/rebuild': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}/history': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?', ...PAGE],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}/clicks': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?', 'query:from?', 'query:to?', 'query:code?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}/referrals': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?', ...PAGE, 'query:sort_by?'],
    responses: api(200, 404),
  },
  'PATCH /api/v1/projects/{projectId}/affiliates/{userIdentifier}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    body: { properties: ['name', 'region'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/suspend': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    body: { properties: ['reason'], required: ['reason'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/reactivate': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    responses: api(200, 404, 409),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/flag': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    body: { properties: ['reason'], required: ['reason'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/unflag': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/codes': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    body: { properties: ['code'], required: ['code'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'PATCH /api/v1/projects/{projectId}/affiliates/{userIdentifier}/codes/{code}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'path:code', 'query:identifier_type?'],
    body: { properties: ['rebate_rate'], required: ['rebate_rate'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'PATCH /api/v1/projects/{projectId}/affiliate-portal/codes/{code}': {
    security: 'walletSession',
    params: ['path:projectId', 'path:code'],
    body: { properties: ['rebate_rate'], required: ['rebate_rate'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/affiliate-portal/codes': {
    security: 'walletSession',
    params: ['path:projectId'],
    body: { properties: ['code'], required: ['code'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'PUT /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tier-protection': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    body: { properties: ['expires_at', 'protection_days', 'tier_id'], required: ['tier_id'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tier-protection': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:userIdentifier', 'query:identifier_type?'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/agencies': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['spread_bps', 'user_identifier', 'user_identifier_type'], required: ['user_identifier', 'spread_bps'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/agencies': { security: 'apiKey:admin', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/agencies/{agencyId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId'],
    responses: api(200, 404),
  },
  'PATCH /api/v1/projects/{projectId}/agencies/{agencyId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId'],
    body: { properties: ['spread_bps'], required: ['spread_bps'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /api/v1/projects/{projectId}/agencies/{agencyId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId'],
    body: { properties: ['user_identifier_type', 'user_identifiers'], required: ['user_identifiers'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId', ...PAGE, 'query:sort_by?', 'query:order?', 'query:bound?'],
    responses: api(200, 404),
  },
  'DELETE /api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates/{userIdentifier}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:agencyId', 'path:userIdentifier', 'query:identifier_type?'],
    responses: api(204, 404),
  },
  'POST /api/v1/projects/{projectId}/affiliate-portal/application': {
    security: 'walletSession',
    params: ['path:projectId'],
    body: { properties: ['code', 'message', 'name', 'region'], required: ['name'] },
    responses: api(201, 404, 409, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/affiliate-portal/application': {
    security: 'walletSession',
    params: ['path:projectId'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliate-portal/affiliate': { security: 'walletSession', params: ['path:projectId'], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/program-settings': { security: 'apiKey:admin,read_only', params: ['path:projectId'], responses: api(200, 404) },
  'PATCH /api/v1/projects/{projectId}/program-settings': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['attribution_model', 'attribution_window_days', 'link_template', 'program_url'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/events': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', ...PAGE, 'query:tracking_id?', 'query:name?', 'query:user_identifier?', 'query:user_identifier_type?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/affiliate-portal/stats': {
    security: 'walletSession',
    params: ['path:projectId', 'query:from?', 'query:to?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/applications': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', ...PAGE, 'query:status?'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/applications/{applicationId}': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:applicationId'],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/applications/{applicationId}/approve': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:applicationId'],
    body: { properties: ['audience_id'], required: ['audience_id'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/applications/{applicationId}/reject': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:applicationId'],
    body: { properties: ['reason'], required: ['reason'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/applications/{applicationId}/hold': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:applicationId'],
    body: { properties: ['note'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/applications/bulk': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['action', 'application_ids', 'audience_id', 'note', 'reason'], required: ['action', 'application_ids'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'POST /api/v1/referrals': {
    security: 'apiKey:service_role',
    body: { properties: ['code', 'user_identifier', 'user_identifier_type'], required: ['user_identifier', 'user_identifier_type', 'code'] },
    responses: api(200, 201, 404, 409, ...WITH_BODY),
  },
  // Its body is one event or a batch of them: checked on its own below.
  'POST /api/v1/events': {
    security: 'apiKey:send:tracking_event,service_role,admin',
    params: ['query:project_id?'],
    responses: api(200, 202, 409, 422, ...WITH_BODY),
  },
  'POST /api/v1/affiliates': {
    security: 'apiKey:service_role,admin,read_only',
    body: {
      properties: ['account_chain_id', 'address', 'code', 'identifier_type', 'name', 'signature', 'signature_public_key', 'user_rebate_rate'],
      required: ['address', 'code', 'signature'],
    },
    responses: api(201, 409, 422, ...WITH_BODY),
  },
  'POST /api/v1/affiliates/{address}': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:address'],
    body: {
      properties: ['account_chain_id', 'code', 'identifier_type', 'signature', 'signature_public_key', 'user_identifier'],
      required: ['code', 'signature'],
    },
    responses: api(200, 404, 409, 422, ...WITH_BODY),
  },
  'POST /api/v1/affiliates/{address}/rebate-rate': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:address'],
    body: {
      properties: ['account_chain_id', 'code', 'identifier_type', 'rebate_rate', 'signature', 'signature_public_key', 'source_project_id'],
      required: ['code', 'signature', 'rebate_rate'],
    },
    responses: api(200, 404, 422, ...WITH_BODY),
  },
  'GET /api/v1/affiliates/codes/{code}': { security: 'apiKey:service_role,admin,read_only', params: ['path:code'], responses: api(200, 404) },
  'GET /api/v1/affiliates/codes/{code}/availability': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:code'],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliates/{address}': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:address', 'query:identifier_type?'],
    responses: api(200, 404),
  },
  'PATCH /api/v1/referral_codes/{code}/use': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:code', 'query:user_identifier', 'query:user_identifier_type'],
    body: { properties: ['chain_id', 'signature', 'signature_message'], required: ['signature', 'signature_message'] },
    responses: api(200, 201, 404, 409, 422, ...WITH_BODY),
  },
  'POST /api/v1/referral_codes': {
    security: 'apiKey:service_role,admin',
    params: ['query:user_identifier', 'query:user_identifier_type', 'query:quantity?', 'query:max_uses?'],
    responses: api(201, 404, 409),
  },
  'GET /api/v1/referral_codes': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:user_identifier_type', ...PAGE],
    responses: api(200),
  },
  'GET /api/v1/referral_codes/status': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:user_identifier_type'],
    responses: api(200),
  },
  'GET /api/v1/referral_codes/{code}': { security: 'apiKey:service_role,admin,read_only', params: ['path:code'], responses: api(200, 404) },
  'PATCH /api/v1/referral_codes/{code}': {
    security: 'apiKey:service_role,admin',
    params: ['path:code'],
    body: { properties: ['max_uses'], required: ['max_uses'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /api/v1/referral_codes/{code}/referrals': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['path:code', 'query:user_identifier', 'query:user_identifier_type', 'query:referrer_identifier', 'query:referrer_identifier_type'],
    body: { properties: ['chain_id', 'signature', 'signature_message'] },
    responses: api(204, 403, 404, 422, ...WITH_BODY),
  },
  'POST /api/v1/projects/{projectId}/webhooks': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['enabled', 'events', 'url'], required: ['url', 'events'] },
    responses: api(201, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/webhooks': { security: 'apiKey:admin,read_only', params: ['path:projectId', ...PAGE], responses: api(200, 404) },
  'GET /api/v1/projects/{projectId}/webhooks/{webhookId}': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:webhookId'],
    responses: api(200, 404),
  },
  'PATCH /api/v1/projects/{projectId}/webhooks/{webhookId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:webhookId'],
    body: { properties: ['enabled', 'events', 'url'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'DELETE /api/v1/projects/{projectId}/webhooks/{webhookId}': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:webhookId'],
    responses: api(204, 404),
  },
  'GET /api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries': {
    security: 'apiKey:admin,read_only',
    params: ['path:projectId', 'path:webhookId', ...PAGE],
    responses: api(200, 404),
  },
  'POST /api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'path:webhookId', 'path:deliveryId'],
    responses: api(202, 404),
  },
  'GET /api/v1/affiliate-portal/stats': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:from?', 'query:to?', 'query:this_month?', 'query:conversion_name?', 'query:conversion_external_id?'],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliate-portal/total-stats': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:statuses[]?', 'query:regions[]?', 'query:audiences[]?'],
    responses: api(200),
  },
  'GET /api/v1/affiliate-portal/paid-volumes-by-level': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:from?', 'query:to?', 'query:this_month?'],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliate-portal/new-traders': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:from?', 'query:to?', 'query:this_month?'],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliate-portal/referral-tree': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier'],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliate-portal/stats-breakdown': {
    security: 'apiKey:service_role,admin,read_only',
    params: [
      'query:user_identifier',
      'query:group_by',
      'query:date_range?',
      'query:from?',
      'query:to?',
      'query:currency_id?',
      'query:conversion_name?',
      'query:conversion_external_id?',
    ],
    responses: api(200, 404),
  },
  'GET /api/v1/affiliate-portal/qualified-user-bonus': {
    security: 'apiKey:service_role,admin,read_only',
    responses: api(404),
  },
  'GET /api/v1/affiliate-portal/high-volume-taker-bonus': {
    security: 'apiKey:service_role,admin,read_only',
    responses: api(404),
  },
  'GET /api/v1/user/referrer': {
    security: 'apiKey:service_role,admin,read_only',
    params: ['query:user_identifier', 'query:user_identifier_type'],
    responses: api(200),
  },
  'GET /api/v1/claim-checks': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: [...ACTING_USER, 'query:status?', ...PAGE],
    responses: api(200, 404),
  },
  'POST /api/v1/claim-checks/close': {
    security: 'apiKey:service_role|walletSession',
    params: ['query:project_id?'],
    body: { properties: ['claim_check_ids', ...BODY_USER], required: ['claim_check_ids'] },
    responses: api(200, 404, 409, ...WITH_BODY),
  },
  'POST /api/v1/claim-checks/claim': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: ['query:project_id?'],
    body: { properties: BODY_USER },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/claim-checks/totals': { security: 'apiKey:service_role,read_only|walletSession', params: ACTING_USER, responses: api(200, 404) },
  'GET /api/v1/claim-checks/claim-history': {
    security: 'apiKey:service_role,read_only|walletSession',
    params: [...ACTING_USER, ...PAGE],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/claim-settings': { security: 'apiKey:admin', params: ['path:projectId'], responses: api(200, 404) },
  'PUT /api/v1/projects/{projectId}/claim-settings': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['project_address'], required: ['project_address'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/review-settings': { security: 'apiKey:admin', params: ['path:projectId'], responses: api(200, 404) },
  'PATCH /api/v1/projects/{projectId}/review-settings': {
    security: 'apiKey:admin',
    params: ['path:projectId'],
    body: { properties: ['max_conversions_per_user_per_hour', 'max_reward_per_conversion', 'min_seconds_from_referral_to_conversion'] },
    responses: api(200, 404, ...WITH_BODY),
  },
  'GET /api/v1/projects/{projectId}/overview': {
    security: 'apiKey:admin',
    params: ['path:projectId', 'query:from', 'query:to'],
    responses: api(200, 404),
  },
  'GET /api/v1/projects/{projectId}/review': {
    security: 'apiKey:admin',
    params: ['path:projectId', ...PAGE, 'query:rule?', 'query:status?', 'query:user_identifier?', 'query:user_identifier_type?'],
    responses: api(200, 404),
  },
};

/** The /v1 audience paths, served again under /api/v1 with the same contract. */
const ALIASED = Object.keys(OPERATIONS).filter((key) => key.split(' ')[1]!.startsWith('/v1/'));
const aliasOf = (key: string) => key.replace(' /v1/', ' /api/v1/');

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const integer = expect.objectContaining({ type: 'integer' });
const string = expect.objectContaining({ type: 'string' });
const nullableString = { type: ['string', 'null'] };
const timestamp = { type: 'string', description: 'ISO-8601 UTC' };
/** An absolute URL (any scheme) or a protocol-relative one: anything that leaves the gateway. */
const OUTSIDE_URL = /\b[a-z][a-z0-9+.-]*:\/\/|["'(=]\s*\/\//gi;

/** /openapi.json and /docs, against one gateway. */
describe('the API reference', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  describe('the OpenAPI document at /openapi.json', () => {
    let document: any;
    beforeAll(async () => {
      const response = await stack.api.get('/openapi.json');
      expect(response.status).toBe(200);
      document = response.body;
    });

    const operation = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return document.paths[path]?.[method.toLowerCase()];
    };
    const jsonSchema = (content: any) => content?.['application/json']?.schema;
    const success = (key: string, status = 200) => jsonSchema(operation(key).responses[String(status)].content);

    it('is OpenAPI 3.1 and lists exactly the operations of the API', () => {
      expect(document.openapi).toBe('3.1.0');
      const listed = Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(listed.sort()).toEqual([...Object.keys(OPERATIONS), ...ALIASED.map(aliasOf)].sort());
    });

    it.each(Object.entries(OPERATIONS))('%s: security, parameters, request body and statuses', (key, expected) => {
      const op = operation(key);
      // `scheme:roles`, split at the first colon only (the send:tracking_event role has one).
      const alternatives = expected.security
        .split('|')
        .map((one): [string, string | undefined] =>
          one.includes(':') ? [one.slice(0, one.indexOf(':')), one.slice(one.indexOf(':') + 1)] : [one, undefined],
        );
      const roles = alternatives.find(([, listed]) => listed)?.[1];
      // OpenAPI 3.1 role names; x-access states the same for machines (access-matrix.test.ts).
      expect(op.security).toEqual(
        expected.security === 'none' ? [] : alternatives.map(([scheme, listed]) => ({ [scheme]: listed ? listed.split(',') : [] })),
      );
      // People read the roles from the description.
      if (roles) expect(op.description).toMatch(new RegExp(`API key roles: ${roles.split(',').join(', ')}\\.$`));
      else expect(op.description ?? '').not.toMatch(/API key roles/);

      expect(op.parameters.map((p: { in: string; name: string; required: boolean }) => `${p.in}:${p.name}${p.required ? '' : '?'}`)).toEqual(
        expected.params ?? [],
      );
      for (const parameter of op.parameters) expect(parameter.schema).toEqual(expect.objectContaining({ type: expect.any(String) }));

      const body = op.requestBody?.content?.['application/json']?.schema;
      if (key === 'POST /api/v1/projects/{projectId}/affiliate-portal/tax-info') expect(body.oneOf).toHaveLength(3);
      else if (key === 'POST /api/v1/events') {
        const [event, batch] = body.anyOf;
        expect(Object.keys(event.properties).sort()).toEqual([
          'account_chain_id',
          'args',
          'metadata',
          'name',
          'project_id',
          'signature',
          'signature_message',
          'signature_public_key',
          'user',
          'user_address',
        ]);
        expect(event.required).toEqual(['name', 'metadata']);
        expect(batch).toMatchObject({ required: ['events'], additionalProperties: false });
      } else if (expected.body) {
        expect(op.requestBody.required).toBe(true);
        expect(body.type).toBe('object');
        expect(Object.keys(body.properties).sort()).toEqual(expected.body.properties);
        expect(body.required).toEqual(expected.body.required);
        // Unknown fields are refused, and the document says so.
        expect(body.additionalProperties).toBe(false);
      } else expect(op.requestBody).toBeUndefined();

      expect(Object.keys(op.responses).map(Number)).toEqual(expected.responses);
    });

    it.each(ALIASED)('%s: its /api alias has the same contract', (key) => {
      const { operationId, summary, ...contract } = operation(key);
      const alias = operation(aliasOf(key));
      expect(alias).toEqual({ ...contract, operationId: `${operationId}ApiPrefixed`, summary: `${summary} (/api alias)` });
    });

    it('answers every error in the one error body, which it describes field by field', () => {
      expect(document.components.schemas.Error).toEqual({
        type: 'object',
        description: 'Every error response has this body',
        properties: {
          status: integer,
          code: string,
          message: string,
          details: expect.objectContaining({
            type: 'array',
            items: {
              type: 'object',
              properties: { field: { type: 'string' }, reason: { type: 'string' } },
              required: ['field', 'reason'],
              additionalProperties: false,
            },
          }),
        },
        required: ['status', 'code', 'message', 'details'],
        additionalProperties: false,
      });
      for (const key of Object.keys(OPERATIONS)) {
        for (const [status, response] of Object.entries<{ description: string; content?: unknown }>(operation(key).responses)) {
          if (Number(status) < 400 || (key === 'GET /readyz' && status === '503')) continue;
          expect({ key, status, schema: jsonSchema(response.content) }).toEqual({ key, status, schema: ERROR_REF });
          expect(response.description).toEqual(expect.any(String));
        }
      }
      expect(operation('GET /api/v1/projects/{projectId}/audiences').responses['401'].description).toMatch(/WRONG_CREDENTIAL_KIND/);
    });

    it('answers every list in the one list shape, paged by page (from 1) and page_size (1 to 100, default 25)', () => {
      // The claim history and the invite codes answer the Fuul SDK's own page shapes ({ results, total_count | count, next_page }).
      const sdkPages = ['/claim-history', '/referral_codes'];
      const lists = Object.entries(OPERATIONS).filter(
        ([key, expected]) => expected.params?.includes('query:page?') && !sdkPages.some((path) => key.endsWith(path)),
      );
      expect(lists.map(([key]) => key)).toHaveLength(30);
      for (const [key] of lists) {
        const schema = success(key);
        const withCursor = key.endsWith('/entries');
        // The leaderboard says as of when its totals are (the shape the Fuul SDK reads).
        const calculatedAt = /\/leaderboard\/(payouts|points|volume|revenue|referred)$/.test(key);
        // The claim-check list repeats its items under the key the Fuul SDK reads.
        const claimChecks = key === 'GET /api/v1/claim-checks';
        // The points balances say in which currency (the project's point currency).
        const pointsCurrency = key === 'GET /api/v1/projects/{projectId}/points/balances';
        expect({ key, schema }).toEqual({
          key,
          schema: {
            type: 'object',
            properties: {
              results: { type: 'array', items: expect.objectContaining({ type: 'object', additionalProperties: false }) },
              total_results: integer,
              page: integer,
              page_size: integer,
              ...(withCursor ? { next_cursor: nullableString } : {}),
              ...(calculatedAt ? { calculated_at: string } : {}),
              ...(claimChecks ? { claim_checks: expect.objectContaining({ type: 'array', items: schema.properties.results.items }) } : {}),
              ...(pointsCurrency ? { currency: expect.objectContaining({ type: 'object' }) } : {}),
            },
            required: [
              'results',
              'total_results',
              'page',
              'page_size',
              ...(withCursor ? ['next_cursor'] : []),
              ...(calculatedAt ? ['calculated_at'] : []),
              ...(claimChecks ? ['claim_checks'] : []),
              ...(pointsCurrency ? ['currency'] : []),
            ],
            additionalProperties: false,
          },
        });
        const [page, pageSize] = operation(key).parameters.filter((p: { name: string }) => p.name.startsWith('page'));
        expect(page.schema).toEqual({ type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 });
        expect(pageSize.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
      }
    });

    it('describes the segment, the batch job and the user lookup as they are answered', () => {
      const segment = success('GET /api/v1/projects/{projectId}/audiences/{audienceId}');
      expect(segment.required).toEqual([
        'id',
        'name',
        'description',
        'type',
        'condition',
        'entries_count',
        'tier_rank',
        'badge',
        'created_at',
        'updated_at',
      ]);
      expect(segment.properties).toMatchObject({
        id: { type: 'string' },
        description: nullableString,
        type: { type: 'string', enum: ['static', 'dynamic'] },
        entries_count: integer,
        tier_rank: {
          anyOf: [expect.objectContaining({ type: 'integer', minimum: -2147483648, maximum: 2147483647 }), { type: 'null' }],
          description: expect.stringContaining('a higher rank is a higher tier'),
        },
        created_at: timestamp,
      });
      expect(segment.properties.badge.anyOf).toEqual([
        {
          type: 'object',
          properties: {
            name: { type: 'string' },
            description: nullableString,
            image_url: nullableString,
            created_at: timestamp,
            updated_at: timestamp,
          },
          required: ['name', 'description', 'image_url', 'created_at', 'updated_at'],
          additionalProperties: false,
        },
        { type: 'null' },
      ]);
      expect(success('GET /api/v1/projects/{projectId}/audiences', 200).properties.results.items).toEqual(segment);

      const batch = 'POST /v1/audience-segments/{segmentId}/entries/batch';
      expect(success(batch, 202)).toEqual(success(batch, 200));
      expect(success(batch, 202)).toEqual({
        type: 'object',
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', enum: ['queued', 'active', 'completed', 'failed'] },
          received: integer,
          added: integer,
          skipped: integer,
          error: nullableString,
        },
        required: ['job_id', 'status', 'received', 'added', 'skipped', 'error'],
        additionalProperties: false,
      });
      const entries = operation(batch).requestBody.content['application/json'].schema.properties.entries;
      expect(entries).toMatchObject({
        type: 'array',
        minItems: 1,
        items: { type: 'object', required: ['identifier', 'identifier_type'], additionalProperties: false },
      });

      expect(success('GET /v1/audiences/audience-segments/user').properties.results.items).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          badge_name: nullableString,
          badge_description: nullableString,
          badge_image: nullableString,
        },
        required: ['id', 'name', 'badge_name', 'badge_description', 'badge_image'],
        additionalProperties: false,
      });
    });

    it('describes the wallet session scheme, the three tax forms, the statuses and the masked tax id', () => {
      expect(document.components.securitySchemes).toEqual({
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: expect.any(String),
          'x-roles': ['admin', 'service_role', 'read_only', 'send:tracking_event'],
        },
        platformKey: { type: 'http', scheme: 'bearer', description: expect.any(String) },
        walletSession: { type: 'http', scheme: 'bearer', description: expect.stringContaining('POST /api/v1/auth/verify') },
      });
      const submit = operation('POST /api/v1/projects/{projectId}/affiliate-portal/tax-info');
      const forms = submit.requestBody.content['application/json'].schema.oneOf;
      expect(forms.map((form: any) => form.properties.form_type)).toEqual([
        { type: 'string', const: 'w9' },
        { type: 'string', const: 'w8ben' },
        { type: 'string', const: 'w8bene' },
      ]);
      const common = ['form_type', 'legal_name', 'country', 'signature_name', 'signature_date'];
      expect(forms.map((form: any) => form.required)).toEqual([
        [...common, 'tax_id_number', 'tin_type', 'tax_classification', 'address'],
        [...common, 'date_of_birth', 'permanent_address'],
        [...common, 'chapter3_status', 'permanent_address'],
      ]);
      for (const form of forms) expect(form.additionalProperties).toBe(false);
      expect(forms[2].properties.chapter3_status.enum).toContain('central_bank_of_issue');

      const stored = success('POST /api/v1/projects/{projectId}/affiliate-portal/tax-info', 201);
      expect(stored.properties.tax_id_number).toEqual({ type: ['string', 'null'], description: expect.stringMatching(/last four/) });
      expect(stored.properties.status).toEqual({
        type: 'string',
        enum: ['submitted', 'approved', 'revoked', 'expired'],
        description: expect.any(String),
      });

      const status = success('GET /api/v1/projects/{projectId}/affiliate-portal/tax-status');
      expect(status.required).toEqual(['status', 'form_type', 'submitted_at', 'approved_at', 'expires_at', 'revoked_reason']);
      expect(status.properties.status.enum).toEqual(['not_required', 'not_submitted', 'submitted', 'approved', 'revoked', 'expired']);
      expect(success('POST /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/approve')).toEqual(status);

      const unmasked = success('GET /api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-status');
      expect(unmasked.required).toEqual(['user_identifier', 'user_identifier_type', ...status.required, 'tax_info']);
      expect(unmasked.properties.tax_info.anyOf[0].properties.tax_id_number.description).toMatch(/In full/);
    });
  });

  describe('the page at /docs', () => {
    it('loads Swagger UI from the gateway itself', async () => {
      const page = await stack.api.get('/docs');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const asset = await stack.api.get('/docs/assets/swagger-ui-bundle.js');
      expect(asset.status).toBe(200);
      expect(asset.text.length).toBeGreaterThan(100_000);
    });

    it('references nothing outside the gateway: relative assets only, and no validator badge', async () => {
      const page = await stack.api.get('/docs');
      const references = [...page.text.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((match) => match[1]!);
      expect(references).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
      for (const reference of references) expect((await stack.api.get(reference)).status).toBe(200);

      const init = await stack.api.get('/docs/init.js');
      const css = await stack.api.get('/docs/assets/swagger-ui.css');
      for (const text of [page.text, init.text]) expect(text.match(OUTSIDE_URL)).toBeNull();
      // The stylesheet loads nothing but inline data.
      const cssUrls = [...css.text.matchAll(/url\(\s*["']?([^"')]*)/g)].map((match) => match[1]!);
      expect(cssUrls.filter((url) => !url.startsWith('data:'))).toEqual([]);

      // Swagger UI's own default would fetch its badge from validator.swagger.io with the document's address.
      const config = JSON.parse(/SwaggerUIBundle\((\{.*?\})\);/s.exec(init.text)![1]!);
      expect(config).toEqual({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true, validatorUrl: null });

      const document = (await stack.api.get('/openapi.json')).body;
      expect(document.servers).toEqual([{ url: '/' }]);
    });
  });
});
