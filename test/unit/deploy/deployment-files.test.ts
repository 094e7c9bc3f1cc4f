import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { gatewayConfigSchema } from '../../../gateway/config';
import { stackConfigSchema } from '../../../scripts/stack/members';
import { CATALOG, type CatalogEntry } from '../../../services/platform/service-catalog';
import { SERVICE_MANIFESTS } from '../../../services/manifests';

/**
 * docker-compose.yml, deploy/k8s, .env.example and the configuration table (docs/configuration.md) name the same
 * services, ports and variables as the catalog (services/platform/service-catalog.ts) and the
 * configuration schemas. Each check lists every problem it finds, so one run says all to fix.
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The variables a configuration schema reads. */
function variablesOf(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
  return Object.keys(json.properties ?? {});
}

/** What each process reads: the gateway and every service, by the name its container runs under. */
const READS = new Map<string, Set<string>>([
  ['gateway', new Set(variablesOf(gatewayConfigSchema))],
  ...SERVICE_MANIFESTS.map((manifest) => [manifest.service.name, new Set(variablesOf(manifest.configSchema))] as const),
]);
/** Every variable something reads (npm start's supervisor reads a few of the others' too). */
const ALL = new Set([...[...READS.values()].flatMap((names) => [...names]), ...variablesOf(stackConfigSchema)]);

const address = (service: CatalogEntry) => `${service.name}:${service.defaultGrpcPort}`;

/** The process a container runs, from its command (node ... dist/<gateway|services/name>/main.js). */
function processOf(command: unknown): string | undefined {
  const script = (Array.isArray(command) ? command : []).find((part) => typeof part === 'string' && part.startsWith('dist/'));
  return /^dist\/(?:services\/)?([a-z-]+)\/main\.js$/.exec(script ?? '')?.[1];
}

/** Variables set for a process that it does not read (a misspelling, or a leftover). */
function unread(where: string, process: string, names: Iterable<string>): string[] {
  const reads = READS.get(process);
  if (!reads) return [`${where} runs ${process}, which is neither the gateway nor a service of the catalog`];
  return [...names].filter((name) => !reads.has(name)).map((name) => `${where} sets ${name}, which ${process} does not read`);
}

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, unknown>;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };
  const ours = Object.entries(compose.services).filter(([, service]) => service.command?.some((part) => part.startsWith('dist/')));

  it('runs every service of the catalog on its port, and the gateway finds each there', () => {
    const problems: string[] = [];
    const gateway = compose.services.gateway;
    if (!gateway) problems.push('no gateway service');
    for (const service of CATALOG) {
      const container = compose.services[service.name];
      if (!container) {
        problems.push(`no compose service ${service.name}`);
        continue;
      }
      if (processOf(container.command) !== service.name)
        problems.push(`${service.name}: command ${JSON.stringify(container.command)} does not run dist/services/${service.name}/main.js`);
      const port = container.environment?.GRPC_PORT;
      if (port !== String(service.defaultGrpcPort))
        problems.push(`${service.name}: GRPC_PORT is ${port}, the catalog says ${service.defaultGrpcPort}`);
      const pointed = gateway?.environment?.[service.addressVariable];
      if (pointed !== address(service)) problems.push(`gateway: ${service.addressVariable} is ${pointed}, should be ${address(service)}`);
      if (gateway && !gateway.depends_on?.[service.name]) problems.push(`gateway does not depend on ${service.name}`);
    }
    const port = gateway?.environment?.PORT;
    if (gateway && !gateway.ports?.includes(`${port}:${port}`))
      problems.push(`gateway: PORT ${port} is not published (ports ${JSON.stringify(gateway.ports)})`);
    // The metrics port is another port, and reaches no further than the host's loopback.
    const metricsPort = gateway?.environment?.METRICS_PORT;
    if (gateway && (!metricsPort || metricsPort === port)) problems.push(`gateway: METRICS_PORT is ${metricsPort}, should be a port of its own`);
    const published = (gateway?.ports ?? []).filter((mapping) => mapping.endsWith(`:${metricsPort}`));
    if (published.some((mapping) => !mapping.startsWith('127.0.0.1:')))
      problems.push(`gateway: the metrics port is published beyond the host's loopback (${published.join(', ')})`);
    expect(problems).toEqual([]);
  });

  it('sets for each process only variables it reads', () => {
    const problems = ours.flatMap(([name, service]) =>
      unread(`compose service ${name}`, processOf(service.command) ?? name, Object.keys(service.environment ?? {})),
    );
    expect(ours.map(([name]) => name).sort()).toEqual(['gateway', ...CATALOG.map((service) => service.name)].sort());
    expect(problems).toEqual([]);
  });
});

