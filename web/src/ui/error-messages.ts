import { ApiError, type FieldViolation } from '../api/client';
import { formatDecimal } from './format';

/**
 * The API's refusals in sentences a person reads: its field paths as words ("entries[3].identifier"
 * -> "Row 4: the identifier"), zod's wording as what to type ("Too big: expected number to be
 * <=10000" -> "must be at most 10,000"), and the codes whose message reads badly on a screen. The
 * API's own words are for developers (and stay in its answers); every screen words errors here.
 */

/** The API's codes for a request whose fields are wrong: their message only repeats the first field's problem. */
const VALIDATION_CODES = new Set(['VALIDATION_FAILED', 'INVALID_ARGUMENT', 'BAD_REQUEST']);

/** Field names whose words are not their snake_case. */
const FIELD_WORDS: Record<string, string> = {
  bps: 'share in basis points',
  share_bps: 'share in basis points',
  chain_id: 'chain id',
  url: 'URL',
  program_url: 'program URL',
  tin: 'tax id',
  '(body)': 'request',
};

/** zod's type names, as the thing to type. */
const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  string: 'text',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a group of fields',
  date: 'a date',
};

/** zod's format names (its "Invalid UUID", "Invalid ISO date"), as the thing to type. */
const FORMAT_WORDS: Record<string, string> = {
  'ISO date': 'a date as YYYY-MM-DD',
  'ISO datetime': 'a date and time (ISO 8601)',
  'ISO time': 'a time as HH:MM',
  'email address': 'an email address',
  URL: 'a full URL (https://…)',
  UUID: 'an id (UUID)',
  input: 'in the expected format',
};

const number = (text: string) => (/^-?\d+(\.\d+)?$/.test(text) ? formatDecimal(text) : text);

/** "a", "a or b", "a, b or c". */
function oneOf(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const humanise = (name: string) => FIELD_WORDS[name] ?? name.replace(/_/g, ' ');
const singular = (name: string) => name.replace(/ies$/, 'y').replace(/s$/, '');

/**
 * A field path as words: "decimals" -> "the decimals", "entries[3].identifier" -> "Row 4: the identifier",
 * "permanent_address.postal_code" -> "the postal code of the permanent address", "user_identifiers[2]" -> "Row 3: the user identifier".
 */
export function fieldPhrase(path: string): string {
  const parts = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1]!));
  const rows = parts.flatMap((part, index) => (typeof part === 'number' ? [{ index, row: part + 1 }] : []));
  const lastRow = rows[rows.length - 1];
  // Names after the last index say what in the row; with none after it, the row is an item of the list named before it.
  const after = parts.slice((lastRow?.index ?? -1) + 1).filter((part): part is string => typeof part === 'string');
  const before = parts[(lastRow?.index ?? 0) - 1];
  const names = after.length > 0 ? after : typeof before === 'string' ? [singular(humanise(before))] : [];
  const what = names.length === 0 ? 'this value' : `the ${names.map(humanise).reverse().join(' of the ')}`;
  return lastRow ? `Row ${lastRow.row}: ${what}` : what;
}

/** What a value must be, from zod's wording or the API's reason ("must be at most 10,000"); undefined when it has no known shape. */
function requirement(reason: string): string | undefined {
  let match: RegExpExecArray | null;
  if ((match = /^Too (big|small): expected \w+ to be (<=|<|>=|>)(\S+)$/.exec(reason))) {
    const bound = number(match[3]!);
    const words = { '<=': 'at most', '<': 'less than', '>=': 'at least', '>': 'more than' } as const;
    return `must be ${words[match[2] as keyof typeof words]} ${bound}`;
  }
  if ((match = /^Too (big|small): expected (\w+) to have (<=|<|>=|>)(\d+) (\w+)$/.exec(reason))) {
    const [, , origin, operator, count, unit] = match;
    if (match[1] === 'small' && operator === '>=' && count === '1') return origin === 'string' ? 'must not be empty' : 'must have at least one item';
    const words = { '<=': 'at most', '<': 'fewer than', '>=': 'at least', '>': 'more than' } as const;
    const one = count === '1' ? singular(unit!) : unit!;
    return `must have ${words[operator as keyof typeof words]} ${number(count!)} ${one}`;
  }
  if ((match = /^Invalid input: expected (\w+), received (\w+)$/.exec(reason))) {
    if (match[2] === 'undefined' || match[2] === 'null') return 'is required';
    return `must be ${TYPE_WORDS[match[1]!] ?? match[1]}`;
  }
  if ((match = /^Invalid input: expected (.+)$/.exec(reason))) return `must be ${match[1]}`;
  if ((match = /^Invalid option: expected one of (.+)$/.exec(reason))) return `must be one of ${oneOf(match[1]!.split('|'))}`;
  if (/^Invalid string: must match pattern /.test(reason)) return 'is not in the expected format';
  if ((match = /^Invalid string: (must .+)$/.exec(reason))) return match[1];
  if ((match = /^Invalid number: must be a multiple of (\S+)$/.exec(reason))) return `must be a multiple of ${number(match[1]!)}`;
  if ((match = /^Invalid discriminator value\. Expected (.+)$/.exec(reason))) return `must be ${oneOf(match[1]!.split('|'))}`;
  if (/^Unrecognized keys?: /.test(reason)) return 'is not a known field';
  if (reason === 'Invalid input') return 'is not valid';
  if ((match = /^Invalid (.+)$/.exec(reason))) {
    const format = FORMAT_WORDS[match[1]!];
    return format?.startsWith('in ') ? `is not ${format}` : `must be ${format ?? `a valid ${match[1]}`}`;
  }
  // The gateway's own wording of a union: "expected {"fixed": …} or {"bps": <0-10000>}".
  if ((match = /^expected (.+)$/.exec(reason))) return `must be ${match[1]}`;
  if (/^(is|must|has|cannot|can|should|needs) /.test(reason)) return reason;
  return undefined;
}

