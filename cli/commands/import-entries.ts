import { canonicalUuid, isUuid } from '../../services/rules/ids';
import type { CliConfig } from '../config';
import { wholeNumber } from '../config';
import { type EntryBatch, sendEntryBatch } from '../entries/entry-batches';
import { type EntryRow, entryRows, isBadLine } from '../entries/entry-rows';
import { CliError, EXIT, type ExitCode } from '../exit-codes';
import { BadLines } from '../files/bad-lines';
import { checkReadable, fileLines } from '../files/file-lines';
import { ApiClient } from '../http/api-client';
import { progressOn } from '../progress';

export interface ImportEntriesOptions {
  batchSize?: string;
  json?: boolean;
}

/** The API takes up to 10,000 entries a batch (MAX_BATCH_ENTRIES); smaller batches show progress more often. */
const BATCH_SIZE = { default: 1_000, max: 10_000 };

/**
 * `referral import-entries <segment> <file.csv>`: checks the whole file first (nothing is sent if
 * any line is bad), then sends it in batches, each under an Idempotency-Key derived from the file
 * (see batchKey), so running it again after an interruption resumes without adding anything twice.
 */
export async function importEntries(segment: string, path: string, options: ImportEntriesOptions, config: CliConfig): Promise<ExitCode> {
  if (!isUuid(segment)) throw new CliError(EXIT.usage, `the segment must be an audience segment id (a UUID), not "${segment}"`);
  const segmentId = canonicalUuid(segment);
  const batchSize = wholeNumber('--batch-size', options.batchSize, BATCH_SIZE.default, 1, BATCH_SIZE.max);
  await checkReadable(path);

  const checked = await checkFile(path);
  const progress = progressOn(process.stderr, checked.rows, 'rows');
  const api = new ApiClient(config, (message) => progress.message(message));
  const totals = { rows: 0, batches: 0, added: 0, skipped: 0 };
  const failed: Array<{ firstLine: number; lastLine: number; jobId: string; error: string | null }> = [];

  const send = async (rows: EntryRow[]) => {
    const batch: EntryBatch = await sendEntryBatch(api, { segmentId, sha256: checked.sha256, batchSize, index: totals.batches }, rows);
    totals.batches += 1;
    totals.rows += rows.length;
    totals.added += batch.added;
    totals.skipped += batch.skipped;
    if (batch.status === 'failed') {
      failed.push({ firstLine: rows[0]!.line, lastLine: rows[rows.length - 1]!.line, jobId: batch.job_id, error: batch.error });
      progress.message(`batch ${totals.batches} (lines ${rows[0]!.line}-${rows[rows.length - 1]!.line}) failed: ${batch.error ?? 'no reason given'}`);
    }
    progress.update(totals.rows, `added ${totals.added.toLocaleString('en-US')}, skipped ${totals.skipped.toLocaleString('en-US')}`);
  };

  const file = fileLines(path);
  let pending: EntryRow[] = [];
  for await (const row of entryRows(file)) {
    // The first pass found no bad line: one now means the file changed under us.
    if (isBadLine(row)) throw changedError(path);
    pending.push(row);
    if (pending.length === batchSize) {
      await send(pending);
      pending = [];
    }
  }
  if (pending.length > 0) await send(pending);
  progress.finish();
  if (file.sha256() !== checked.sha256) throw changedError(path);

  const summary = { segment_id: segmentId, file: path, sha256: checked.sha256, ...totals, failed_batches: failed };
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else {
    const count = (value: number) => value.toLocaleString('en-US');
    process.stdout.write(
      `Imported ${path} into segment ${segmentId}: ${count(totals.rows)} rows in ${count(totals.batches)} batches\n` +
        `  added    ${count(totals.added)}\n` +
        `  skipped  ${count(totals.skipped)} (already in the segment, or repeated in the file)\n` +
        failed
          .map((batch) => `  FAILED   lines ${batch.firstLine}-${batch.lastLine} (job ${batch.jobId}): ${batch.error ?? 'no reason given'}\n`)
          .join(''),
    );
  }
  return failed.length > 0 ? EXIT.partial : EXIT.ok;
}

/** The first pass: every line checked, the rows counted (the progress bar's total), the file's hash (the batches' keys). */
async function checkFile(path: string): Promise<{ rows: number; sha256: string }> {
  const file = fileLines(path);
  const bad = new BadLines();
  let rows = 0;
  for await (const row of entryRows(file)) {
    if (isBadLine(row)) bad.add(row);
    else rows += 1;
  }
  bad.throwIfAny(path);
  if (rows === 0) throw new CliError(EXIT.usage, `${path}: no rows to import (a header, then one identifier,identifier_type a line)`);
  return { rows, sha256: file.sha256() };
}

function changedError(path: string): CliError {
  return new CliError(EXIT.usage, `${path} changed while it was being imported; run the import again on the finished file`);
}
