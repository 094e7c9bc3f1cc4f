import { z } from 'zod';
import { baseEnv, ConfigError, loadConfig } from '../../../services/platform/config';
import { chooseLogFormat } from '../../../services/platform/logger';
import { LogCapture } from '../../helpers/log-capture';

const SECRETS = ['sk_live_secret', '123-45-6789'];
/** A pretty line: `[12:00:00.000] INFO: fixture: line 1`. */
const PRETTY_LINE = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: fixture: line 1$/m;

describe('the log format', () => {
  it.each([
    [undefined, 'development', true, 'pretty'],
    [undefined, 'development', false, 'json'],
    [undefined, 'test', true, 'pretty'],
    [undefined, 'production', true, 'json'],
    [undefined, 'production', false, 'json'],
    ['json', 'development', true, 'json'],
    ['pretty', 'production', false, 'pretty'],
    ['pretty', 'development', false, 'pretty'],
  ] as const)('LOG_FORMAT=%s, NODE_ENV=%s, terminal: %s -> %s', (format, nodeEnv, isTTY, expected) => {
    expect(chooseLogFormat({ format, nodeEnv, isTTY })).toBe(expected);
  });

  it('is read from LOG_FORMAT (json or pretty; empty is unset); anything else stops start-up naming it', () => {
    const schema = z.object(baseEnv);
    expect(loadConfig(schema, { LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(loadConfig(schema, { LOG_FORMAT: '' }).LOG_FORMAT).toBeUndefined();
    expect(() => loadConfig(schema, { LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });

  it('writes JSON to a stream that is not a terminal unless told otherwise, secrets redacted', () => {
    const logs = new LogCapture();
    logs.logger('fixture').info({ n: 1, token: 'abc' }, 'line 1');
    expect(JSON.parse(logs.text())).toMatchObject({ level: 'info', service: 'fixture', n: 1, token: '[redacted]', msg: 'line 1' });
  });

  it('redacts secrets and tax ids before it formats a pretty line', () => {
    const logs = new LogCapture();
    logs.logger('fixture', 'pretty').info(
      {
        authorization: 'Bearer sk_live_secret',
        req: { headers: { authorization: 'Bearer sk_live_secret' } },
        form: { tax_id_number: '123-45-6789' },
        taxIdNumber: '123-45-6789',
      },
      'line 1',
    );
    const text = logs.text();
    expect(text).toMatch(PRETTY_LINE);
    expect(text).toContain('[redacted]');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(() => JSON.parse(text)).toThrow();
  });
});
