import { z } from 'zod';
import { CliError, EXIT } from '../exit-codes';
import type { ApiClient } from '../http/api-client';
import type { ConversionLine } from './conversion-lines';

/** The batch answer (batchResultSchema in the OpenAPI document): one result per conversion, in order. */
const batchResult = z.object({
  results: z.array(
    z.object({
      id: z.string().nullable(),
      outcome: z.enum(['accepted', 'duplicate', 'refused']),
      status: z.string().nullable(),
      error: z.object({ status: z.number().int(), code: z.string(), message: z.string() }).nullable(),
    }),
  ),
});

export interface LineResult {
  line: number;
  id: string;
  outcome: 'accepted' | 'duplicate' | 'refused';
  status: string | null;
  error: { code: string; message: string } | null;
}

/**
 * Sends one batch and gives each line its result. The client retries a batch whose answer was lost
 * with the same conversions: their ids deduplicate, so one stored by the lost attempt comes back
 * as a duplicate, never as a second conversion.
 */
export async function sendConversionBatch(api: ApiClient, lines: ConversionLine[]): Promise<LineResult[]> {
  const { body } = await api.request({
    method: 'POST',
    path: '/api/v1/conversions/batch',
    body: { conversions: lines.map((line) => line.conversion) },
    schema: batchResult,
  });
  if (body.results.length !== lines.length) {
    throw new CliError(EXIT.unavailable, `the API answered ${body.results.length} results for ${lines.length} conversions`);
  }
  return body.results.map((result, index) => ({
    line: lines[index]!.line,
    id: lines[index]!.id,
    outcome: result.outcome,
    status: result.status,
    // The message names the field by its place in the batch (conversions[7].volume_usd): the line number says that better.
    error: result.error && { code: result.error.code, message: result.error.message.replace(/conversions\[\d+\]\./g, '') },
  }));
}
