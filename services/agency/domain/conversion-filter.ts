import { AFFILIATE_LIST_CONVERSION_FILTER } from '../../rules/contract-limits';
import { type FieldViolation, invalidFields } from '../../rules/errors';
import { checkText } from '../../rules/text-fields';

/**
 * The affiliate list's `conversions` filter: conversion names (as the claim service stores them:
 * trimmed, 1 to 100 characters), at most AFFILIATE_LIST_CONVERSION_FILTER.maxNames of them.
 */
export function checkConversionFilter(names: readonly string[] | undefined): { conversionNames?: string[] } {
  if (names === undefined || names.length === 0) return {};
  const violations: FieldViolation[] = [];
  const { maxNames, nameLength } = AFFILIATE_LIST_CONVERSION_FILTER;
  const checked = names.map((name, index) => checkText(name, `conversions[${index}]`, nameLength));
  const distinct = [...new Set(checked.map((name) => name.value))];
  if (distinct.length > maxNames) violations.push({ field: 'conversions', reason: `at most ${maxNames} conversion names` });
  violations.push(...checked.flatMap((name) => name.violations));
  if (violations.length > 0) throw invalidFields(violations);
  return { conversionNames: distinct };
}