interface K8sContainer {
  command?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: { grpc?: { port: number; service?: string }; httpGet?: { port: number } };
  livenessProbe?: { grpc?: { port: number }; httpGet?: { port: number } };
}

interface K8sDocument {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    ports?: Array<{ port: number; targetPort?: number }>;
    template?: { metadata?: { annotations?: Record<string, string> }; spec: { containers: K8sContainer[] } };
  };
}

describe('deploy/k8s', () => {
  const dir = path.join(ROOT, 'deploy/k8s');
  const files = readdirSync(dir).filter((file) => file.endsWith('.yaml'));
  const documents = files.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((document) => document.toJS() as K8sDocument),
  );
  const find = (kind: string, name: string) => documents.find((document) => document.kind === kind && document.metadata?.name === name);
  const configMap = find('ConfigMap', 'referral-config')?.data ?? {};
  const secret = find('Secret', 'referral-secrets')?.stringData ?? {};
  const containers = documents
    .filter((document) => document.kind === 'Deployment')
    .flatMap((document) => document.spec?.template?.spec.containers.map((container) => ({ deployment: document.metadata.name, container })) ?? []);
  /** A container's variables: its own, over the ConfigMap's when it reads that (envFrom). */
  const envOf = (container: K8sContainer) => ({
    ...(container.envFrom?.some((from) => from.configMapRef?.name === 'referral-config') ? configMap : {}),
    ...Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value])),
  });

  it('applies every manifest file (kustomization.yaml), and only those that exist', () => {
    const { resources } = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const expected = files.filter((file) => !['kustomization.yaml', 'secret.example.yaml'].includes(file));
    expect([...resources].sort()).toEqual(expected.sort());
  });

  it('has a Deployment and a Service for every service of the catalog, on its port, and the gateway finds each there', () => {
    const problems: string[] = [];
    const gateway = containers.find(({ deployment }) => deployment === 'gateway')?.container;
    const gatewayEnv = gateway ? envOf(gateway) : {};
    if (!gateway) problems.push('no gateway Deployment');
    for (const service of CATALOG) {
      const port = service.defaultGrpcPort;
      const ports = find('Service', service.name)?.spec?.ports?.map((p) => p.port);
      if (!ports) problems.push(`no Service ${service.name}`);
      else if (!ports.includes(port)) problems.push(`Service ${service.name}: ports ${ports.join(', ')}, the catalog says ${port}`);
      const container = containers.find(({ deployment }) => deployment === service.name)?.container;
      if (!container) {
        problems.push(`no Deployment ${service.name}`);
      } else {
        const env = envOf(container);
        if (processOf(container.command) !== service.name)
          problems.push(`Deployment ${service.name}: command does not run dist/services/${service.name}/main.js`);
        if (env.GRPC_PORT !== String(port)) problems.push(`Deployment ${service.name}: GRPC_PORT is ${env.GRPC_PORT}, the catalog says ${port}`);
        if (!container.ports?.some((p) => p.containerPort === port)) problems.push(`Deployment ${service.name}: no containerPort ${port}`);
        const readiness = container.readinessProbe?.grpc;
        if (readiness?.port !== port || readiness.service !== service.grpcService) {
          problems.push(`Deployment ${service.name}: readiness should ask the gRPC health of ${service.grpcService} on port ${port}`);
        }
        if (container.livenessProbe?.grpc?.port !== port)
          problems.push(`Deployment ${service.name}: liveness should ask gRPC health on port ${port}`);
      }
      if (gatewayEnv[service.addressVariable] !== address(service)) {
        problems.push(`gateway: ${service.addressVariable} is ${gatewayEnv[service.addressVariable]}, should be ${address(service)}`);
      }
    }
    if (gateway) {
      const port = Number(gatewayEnv.PORT);
      const metricsPort = Number(gatewayEnv.METRICS_PORT);
      const portNamed = (name: string) => gateway.ports?.find((p) => p.name === name)?.containerPort;
      const gatewayPorts = [portNamed('http'), gateway.readinessProbe?.httpGet?.port, gateway.livenessProbe?.httpGet?.port];
      if (gatewayPorts.some((p) => p !== port))
        problems.push(`gateway: PORT is ${port}, but the http container port and probes say ${gatewayPorts.join(', ')}`);
      const targets = find('Service', 'gateway')?.spec?.ports?.map((p) => p.targetPort);
      if (!targets?.includes(port)) problems.push(`Service gateway: no targetPort ${port}`);
      // Metrics: their own port, scraped there, never exposed by the Service.
      if (!metricsPort || metricsPort === port) problems.push(`gateway: METRICS_PORT is ${gatewayEnv.METRICS_PORT}, should be a port of its own`);
      if (portNamed('metrics') !== metricsPort)
        problems.push(`gateway: the metrics container port is ${portNamed('metrics')}, METRICS_PORT is ${metricsPort}`);
      if (gatewayEnv.METRICS_HOST !== '0.0.0.0')
        problems.push(`gateway: METRICS_HOST is ${gatewayEnv.METRICS_HOST}: Prometheus scrapes the pod's address`);
      const annotations = find('Deployment', 'gateway')?.spec?.template?.metadata?.annotations ?? {};
      if (annotations['prometheus.io/port'] !== String(metricsPort))
        problems.push(`gateway: prometheus.io/port is ${annotations['prometheus.io/port']}, METRICS_PORT is ${metricsPort}`);
      if (targets?.includes(metricsPort)) problems.push(`Service gateway exposes the metrics port ${metricsPort}`);
    }
    expect(problems).toEqual([]);
  });

  it('sets for each container only variables it reads, shares only variables some process reads, and takes secrets the example secret has', () => {
    const problems = [
      ...Object.keys(configMap)
        .filter((name) => !ALL.has(name))
        .map((name) => `ConfigMap referral-config sets ${name}, which no process reads`),
      ...containers
        .filter(({ container }) => processOf(container.command))
        .flatMap(({ deployment, container }) =>
          unread(
            `Deployment ${deployment}`,
            processOf(container.command)!,
            (container.env ?? []).map((variable) => variable.name),
          ),
        ),
      ...containers.flatMap(({ deployment, container }) =>
        (container.env ?? [])
          .map((variable) => variable.valueFrom?.secretKeyRef)
          .filter((ref) => ref?.name === 'referral-secrets' && !(ref.key in secret))
          .map((ref) => `Deployment ${deployment} takes ${ref!.key} from the secret, which secret.example.yaml does not show`),
      ),
    ];
    expect(problems).toEqual([]);
  });
});

