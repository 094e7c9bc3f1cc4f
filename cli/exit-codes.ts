/**
 * The exit codes a script can rely on (printed by `referral --help` and listed in the README).
 * Every failure of the tool ends as a CliError carrying one of them; nothing else sets the code.
 */
export const EXIT = {
  /** Everything was done. */
  ok: 0,
  /** The run finished, but some rows were refused by the API (or a batch failed): see the report. */
  partial: 1,
  /** Bad usage or bad input (an unknown option, an unreadable or invalid file, a 4xx the input caused); nothing was sent. */
  usage: 2,
  /** The API key is missing from the server's view, revoked, or lacks the role the command needs (401/403). */
  auth: 3,
  /** The server or the network stayed unavailable (5xx, 429, refused connection, timeout) after the retries. */
  unavailable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What `referral --help` says about them. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  success
  1  some rows refused, or a batch failed (partial: the report names each)
  2  usage or input error (bad option, unreadable or invalid file: nothing was sent)
  3  authentication or permission error (missing, wrong or revoked key; wrong role)
  4  server or network unavailable after the retries

Environment:
  REFERRAL_BASE_URL    where the gateway answers (default http://localhost:8080)
  REFERRAL_API_KEY     the API key (service_role for import-entries and send-conversions,
                       admin or read_only for export-affiliates)
  REFERRAL_PROJECT_ID  the project of export-affiliates (or --project)`;

/** A failure with the exit code it ends the process with, and a message meant for a person. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
