import { type FaultStack, type FaultStackOptions, startFaultStack } from './fault-stack';

/** Starting several service processes on a loaded 2-core machine (and, for some files, a chain first). */
const START_TIMEOUT_MS = 180_000;
/** Bringing back a killed service (up to 45 s to start) and a stopped Redis. */
const RESTORE_TIMEOUT_MS = 120_000;

/**
 * The fault tests' set-up, one for every file: starts the fault stack before the file's tests,
 * stops it after them, and after each test brings back what a test that failed half-way left down
 * (a stopped Redis, then every killed service, which needs it to start), so the next test starts
 * whole. Call it inside the file's describe, before the file's own hooks (which then see a started
 * stack).
 *
 * Returns the stack itself; its members are there once the file's beforeAll hooks run. `options`
 * may be a function, for a file that starts something the services are configured with first.
 */
export function useFaultStack(options: FaultStackOptions | (() => Promise<FaultStackOptions>)): FaultStack {
  let started: FaultStack | undefined;
  beforeAll(async () => {
    started = await startFaultStack(typeof options === 'function' ? await options() : options);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await started?.stop();
  });
  afterEach(async () => {
    if (!started) return;
    if (started.redis && !started.redis.running) await started.redis.startEmpty();
    for (const service of Object.values(started.services)) if (!service.running) await service.restart();
  }, RESTORE_TIMEOUT_MS);
  // The hooks above run after this returns: the file holds a stand-in that answers with the started stack.
  return new Proxy({} as FaultStack, {
    get(_target, member) {
      if (!started) throw new Error(`the fault stack is not started yet (its ${String(member)} was asked for outside the tests and hooks)`);
      return Reflect.get(started, member);
    },
  });
}
