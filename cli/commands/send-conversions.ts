import type { CliConfig } from '../config';
import { wholeNumber } from '../config';
import { type LineResult, sendConversionBatch } from '../conversions/conversion-batches';
import { type ConversionLine, conversionLines, isBadConversionLine } from '../conversions/conversion-lines';
import { CliError, EXIT, type ExitCode } from '../exit-codes';
import { BadLines } from '../files/bad-lines';
import { checkReadable, fileLines } from '../files/file-lines';
import { ApiClient } from '../http/api-client';
import { progressOn } from '../progress';

export interface SendConversionsOptions {
  batchSize?: string;
  quiet?: boolean;
  json?: boolean;
}

/** POST /api/v1/conversions/batch takes up to 1,000 (MAX_CONVERSIONS_PER_BATCH). */
const BATCH_SIZE = { default: 1_000, max: 1_000 };

/**
 * `referral send-conversions <file.ndjson>`: checks every line is a JSON object with an id (nothing
 * is sent otherwise), then sends them in batches and reports each line's outcome on stdout:
 * accepted (stored now), duplicate (stored before: its id was sent already) or refused (why).
 */
export async function sendConversions(path: string, options: SendConversionsOptions, config: CliConfig): Promise<ExitCode> {
  const batchSize = wholeNumber('--batch-size', options.batchSize, BATCH_SIZE.default, 1, BATCH_SIZE.max);
  await checkReadable(path);
  const total = await checkFile(path);

  const progress = progressOn(process.stderr, total, 'conversions');
  const api = new ApiClient(config, (message) => progress.message(message));
  const tally = { lines: 0, accepted: 0, duplicates: 0, refused: 0 };
  const send = async (lines: ConversionLine[]) => {
    const results = await sendConversionBatch(api, lines);
    for (const result of results) {
      tally.lines += 1;
      if (result.outcome === 'accepted') tally.accepted += 1;
      else if (result.outcome === 'duplicate') tally.duplicates += 1;
      else tally.refused += 1;
      report(result, options);
    }
    progress.update(tally.lines, `accepted ${tally.accepted}, duplicate ${tally.duplicates}, refused ${tally.refused}`);
  };

  let pending: ConversionLine[] = [];
  for await (const line of conversionLines(fileLines(path))) {
    if (isBadConversionLine(line)) throw new CliError(EXIT.usage, `${path} changed while it was being sent (line ${line.line}: ${line.problem})`);
    pending.push(line);
    if (pending.length === batchSize) {
      await send(pending);
      pending = [];
    }
  }
  if (pending.length > 0) await send(pending);
  progress.finish();

  if (options.json) process.stdout.write(`${JSON.stringify({ summary: tally })}\n`);
  else process.stdout.write(`Sent ${tally.lines} conversions: ${tally.accepted} accepted, ${tally.duplicates} duplicate, ${tally.refused} refused\n`);
  return tally.refused > 0 ? EXIT.partial : EXIT.ok;
}

/** One line's outcome on stdout: every line, or with --quiet only the refused ones. */
function report(result: LineResult, options: SendConversionsOptions): void {
  if (options.quiet && result.outcome !== 'refused') return;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const why = result.error ? `: ${result.error.code}: ${result.error.message}` : result.status ? ` (${result.status})` : '';
  process.stdout.write(`line ${result.line}: ${result.outcome} ${JSON.stringify(result.id)}${why}\n`);
}

/** The first pass: every line checked; the count is the progress bar's total. */
async function checkFile(path: string): Promise<number> {
  const bad = new BadLines();
  let count = 0;
  for await (const line of conversionLines(fileLines(path))) {
    if (isBadConversionLine(line)) bad.add(line);
    else count += 1;
  }
  bad.throwIfAny(path);
  if (count === 0) throw new CliError(EXIT.usage, `${path}: no conversions to send (one JSON object a line)`);
  return count;
}
