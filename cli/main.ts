#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram } from './program';
import { CliError, EXIT, type ExitCode } from './exit-codes';

/**
 * `npx referral …` (package.json "bin"). Every path out goes through exit(): the code a script
 * relies on (exit-codes.ts), after stdout and stderr have taken everything written to them.
 */
function exit(code: ExitCode): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

async function main(): Promise<void> {
  let code: ExitCode | undefined;
  try {
    await buildProgram((finished) => (code = finished)).parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the problem (or the help, or the version, which end with 0).
      return exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
    }
    if (error instanceof CliError) {
      process.stderr.write(`referral: ${error.message}\n`);
      return exit(error.exitCode);
    }
    process.stderr.write(`referral: unexpected failure: ${(error as Error).stack ?? String(error)}\n`);
    return exit(EXIT.unavailable);
  }
  exit(code ?? EXIT.ok);
}

void main();
