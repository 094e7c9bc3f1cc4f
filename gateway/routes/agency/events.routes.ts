import type { TrackingEventInput } from '../../../gen/referral/agency/v1/agency';
import { TRACKING_EVENT_LIMITS } from '../../../services/rules/contract-limits';
import { checkIdentifier } from '../../../services/rules/identifiers';
import { canonicalUuid, isUuid } from '../../../services/rules/ids';
import { requireWalletProof } from '../../auth/wallet-signatures';
import { HttpError } from '../../http/errors';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentRecordedEvents } from './events.presenters';
import { type TrackingEventBody, trackingEventsAcceptedSchema, trackingEventsBody, trackingEventsQuery } from './events.schemas';

const tags = ['Tracking events (@fuul/sdk)'];

/** The keys that may send events: a page's send:tracking_event key, the project's backend, an admin. */
const eventSenders = { kind: 'api_key', roles: ['send:tracking_event', 'service_role', 'admin'], project: 'key' } as const;

function rateLimited(retryAfterMs: number, what: string): HttpError {
  return new HttpError(429, 'RATE_LIMITED', `too many events ${what}; slow down and retry after the delay in Retry-After`, [], {
    'Retry-After': String(Math.ceil(retryAfterMs / 1000)),
  });
}

const invalid = (field: string, reason: string) => new HttpError(400, 'VALIDATION_FAILED', `${field}: ${reason}`, [{ field, reason }]);

/** An object's JSON, at most TRACKING_EVENT_LIMITS.objectBytes bytes (a character of JSON is at most 3 bytes: most are measured by length alone). */
function boundedJson(value: Record<string, unknown>, field: string): string {
  const json = JSON.stringify(value);
  const max = TRACKING_EVENT_LIMITS.objectBytes;
  if (json.length * 3 > max && Buffer.byteLength(json) > max) throw invalid(field, `must be at most ${max} bytes of JSON`);
  return json;
}

/** A project_id the request names (query, body, metadata) must be the key's own. */
function requireOwnProject(projectId: string, named: Array<string | null | undefined>): void {
  for (const value of named) {
    if (value === undefined || value === null || value === '') continue;
    if (!isUuid(value) || canonicalUuid(value) !== projectId) {
      throw new HttpError(403, 'PROJECT_MISMATCH', 'project_id names another project than the API key’s; a key sends events to its own project only');
    }
  }
}

/** args.dedup_id or metadata.dedup_id (both: they must agree), as text. */
function dedupIdOf(event: TrackingEventBody, prefix: string): string | undefined {
  const fromArgs = event.args?.dedup_id;
  const fromMetadata = event.metadata.dedup_id;
  if (fromArgs !== undefined && fromMetadata !== undefined && String(fromArgs) !== String(fromMetadata)) {
    throw invalid(`${prefix}metadata.dedup_id`, 'differs from args.dedup_id; send one');
  }
  const value = fromArgs ?? fromMetadata;
  return value === undefined ? undefined : String(value);
}

/** One event as the agency stores it: its user (user, or the legacy user_address), its signature checked. */
async function toInput(deps: RouteDeps, event: TrackingEventBody, prefix: string): Promise<TrackingEventInput> {
  let user: { identifier: string; identifierType: string } | undefined;
  if (event.user) {
    const checked = checkIdentifier(event.user.identifier, event.user.identifier_type, `${prefix}user`);
    if (!checked.user) throw invalid(checked.violations[0]!.field, checked.violations[0]!.reason);
    user = checked.user;
    if (event.user_address !== undefined && event.user_address !== user.identifier) {
      throw invalid(`${prefix}user_address`, 'names another user than user; send one');
    }
  } else if (event.user_address !== undefined) {
    const checked = checkIdentifier(event.user_address, 'evm_address', `${prefix}user_address`);
    if (!checked.user) throw invalid(`${prefix}user_address`, 'must be an evm_address (0x followed by 40 hex digits)');
    user = checked.user;
  }
  if (event.name === 'connect_wallet' && user === undefined) throw invalid(`${prefix}user`, 'connect_wallet names the wallet that connected');
  let signatureVerified = false;
  if (event.signature !== undefined) {
    if (user === undefined) throw invalid(`${prefix}user`, 'a signed event names the wallet that signed');
    if (event.signature_message === undefined)
      throw invalid(`${prefix}signature_message`, 'the message the wallet signed is required with signature');
    try {
      await requireWalletProof(deps.signatures, {
        identifier: user.identifier,
        identifierType: user.identifierType,
        message: event.signature_message,
        signature: event.signature,
        publicKey: event.signature_public_key,
        chainId: event.account_chain_id,
      });
    } catch (error) {
      // In a batch, the refusal names the event.
      if (error instanceof HttpError && prefix !== '')
        throw new HttpError(error.status, error.code, `${prefix}signature: ${error.message}`, [
          { field: `${prefix}signature`, reason: error.message },
        ]);
      throw error;
    }
    signatureVerified = true;
  }
  const referrer = event.metadata.referrer || event.metadata.affiliate_id || undefined;
  return {
    name: event.name,
    trackingId: event.metadata.tracking_id,
    user,
    signatureVerified,
    referrer,
    dedupId: dedupIdOf(event, prefix),
    argsJson: boundedJson(event.args ?? {}, `${prefix}args`),
    metadataJson: boundedJson(event.metadata, `${prefix}metadata`),
  };
}

