/** test/setup/stack-environment.js: the integration tests' environment (Jest loads it by path). */
import { TestEnvironment } from 'jest-environment-node';

export default class StackEnvironment extends TestEnvironment {}

/** Stops the stack this process started for its files, if any. */
export function stopWorkerStack(): Promise<void>;
