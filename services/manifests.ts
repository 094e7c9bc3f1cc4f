import type { AnyServiceManifest } from './platform/service-manifest';
import { agencyManifest } from './agency/manifest';
import { audienceManifest } from './audience/manifest';
import { claimManifest } from './claim/manifest';
import { taxManifest } from './tax/manifest';
import { webhooksManifest } from './webhooks/manifest';

/**
 * Every service, in the order of the catalog (services/platform/service-catalog.ts): what the test
 * stack starts and the tests' template database migrates. A new service is one line here. Only
 * tools and tests import this list; services never import each other, the gateway never imports it.
 */
export const SERVICE_MANIFESTS: readonly AnyServiceManifest[] = [audienceManifest, taxManifest, agencyManifest, claimManifest, webhooksManifest];
