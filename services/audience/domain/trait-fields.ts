import { USER_TRAIT_RULES } from '../../rules/contract-limits';
import { type FieldViolation, invalidFields, MAX_LISTED_VIOLATIONS } from '../../rules/errors';
import { checkIdentifier, type UserIdentifier } from '../../rules/identifiers';
import { findUnsafeJson } from '../../platform/json-safety';

/**
 * A trait's value. A number stays the decimal text the client wrote in JSON: stored as a jsonb
 * number (NUMERIC inside, arbitrary precision) and compared by conditions exactly, so a token
 * balance of 10^24 base units is never rounded by a double on the way.
 */
export type TraitValue = { kind: 'number'; text: string } | { kind: 'string'; text: string } | { kind: 'boolean'; value: boolean };

/** A trait as a caller sends it: the value as the proto's oneof (exactly one of the three set). */
export interface TraitInput {
  identifier: string;
  identifierType: string;
  name: string;
  value: { number?: string | undefined; text?: string | undefined; flag?: boolean | undefined };
  updatedAt?: Date | undefined;
}

export interface CheckedTrait {
  user: UserIdentifier;
  name: string;
  value: TraitValue;
  /** Null: the write is dated when it arrives. */
  updatedAt: Date | null;
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** Why a JSON number's text is refused, or undefined. */
export function numberTextProblem(text: string): string | undefined {
  const { numberMaxLength, maxExponent } = USER_TRAIT_RULES;
  if (text.length > numberMaxLength) return `a number may be written with at most ${numberMaxLength} characters`;
  const parts = JSON_NUMBER.exec(text);
  if (!parts) return 'is not a JSON number';
  const [, integer = '', fraction = '', exponent = '0'] = parts;
  const digits = integer + fraction;
  const first = digits.search(/[1-9]/);
  // The power of ten of the leading digit (1e24 -> 24, 0.001 -> -3); zero's is its exponent (PostgreSQL refuses 0e9999999999 too).
  const magnitude = first < 0 ? Number(exponent) : integer.length - 1 - first + Number(exponent);
  if (Math.abs(magnitude) > maxExponent)
    return `a number must lie between 1e-${maxExponent} and 1e${maxExponent + 1} in magnitude (or be 0, written with an exponent within ±${maxExponent})`;
  return undefined;
}

export function traitNameProblem(name: string): string | undefined {
  return USER_TRAIT_RULES.namePattern.test(name)
    ? undefined
    : `must be 1 to ${USER_TRAIT_RULES.nameMaxLength} characters: a letter, then letters, digits, _, . or -`;
}

function checkValue(value: TraitInput['value'], field: string, violations: FieldViolation[]): TraitValue | undefined {
  const set = [value.number !== undefined, value.text !== undefined, value.flag !== undefined].filter(Boolean).length;
  if (set !== 1) {
    violations.push({ field, reason: 'must be a number, a string or a boolean' });
    return undefined;
  }
  if (value.flag !== undefined) return { kind: 'boolean', value: value.flag };
  if (value.number !== undefined) {
    const problem = numberTextProblem(value.number);
    if (problem) violations.push({ field, reason: problem });
    return problem ? undefined : { kind: 'number', text: value.number };
  }
  const text = value.text!;
  if (text.length > USER_TRAIT_RULES.textMaxLength) {
    violations.push({ field, reason: `a string may hold at most ${USER_TRAIT_RULES.textMaxLength} characters` });
    return undefined;
  }
  // What jsonb cannot hold (NUL, a lone surrogate): callers that skip the gateway meet the same rule.
  const unsafe = findUnsafeJson(text, { maxDepth: 1, root: field });
  if (unsafe) violations.push(unsafe);
  return unsafe ? undefined : { kind: 'string', text };
}

/**
 * The whole batch, checked before anything is written: every trait valid, or a 400 naming each bad
 * field (`traits[3].name`, at most MAX_LISTED_VIOLATIONS of them) and nothing stored.
 */
export function checkTraits(inputs: readonly TraitInput[], now: Date): CheckedTrait[] {
  if (inputs.length === 0) throw invalidFields([{ field: 'traits', reason: 'must hold at least one trait' }]);
  if (inputs.length > USER_TRAIT_RULES.maxPerBatch) {
    throw invalidFields([{ field: 'traits', reason: `at most ${USER_TRAIT_RULES.maxPerBatch} traits per request` }]);
  }
  const latest = now.getTime() + USER_TRAIT_RULES.maxClockAheadMs;
  const checked: CheckedTrait[] = [];
  const violations: FieldViolation[] = [];
  let invalid = 0;
  inputs.forEach((input, index) => {
    const path = `traits[${index}]`;
    const found: FieldViolation[] = [];
    const user = checkIdentifier(input.identifier, input.identifierType, path);
    found.push(...user.violations);
    const nameProblem = traitNameProblem(input.name);
    if (nameProblem) found.push({ field: `${path}.name`, reason: nameProblem });
    const value = checkValue(input.value, `${path}.value`, found);
    const updatedAt = input.updatedAt ?? null;
    if (updatedAt && Number.isNaN(updatedAt.getTime())) found.push({ field: `${path}.updated_at`, reason: 'is not a valid time' });
    else if (updatedAt && updatedAt.getTime() > latest) {
      found.push({
        field: `${path}.updated_at`,
        reason: `is in the future (at most ${USER_TRAIT_RULES.maxClockAheadMs / 60_000} minutes ahead of the service's clock)`,
      });
    }
    if (found.length > 0 || !user.user || !value) {
      invalid += 1;
      violations.push(...found.slice(0, Math.max(0, MAX_LISTED_VIOLATIONS - violations.length)));
      return;
    }
    checked.push({ user: user.user, name: input.name, value, updatedAt });
  });
  if (invalid > 0) {
    const first = violations[0]!;
    throw invalidFields(violations, invalid === 1 ? `${first.field}: ${first.reason}` : `${invalid} traits are invalid; nothing was written`);
  }
  return checked;
}

/** The value as JSON text, for a jsonb column: a number's own text keeps its every digit. */
export function traitValueJson(value: TraitValue): string {
  switch (value.kind) {
    case 'number':
      return value.text;
    case 'string':
      return JSON.stringify(value.text);
    case 'boolean':
      return value.value ? 'true' : 'false';
  }
}
