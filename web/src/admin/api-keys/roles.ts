import type { ApiBody } from '../../api/client';

/** An API key's role: the API's enum (createApiKey's `role`). */
export type ApiKeyRole = ApiBody<'/api/v1/projects/{projectId}/api-keys', 'post'>['role'];

/** What each role may do (docs/api-conventions.md, Access); a Record over the API's enum, so a new role fails the type check here. */
const MAY: Record<ApiKeyRole, string> = {
  admin: 'everything in this dashboard, API keys and webhooks included',
  service_role: 'server to server: the /v1 audience API, referrals and claim checks',
  read_only: 'reads audiences, affiliates and applications and /v1, changes nothing',
  'send:tracking_event': 'only sends tracking events (the @fuul/sdk in a web page: pageviews, connect_wallet), nothing else',
};

export const API_KEY_ROLES = (Object.keys(MAY) as ApiKeyRole[]).map((role) => ({ role, may: MAY[role] }));