/** POST /api/v1/events: the @fuul/sdk's sendEvent, sendPageview and identifyUser. */
export function eventRoutes(deps: RouteDeps): AnyRoute[] {
  const { clients, eventLimits } = deps;
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/events',
        operationId: 'sendTrackingEvents',
        summary: 'Send tracking events: pageviews, connect_wallet, custom events (Fuul.sendEvent, sendPageview, identifyUser)',
        description:
          'The body is one event (the SDK’s FuulEvent) or a batch `{"events": [FuulEvent, …]}` of 1 to ' +
          `${TRACKING_EVENT_LIMITS.maxPerBatch.toLocaleString('en-US')} events (more: 413 BATCH_TOO_LARGE). Stored durably, as one batch, ` +
          'before the 202; clicks, wallet links and referrals follow in a job. `user_address` (older SDKs) stands for an evm_address `user`. ' +
          'A signed event (connect_wallet with `signature` and `signature_message`; `signature_public_key` and `account_chain_id` as the ' +
          'wallet needs) is stored as verified only when the signature verifies: otherwise 400 INVALID_SIGNATURE (`invalid signature`), ' +
          'or 422 SIGNATURE_UNVERIFIABLE when it cannot be checked here; an unsigned connect_wallet is stored, not verified. ' +
          '`dedup_id` in `args` or `metadata` is accepted once per project: a single event sent again answers 409 DUPLICATE_EVENT; in a ' +
          'batch, the repeated events are not stored and the answer lists their indexes in `duplicates` (202 when any event was stored, ' +
          '200 when none was). A `project_id` in the query, the body or the metadata must be the key’s project: otherwise 403 ' +
          'PROJECT_MISMATCH. Any invalid event refuses the whole request (400, fields named `events[i].…` in a batch), and nothing is ' +
          'stored. Rate limits: per key (EVENTS_RATE_LIMIT_PER_SECOND requests) and per metadata.tracking_id ' +
          '(EVENTS_PER_TRACKING_ID_PER_SECOND events): 429 RATE_LIMITED with Retry-After, nothing stored.',
        tags,
        auth: eventSenders,
        query: trackingEventsQuery,
        body: trackingEventsBody,
        bodyLimit: 'batch',
        arrayLimit: { field: 'events', max: TRACKING_EVENT_LIMITS.maxPerBatch, code: 'BATCH_TOO_LARGE' },
        responses: {
          200: { description: 'A batch whose every event was a duplicate: nothing stored', schema: trackingEventsAcceptedSchema },
          202: { description: 'Stored; processing follows in a job', schema: trackingEventsAcceptedSchema },
          403: { description: 'PROJECT_MISMATCH, or a key of another role' },
          409: { description: 'DUPLICATE_EVENT: a single event whose dedup_id the project accepted before' },
          422: { description: 'SIGNATURE_UNVERIFIABLE' },
          429: { description: 'RATE_LIMITED: per key, or per tracking id' },
        },
      },
      async ({ query, body, caller }) => {
        const keyWait = eventLimits.perKey.take(caller.keyId);
        if (keyWait > 0) throw rateLimited(keyWait, 'from this API key');
        const batch = 'events' in body;
        const events = batch ? body.events : [body];
        requireOwnProject(caller.projectId, [query.project_id, ...events.flatMap((event) => [event.project_id, event.metadata.project_id])]);
        for (const event of events) {
          const wait = eventLimits.perTrackingId.take(`${caller.projectId}:${event.metadata.tracking_id}`);
          if (wait > 0) throw rateLimited(wait, 'for this tracking_id');
        }
        const inputs = await Promise.all(events.map((event, index) => toInput(deps, event, batch ? `events[${index}].` : '')));
        const recorded = await clients.agency.recordTrackingEvents({ projectId: caller.projectId, events: inputs });
        if (!batch && recorded.duplicates.length > 0) {
          throw new HttpError(409, 'DUPLICATE_EVENT', 'an event with this dedup_id was accepted before; it is not stored again');
        }
        return { status: recorded.accepted > 0 ? 202 : 200, body: presentRecordedEvents(recorded) };
      },
    ),
  ];
}
