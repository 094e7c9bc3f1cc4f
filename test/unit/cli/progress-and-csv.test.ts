import { csvLine } from '../../../services/rules/csv-line';
import { csvRecords } from '../../../cli/files/csv';
import { progressOn } from '../../../cli/progress';

/** A stream that keeps what is written, as a terminal (isTTY, 60 columns) or as a pipe. */
function captured(isTTY: boolean) {
  let text = '';
  const stream = { isTTY, columns: 60, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}

async function records(text: string) {
  async function* lines() {
    let number = 0;
    for (const line of text.split('\n')) yield { number: ++number, text: line };
  }
  const out = [];
  for await (const record of csvRecords(lines())) out.push(record);
  return out;
}

describe('the CLI progress report', () => {
  it('on a terminal, redraws one bar in place, cut to one less than the width (59 of 60), and keeps messages on lines of their own', () => {
    const terminal = captured(true);
    const progress = progressOn(terminal.stream, 2_000, 'rows');
    progress.update(500, 'added 500, skipped 0');
    progress.message('retry 1 of 4');
    progress.update(2_000, 'added 1,990, skipped 10 and a note long enough to pass the width');
    progress.finish();
    expect(terminal.text()).toBe(
      '\r[########----------------------]  25% 500/2,000 rows  added\x1b[K' +
        '\r\x1b[Kretry 1 of 4\n' +
        '\r[##############################] 100% 2,000/2,000 rows  add\x1b[K' +
        '\n',
    );
  });

  it('elsewhere (a pipe, a log), writes a plain line a step', () => {
    const pipe = captured(false);
    const progress = progressOn(pipe.stream, 2_000, 'rows');
    progress.update(500, 'added 500');
    progress.message('retry 1 of 4');
    progress.finish();
    expect(pipe.text()).toBe('progress: 500/2,000 rows  added 500\nretry 1 of 4\n');
  });
});

describe('the CLI CSV', () => {
  it('quotes a field only when it must, and reads back what it wrote', async () => {
    const fields = ['plain', 'a, comma', 'say "hi"', 'two\nlines', ' edge ', '', null, 12, true];
    const line = csvLine(fields);
    expect(line).toBe('plain,"a, comma","say ""hi""","two\nlines"," edge ",,,12,true\r\n');
    expect(await records(line.replace(/\r\n$/, ''))).toEqual([
      { line: 1, fields: ['plain', 'a, comma', 'say "hi"', 'two\nlines', ' edge ', '', '', '12', 'true'] },
    ]);
  });

  it('numbers records by their first line, skips blank lines, and names each malformed line', async () => {
    expect(await records('a,b\n\n"x\ny",z\nq"r,s\n"t"u,v\n"open,w')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['x\ny', 'z'] },
      { line: 5, problem: 'a quote inside an unquoted field (column 2)' },
      { line: 6, problem: 'a character after a closing quote (column 4)' },
      { line: 7, problem: 'a quoted field is never closed' },
    ]);
  });
});
