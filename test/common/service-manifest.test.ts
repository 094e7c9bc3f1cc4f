import net from 'node:net';
import { status } from '@grpc/grpc-js';
import pg from 'pg';
import { z } from 'zod';
import { HealthCheckResponse_ServingStatus, HealthClient } from '../../gen/grpc/health/v1/health';
import { TaxServiceClient, TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { ConfigError, loadConfig, serviceEnv } from '../../services/platform/config';
import { createGrpcClient } from '../../services/platform/grpc/client';
import type { JobDefinition } from '../../services/platform/queue';
import { type CatalogEntry, SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { type ServiceManifest, startService } from '../../services/platform/service-manifest';
import { ManifestError, type RunningService, type ServiceRuntime, type ServiceRuntimeConfig } from '../../services/platform/service-runtime';
import { LogCapture } from '../helpers/log-capture';
import { freePort, portIsFree } from '../helpers/processes';
import { pollUntil } from '../helpers/poll';
import { commonEnv, createTestDatabase, deleteKeys, newQueuePrefix } from '../helpers/stack';
import { TEST_REDIS_URL } from '../setup/test-env';

/**
 * A service starts only when its parts match its manifest: each job of the manifest gets exactly
 * one processor, and the relay keeps work only for jobs of the manifest. Checked on a probe
 * service over the real runtime (database, Redis), before it serves anything.
 */
const job = (queue: string): JobDefinition<{ n: number }> => ({ queue, data: z.object({ n: z.number() }) });
const probeService: CatalogEntry = { ...SERVICE_CATALOG.tax, name: 'probe', schema: 'probe' };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const queuePrefix = newQueuePrefix();
const logs = new LogCapture();

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.drop();
  await deleteKeys(TEST_REDIS_URL, `${queuePrefix}:*`);
});

function probeConfig(env: Record<string, string> = {}): ServiceRuntimeConfig {
  return loadConfig(z.object(serviceEnv(0)), {
    ...commonEnv(database.url, TEST_REDIS_URL, queuePrefix),
    GRPC_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...env,
  });
}

/** The probe service with these jobs, composed by `compose` (which registers processors, or not). */
function startProbe(
  jobs: JobDefinition<{ n: number }>[],
  compose: (runtime: ServiceRuntime<unknown>) => void | Promise<void>,
  env: Record<string, string> = {},
): Promise<RunningService> {
  const manifest: ServiceManifest<ServiceRuntimeConfig, unknown> = {
    service: probeService,
    configSchema: z.any(),
    migrations: () => ({}),
    grpc: TaxServiceService,
    jobs,
    calls: [],
    compose: async (runtime) => {
      await compose(runtime);
      return {};
    },
  };
  return startService(manifest, probeConfig(env), { logger: logs.logger('probe') });
}

describe('service start-up against its manifest', () => {
  it('refuses to start when a job of the manifest has no processor, naming the job', async () => {
    const first = job('probe-first');
    const second = job('probe-second');
    const failure = startProbe([first, second], (runtime) => runtime.process(first, async () => undefined));
    await expect(failure).rejects.toThrow(
      new ManifestError("the probe service's job probe-second has no processor: register one in its composition root (runtime.process)"),
    );
    // Like a configuration error: the process exits with code 78, and a supervisor does not restart it.
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
  });

  it('refuses to start when a job has two processors, even in a process that runs no workers', async () => {
    const only = job('probe-twice');
    for (const RUN_WORKERS of ['true', 'false']) {
      const failure = startProbe(
        [only],
        (runtime) => {
          runtime.process(only, async () => undefined);
          runtime.process(only, async () => undefined);
        },
        { RUN_WORKERS },
      );
      await expect(failure).rejects.toThrow(new ManifestError("the probe service's job probe-twice has two processors: register one"));
    }
  });

  it('refuses a processor or relayed work for a job its manifest does not list, and a job listed twice', async () => {
    const listed = job('probe-listed');
    const unlisted = job('probe-unlisted');
    await expect(startProbe([listed], (runtime) => runtime.process(unlisted, async () => undefined))).rejects.toThrow(
      new ManifestError(
        'the probe service registers a processor for job probe-unlisted, which its manifest does not list (services/probe/manifest.ts)',
      ),
    );
    await expect(
      startProbe([listed], (runtime) => {
        runtime.process(listed, async () => undefined);
        runtime.relay.repeat({ job: unlisted, schedulerId: 'probe', everyMs: 60_000, payload: { n: 1 } });
      }),
    ).rejects.toThrow(
      new ManifestError("the probe service's job relay keeps work for probe-unlisted, which its manifest does not list (services/probe/manifest.ts)"),
    );
    await expect(startProbe([listed, job('probe-listed')], () => undefined)).rejects.toThrow(
      new ManifestError("the probe service's manifest lists job probe-listed twice"),
    );
  });

  it('starts when every job has one processor, and runs its jobs with it', async () => {
    const work = job('probe-work');
    const seen: number[] = [];
    let runtime: ServiceRuntime<unknown> | undefined;
    const service = await startProbe([work], (composing) => {
      runtime = composing;
      composing.process(work, async ({ n }) => seen.push(n));
    });
    try {
      await runtime!.queues.enqueue(work, { n: 7 });
      await pollUntil(async () => seen.length > 0, { timeoutMs: 10_000, what: 'the processor to run the job' });
      expect(seen).toEqual([7]);
    } finally {
      await service.stop();
    }
  });
});