describe('.env.example', () => {
  const text = read('.env.example');
  // Set or commented out: `NAME=value` or `# NAME=value`.
  const listed = new Map([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));

  it('lists every variable a process reads, and no other', () => {
    const problems = [
      ...[...ALL].filter((name) => !listed.has(name)).map((name) => `${name} is read but not listed`),
      ...[...listed.keys()].filter((name) => !ALL.has(name)).map((name) => `${name} is listed but no process reads it`),
    ];
    expect(problems).toEqual([]);
  });

  it('points at every service on this machine at its catalog port', () => {
    const problems = CATALOG.filter((service) => listed.get(service.addressVariable) !== `127.0.0.1:${service.defaultGrpcPort}`).map(
      (service) => `${service.addressVariable}=${listed.get(service.addressVariable)}, should be 127.0.0.1:${service.defaultGrpcPort}`,
    );
    expect(problems).toEqual([]);
  });
});

describe('the configuration table (docs/configuration.md)', () => {
  const page = read('docs/configuration.md');
  const start = page.indexOf('\n## Variables\n');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  /** Each variable with the row it is in (a row may name several: `PORT`, `HOST`). */
  const documented = new Map(
    rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => [match[1]!, row] as const)),
  );

  it('documents every variable a process reads, and no other', () => {
    expect(rows.length).toBeGreaterThan(0);
    const problems = [
      ...[...ALL].filter((name) => !documented.has(name)).map((name) => `${name} is read but not documented`),
      ...[...documented.keys()].filter((name) => !ALL.has(name)).map((name) => `${name} is documented but no process reads it`),
    ];
    expect(problems).toEqual([]);
  });

  it("gives every service's address variable its catalog default", () => {
    const problems = CATALOG.filter((service) => !documented.get(service.addressVariable)?.includes(`\`127.0.0.1:${service.defaultGrpcPort}\``)).map(
      (service) => `${service.addressVariable}: the default should read 127.0.0.1:${service.defaultGrpcPort}`,
    );
    expect(problems).toEqual([]);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = read('deploy/Dockerfile');
  const copied = new Set([...dockerfile.matchAll(/^COPY (?!--from)(\S+) \1$/gm)].map((match) => match[1]!));

  it('copies every folder the build compiles, and the web sources it bundles', () => {
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    // gen/ is generated inside the image from proto/ (npm run build runs buf generate).
    const needed = [...build.include.filter((folder) => folder !== 'gen'), 'proto', 'web'];
    expect(needed.filter((folder) => !copied.has(folder))).toEqual([]);
  });
});
