import { ApiError } from '../../../web/src/api/client';
import { refusalByLine } from '../../../web/src/admin/audiences/csv';
import { errorSentence, fieldMessage, fieldPhrase, listedViolations, violationSentence } from '../../../web/src/ui/error-messages';

const refusal = (details: Array<{ field: string; reason: string }>, code = 'VALIDATION_FAILED') =>
  new ApiError(400, code, details[0] ? `${details[0].field}: ${details[0].reason}` : 'the request is invalid', details);

describe('the API’s refusals in sentences', () => {
  it('words field paths: rows from indexes (counted from 1), nested names from the inside out', () => {
    expect(fieldPhrase('decimals')).toBe('the decimals');
    expect(fieldPhrase('entries[3].identifier')).toBe('Row 4: the identifier');
    expect(fieldPhrase('user_identifiers[2]')).toBe('Row 3: the user identifier');
    expect(fieldPhrase('permanent_address.postal_code')).toBe('the postal code of the permanent address');
    expect(fieldPhrase('(body)')).toBe('the request');
  });

  it('words zod’s reasons as what to type, numbers grouped', () => {
    expect(fieldMessage('Too big: expected number to be <=10000')).toBe('Must be at most 10,000.');
    expect(fieldMessage('Too small: expected number to be >0')).toBe('Must be more than 0.');
    expect(fieldMessage('Too big: expected string to have <=200 characters')).toBe('Must have at most 200 characters.');
    expect(fieldMessage('Too small: expected string to have >=1 characters')).toBe('Must not be empty.');
    expect(fieldMessage('Too big: expected array to have <=10000 items')).toBe('Must have at most 10,000 items.');
    expect(fieldMessage('Invalid input: expected string, received undefined')).toBe('Is required.');
    expect(fieldMessage('Invalid input: expected number, received string')).toBe('Must be a number.');
    expect(fieldMessage('Invalid input: expected int, received number')).toBe('Must be a whole number.');
    expect(fieldMessage('Invalid option: expected one of "w9"|"w8ben"|"w8bene"')).toBe('Must be one of "w9", "w8ben" or "w8bene".');
    expect(fieldMessage('Invalid string: must match pattern /^0x[0-9a-fA-F]{40}$/')).toBe('Is not in the expected format.');
    expect(fieldMessage('Invalid ISO date')).toBe('Must be a date as YYYY-MM-DD.');
    expect(fieldMessage('expected {"fixed": "<base units as a decimal string>"} or {"bps": <0-10000>}')).toBe(
      'Must be {"fixed": "<base units as a decimal string>"} or {"bps": <0-10000>}.',
    );
    // The API's own words stay, as a sentence.
    expect(fieldMessage('has no query or fragment')).toBe('Has no query or fragment.');
  });

  it('says a field no input shows with its name', () => {
    expect(violationSentence({ field: 'entries[3].identifier', reason: 'Too small: expected string to have >=1 characters' })).toBe(
      'Row 4: the identifier must not be empty.',
    );
    expect(violationSentence({ field: 'limit', reason: 'Too big: expected number to be <=10000' })).toBe('The limit must be at most 10,000.');
  });

  it('says a refused form once: the one field in a sentence, several as a count over their list, or only a pointer when the inputs show them', () => {
    const one = refusal([{ field: 'entries[3].identifier', reason: 'Too big: expected string to have <=64 characters' }]);
    expect(errorSentence(one)).toBe('Row 4: the identifier must have at most 64 characters.');
    expect(listedViolations(one)).toEqual([]);
    const two = refusal([
      { field: 'name', reason: 'Too big: expected string to have <=200 characters' },
      { field: 'decimals', reason: 'Too big: expected number to be <=77' },
    ]);
    expect(errorSentence(two)).toBe('2 fields need correcting:');
    expect(listedViolations(two).map(violationSentence)).toEqual(['The name must have at most 200 characters.', 'The decimals must be at most 77.']);
    expect(errorSentence(two, { shownAt: () => true })).toBe('Correct the 2 fields marked below.');
    expect(listedViolations(two, { shownAt: () => true })).toEqual([]);
    expect(errorSentence(one, { shownAt: () => true })).toBe('Correct the field marked below.');
    // A field no input shows is listed under the pointer, the others are not.
    const onlyName = (field: string) => field === 'name';
    expect(errorSentence(two, { shownAt: onlyName })).toBe('Correct the field marked below.');
    expect(listedViolations(two, { shownAt: onlyName }).map(violationSentence)).toEqual(['The decimals must be at most 77.']);
  });

  it('words codes whose message reads badly, and makes any other message a sentence', () => {
    const notAffiliate = new ApiError(404, 'AFFILIATE_NOT_FOUND', '1 of these users is not affiliates of this project; nothing was bound', [
      { field: 'user_identifiers[1]', reason: 'is not an affiliate of this project' },
    ]);
    expect(errorSentence(notAffiliate)).toBe('1 of these users is not an affiliate of this project.');
    expect(listedViolations(notAffiliate).map(violationSentence)).toEqual(['Row 2: the user identifier is not an affiliate of this project.']);
    const two = new ApiError(404, 'AFFILIATE_NOT_FOUND', '2 of these users are not affiliates of this project; nothing was bound', [
      { field: 'user_identifiers[0]', reason: 'is not an affiliate of this project' },
      { field: 'user_identifiers[2]', reason: 'is not an affiliate of this project' },
    ]);
    expect(errorSentence(two)).toBe('2 of these users are not affiliates of this project.');
    expect(errorSentence(new ApiError(409, 'CURRENCY_EXISTS', 'this project already has a currency at 0xabc on chain 8453'))).toBe(
      'This project already has a currency at 0xabc on chain 8453.',
    );
    expect(errorSentence(new Error('The server could not be reached. Check your connection and try again.'))).toBe(
      'The server could not be reached. Check your connection and try again.',
    );
    expect(errorSentence('nonsense')).toBe('Something went wrong.');
  });

  it('names a CSV batch’s refused entry by the file’s line, not its place in the batch', () => {
    const batch = [501, 502, 503, 504].map((line) => ({ identifier: `0x${line}`, identifier_type: 'evm_address', line }));
    const refused = refusal([{ field: 'entries[3].identifier', reason: 'Too small: expected string to have >=1 characters' }]);
    expect(errorSentence(refusalByLine(refused, batch))).toBe('Row 504: the identifier must not be empty.');
  });
});
