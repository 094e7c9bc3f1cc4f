import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AgencyServiceService } from '../../../gen/referral/agency/v1/agency';
import { AudienceServiceService } from '../../../gen/referral/audience/v1/audience';
import { ClaimServiceService } from '../../../gen/referral/claim/v1/claim';
import { TaxServiceService } from '../../../gen/referral/tax/v1/tax';
import { WebhooksServiceService } from '../../../gen/referral/webhooks/v1/webhooks';
import type { ServiceName } from '../../../services/platform/service-catalog';
import { SERVICE_MANIFESTS } from '../../../services/manifests';

/**
 * The services' synchronous dependencies, as their manifests declare them (`calls`), are the ones
 * their code has, the ones docs/architecture.md draws, and form no cycle but the one accepted below.
 * Events flow the other way at run time (a consumer of claim's events calling claim back would be
 * a loop no picture shows): this is where a new one would be noticed. Pure: reads files only.
 */
const ROOT = path.resolve(__dirname, '../../..');
const DEFINITIONS: Record<ServiceName, ServiceDefinition> = {
  audience: AudienceServiceService,
  tax: TaxServiceService,
  agency: AgencyServiceService,
  claim: ClaimServiceService,
  webhooks: WebhooksServiceService,
};

/**
 * The one synchronous cycle: claim calls the agency to pay a batch, and the agency calls claim only
 * when an admin rebuilds the affiliate metrics (never on the event path, never while claim waits on it).
 */
const ACCEPTED_CYCLES = ['agency -> claim -> agency'];

const declared = SERVICE_MANIFESTS.map((manifest) => ({ name: manifest.service.name as ServiceName, calls: manifest.calls }));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The services whose gRPC client a service's code imports (the generated `<Name>ServiceClient`). */
function importedClients(service: ServiceName): ServiceName[] {
  const found = new Set<ServiceName>();
  for (const file of sourceFiles(path.join(ROOT, 'services', service))) {
    for (const match of readFileSync(file, 'utf8').matchAll(
      /import[^;]*\b([A-Z][a-z]+)ServiceClient\b[^;]*from '[./]*gen\/referral\/([a-z]+)\/v1\/[a-z]+'/g,
    )) {
      if (match[2] !== service) found.add(match[2] as ServiceName);
    }
  }
  return [...found].sort();
}

/** Every cycle of the graph, each written from its alphabetically first service. */
function cyclesOf(edges: Map<string, string[]>): string[] {
  const cycles = new Set<string>();
  const walk = (start: string, at: string, trail: string[]) => {
    for (const next of edges.get(at) ?? []) {
      if (next === start) {
        const cycle = [...trail];
        const first = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
        cycles.add([...rotated, rotated[0]].join(' -> '));
      } else if (!trail.includes(next)) {
        walk(start, next, [...trail, next]);
      }
    }
  };
  for (const start of edges.keys()) walk(start, start, [start]);
  return [...cycles].sort();
}

describe('the synchronous calls between services', () => {
  it.each(declared)('$name declares exactly the services whose gRPC clients its code imports', ({ name, calls }) => {
    expect(calls.map((call) => call.service).sort()).toEqual(importedClients(name));
  });

  it.each(declared.flatMap(({ name, calls }) => calls.map((call) => ({ name, ...call }))))(
    '$name -> $service: each declared method is one the callee serves, and one the caller calls',
    ({ name, service, methods }) => {
      const served = Object.values(DEFINITIONS[service]).map((method) => method.path.slice(method.path.lastIndexOf('/') + 1));
      const callerSource = sourceFiles(path.join(ROOT, 'services', name, 'grpc'))
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
      for (const method of methods) {
        expect(served).toContain(method);
        expect(callerSource).toContain(`.${method.charAt(0).toLowerCase()}${method.slice(1)}(`);
      }
    },
  );

  it('form no cycle but the accepted one', () => {
    const edges = new Map(declared.map(({ name, calls }) => [name as string, calls.map((call) => call.service as string)]));
    expect(cyclesOf(edges)).toEqual(ACCEPTED_CYCLES);
  });

  it('finds a cycle when there is one (the check is not vacuous)', () => {
    const edges = new Map([
      ['audience', ['tax']],
      ['tax', ['webhooks']],
      ['webhooks', ['audience']],
    ]);
    expect(cyclesOf(edges)).toEqual(['audience -> tax -> webhooks -> audience']);
  });

  it('are the ones docs/architecture.md draws, service to service', () => {
    const architecture = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const drawn = [...architecture.matchAll(/^\| ([a-z]+) → ([a-z]+) \|/gm)].map((match) => `${match[1]} -> ${match[2]}`).sort();
    const code = declared.flatMap(({ name, calls }) => calls.map((call) => `${name} -> ${call.service}`)).sort();
    expect(drawn).toEqual(code);
  });
});