/**
 * The port is bound before the service opens any connection: on Linux an outgoing connection (to
 * PostgreSQL, to Redis) takes a local port from the ephemeral range, and one opened during start-up
 * could take the service's port just before it binds it (1 start in 27 failed so, before).
 */
describe('service start-up and its port', () => {
  const probeAddress = (port: number) => `127.0.0.1:${port}`;

  it('binds its port first: a taken port is reported even when PostgreSQL cannot be reached', async () => {
    const holder = net.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    // grpc-js also prints a line of its own ("No address added ..."); keep it out of the test output.
    const grpcLog = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const failure = startProbe([], () => undefined, { GRPC_PORT: String(port), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
      await expect(failure).rejects.toThrow(
        new ConfigError(`${probeAddress(port)} is already in use by another process: set GRPC_PORT to a free port, or stop that process`),
      );
    } finally {
      grpcLog.mockRestore();
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('gives its port back when it cannot start after binding it', async () => {
    const port = await freePort();
    await expect(
      startProbe([], () => undefined, { GRPC_PORT: String(port), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(await portIsFree(port)).toBe(true);
  });

  it('answers UNAVAILABLE and health NOT_SERVING while it migrates, then serves', async () => {
    const port = await freePort();
    // Another replica migrating the schema: this one waits for the migration lock (migrate.ts).
    const replica = new pg.Client({ connectionString: database.url });
    await replica.connect();
    await replica.query("SELECT pg_advisory_lock(hashtext('migrate:probe'))");
    const health = createGrpcClient(HealthClient, probeAddress(port), 2_000);
    const tax = createGrpcClient(TaxServiceClient, probeAddress(port), 2_000);
    let service: RunningService | undefined;
    try {
      const starting = startProbe([], () => undefined, { GRPC_PORT: String(port) });
      const answer = await pollUntil(() => health.call.check({ service: SERVICE_CATALOG.tax.grpcService }).catch(() => undefined), {
        timeoutMs: 10_000,
        what: 'the starting service to answer its health check',
      });
      expect(answer.status).toBe(HealthCheckResponse_ServingStatus.NOT_SERVING);
      await expect(tax.call.getTaxSettings({ projectId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
        code: status.UNAVAILABLE,
        details: `${SERVICE_CATALOG.tax.grpcService} is starting; try again shortly`,
      });

      await replica.query("SELECT pg_advisory_unlock(hashtext('migrate:probe'))");
      service = await starting;
      expect(service.grpcPort).toBe(port);
      expect((await health.call.check({ service: SERVICE_CATALOG.tax.grpcService })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
      // Now the implementation answers (the probe implements no method: grpc-js's own answer).
      await expect(tax.call.getTaxSettings({ projectId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
        code: status.UNIMPLEMENTED,
      });
    } finally {
      health.close();
      tax.close();
      await replica.end();
      await service?.stop();
    }
  });
});