/** A sentence: capitalised, with its full stop. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** A field's problem shown next to its input, which its label already names: "Must be at most 10,000." */
export function fieldMessage(reason: string): string {
  return sentence(requirement(reason) ?? reason);
}

/** A field's problem where no input names it: "Row 4: the identifier must not be empty." */
export function violationSentence({ field, reason }: FieldViolation): string {
  const what = fieldPhrase(field);
  const must = requirement(reason);
  return sentence(must ? `${what} ${must}` : `${what}: ${reason}`);
}

/** Whether the error is a request whose fields are wrong, each named in its details. */
export function isFieldsError(error: unknown): error is ApiError {
  return error instanceof ApiError && error.details.length > 0 && VALIDATION_CODES.has(error.code);
}

/** Codes whose message needs the figures of its details to read well. */
const CODE_SENTENCES: Record<string, (error: ApiError) => string | undefined> = {
  // "1 of these users is not affiliates": the count decides the grammar. (That nothing was bound, the screen's title says.)
  AFFILIATE_NOT_FOUND: (error) => {
    const refused = error.details.filter((detail) => detail.field.startsWith('user_identifiers')).length;
    if (refused === 0) return undefined;
    return refused === 1 ? '1 of these users is not an affiliate of this project.' : `${refused} of these users are not affiliates of this project.`;
  },
};

/** Which fields a form shows at their inputs (each input says its own problem, error-messages' fieldMessage). */
export type ShownAt = (field: string) => boolean;
const nowhere: ShownAt = () => false;

const distinctFields = (violations: readonly FieldViolation[]) => new Set(violations.map((violation) => violation.field)).size;

/**
 * An error as the sentence a banner shows. A request with wrong fields says which: in one sentence
 * for one field, as how many over their list, or, for the fields its inputs show (`shownAt`), only
 * a pointer to them, so nothing is said twice.
 */
export function errorSentence(error: unknown, { shownAt = nowhere }: { shownAt?: ShownAt } = {}): string {
  if (isFieldsError(error)) {
    const atInputs = distinctFields(error.details.filter((detail) => shownAt(detail.field)));
    if (atInputs > 0) return atInputs === 1 ? 'Correct the field marked below.' : `Correct the ${atInputs} fields marked below.`;
    const count = distinctFields(error.details);
    return count === 1 ? violationSentence(error.details[0]!) : `${count} fields need correcting:`;
  }
  if (error instanceof ApiError) return CODE_SENTENCES[error.code]?.(error) ?? sentence(error.message);
  if (error instanceof Error) return sentence(error.message);
  return 'Something went wrong.';
}

/** The violations a banner lists under its sentence: those no input shows, unless its sentence already said the only one. */
export function listedViolations(error: unknown, { shownAt = nowhere }: { shownAt?: ShownAt } = {}): FieldViolation[] {
  if (!(error instanceof ApiError)) return [];
  const elsewhere = error.details.filter((detail) => !shownAt(detail.field));
  const saidInSentence = isFieldsError(error) && elsewhere.length === error.details.length && distinctFields(elsewhere) === 1;
  return saidInSentence ? [] : elsewhere;
}
