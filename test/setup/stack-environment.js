/**
 * The integration tests' environment: Node's, plus one stack per Jest worker that every file of the
 * worker may borrow (test/helpers/worker-stack.ts), instead of starting and stopping a stack of its own.
 *
 * Jest gives each test file a fresh module registry and global, so nothing a file starts outlives it.
 * This module is the exception: Jest loads a test environment with Node's own `require` in the worker
 * process, once, so what it keeps lives as long as the worker. The stack's code is loaded here, outside
 * the files' registries, compiled on load by scripts/register-ts.js (the hook the tests' service processes
 * use), and started on the first file that asks. A file gets plain values (addresses, the database's URL)
 * and two objects it uses across the boundary: the stack's clock and its log capture.
 *
 * A worker ends with the run without stopping it: global teardown drops every database and Redis key of the
 * run (test/setup/global-teardown.ts). A run of one file has no worker (Jest runs it in its own process): global
 * teardown stops the stack first (stopWorkerStack), or dropping its database would fail its connections.
 */
const { TestEnvironment } = require('jest-environment-node');

/** The worker's stack as it started (its stop() included), once a file asked for it. */
let started;

function startWorkerStack() {
  if (!started) {
    require('../../scripts/register-ts.js');
    const { startStack } = require('../helpers/stack.ts');
    started = startStack().then(
      (stack) => ({
        stop: () => stack.stop(),
        baseUrl: stack.baseUrl,
        metricsUrl: stack.metricsUrl,
        databaseUrl: stack.databaseUrl,
        redisUrl: stack.redisUrl,
        queuePrefix: stack.queuePrefix,
        grpcAddresses: { ...stack.grpcAddresses },
        clock: stack.clock,
        logs: stack.logs,
      }),
      (error) => {
        started = undefined;
        throw error;
      },
    );
  }
  return started;
}

class StackEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__referralWorkerStack = startWorkerStack;
  }
}

/** Stops the stack of this process, if a file started one (see above). */
StackEnvironment.stopWorkerStack = async () => {
  const stack = await started?.catch(() => undefined);
  started = undefined;
  await stack?.stop();
};

module.exports = StackEnvironment;
