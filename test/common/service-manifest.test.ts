import { z } from 'zod';
import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { ConfigError, loadConfig, serviceEnv } from '../../services/common/config';
import type { JobDefinition } from '../../services/common/queue';
import { type CatalogEntry, SERVICE_CATALOG } from '../../services/common/service-catalog';
import { type ServiceManifest, startService } from '../../services/common/service-manifest';
import { ManifestError, type RunningService, type ServiceRuntime, type ServiceRuntimeConfig } from '../../services/common/service-runtime';
import { LogCapture } from '../helpers/log-capture';
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
  compose: (runtime: ServiceRuntime<unknown>) => void,
  env: Record<string, string> = {},
): Promise<RunningService> {
  const manifest: ServiceManifest<ServiceRuntimeConfig, unknown> = {
    service: probeService,
    configSchema: z.any(),
    migrations: () => ({}),
    grpc: TaxServiceService,
    jobs,
    compose: async (runtime) => {
      compose(runtime);
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
      new ManifestError('the probe service registers a processor for job probe-unlisted, which its manifest does not list (services/probe/manifest.ts)'),
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
