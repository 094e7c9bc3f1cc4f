import { Command, Option } from 'commander';
import { AffiliateSort, AffiliateStatus, SortOrder } from '../gen/referral/agency/v1/enums';
import { enumNames } from '../services/rules/enums';
import { exportAffiliates } from './commands/export-affiliates';
import { importEntries } from './commands/import-entries';
import { sendConversions } from './commands/send-conversions';
import { type GlobalOptions, resolveConfig } from './config';
import { EXIT_CODES_HELP, type ExitCode } from './exit-codes';

/**
 * `referral`: the command-line tool over the public HTTP API. Each command's action resolves to
 * the exit code it ends with; failures are thrown as CliError (see main.ts).
 */
export function buildProgram(finish: (code: ExitCode) => void): Command {
  const program = new Command('referral')
    .description('The referral platform from the command line: import audience entries, export affiliates, send conversions.')
    // Settings inherited by the commands added below: usage errors are thrown (exit 2), not exited with 1.
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .option('--base-url <url>', 'where the gateway answers (default: $REFERRAL_BASE_URL, else http://localhost:8080)')
    .option('--api-key <key>', 'the API key (default: $REFERRAL_API_KEY; prefer the variable: a flag shows in the process list)')
    .option('--retries <n>', 'retries after a 5xx, 429 or network failure, same request each time (default 4)')
    .option('--timeout-ms <ms>', 'per request (default 60000)')
    .addHelpText('after', EXIT_CODES_HELP);

  const config = (command: Command) => resolveConfig(command.optsWithGlobals<GlobalOptions>());

  program
    .command('import-entries')
    .summary('add the users of a CSV file to an audience segment (resumable)')
    .description(
      'Add the users of a CSV file (header: identifier,identifier_type) to an audience segment, in batches. ' +
        'The whole file is checked first; running it again after an interruption resumes without adding anything twice.',
    )
    .argument('<segment>', 'the audience segment id')
    .argument('<file.csv>', 'the CSV file')
    .option('--batch-size <n>', 'entries a batch, 1 to 10000 (default 1000)')
    .option('--json', 'print the summary as one JSON object')
    .action(async (segment: string, file: string, options, command: Command) => finish(await importEntries(segment, file, options, config(command))));

  program
    .command('export-affiliates')
    .summary("write the project's affiliates to CSV, with the list's filters")
    .description("Write the project's affiliates with their metrics to CSV, filtered and sorted as the list API does.")
    .option('--project <id>', 'the project id (default: $REFERRAL_PROJECT_ID)')
    .addOption(new Option('--status <status>', 'only affiliates of this status').choices(enumNames(AffiliateStatus)))
    .option('--region <code>', 'only affiliates of this region (ISO 3166-1 alpha-2)')
    .option('--audience <id>', 'only members of this audience segment')
    .option('--audience-ids <ids>', 'only members of any of these segments (comma-separated)')
    .option('--conversions <names>', 'only affiliates with a conversion of any of these names (comma-separated)')
    .option('--q <text>', 'a prefix of the identifier or of the name')
    .addOption(new Option('--sort-by <field>', 'sort by this field (default joined_at)').choices(enumNames(AffiliateSort)))
    .addOption(new Option('--order <order>', 'sort order (default desc)').choices(enumNames(SortOrder)))
    .option('--out <file.csv>', 'write to this file (default: stdout)')
    .option('--page-size <n>', 'affiliates a request, 1 to 100 (default 100)')
    .action(async (options, command: Command) => finish(await exportAffiliates(options, config(command))));

  program
    .command('send-conversions')
    .summary('send the conversions of an NDJSON file, reported per line')
    .description(
      'Send the conversions of an NDJSON file (one JSON object a line, each with its id) in batches of up to 1,000, ' +
        'and report each line: accepted, duplicate (sent before) or refused (why).',
    )
    .argument('<file.ndjson>', 'the NDJSON file')
    .option('--batch-size <n>', 'conversions a batch, 1 to 1000 (default 1000)')
    .option('--quiet', 'report only the refused lines (and the summary)')
    .option('--json', 'report each line, then the summary, as JSON objects')
    .action(async (file: string, options, command: Command) => finish(await sendConversions(file, options, config(command))));

  return program;
}
