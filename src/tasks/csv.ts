/**
 * A strict RFC 4180 CSV parser. Data files are small (MMLU is ~6 MB in all), so one pass over the string is
 * plenty; what matters is that embedded quotes, commas and newlines come out exactly as Python's csv module
 * (which built lm-eval's datasets) reads them, and that every error names the line where it happened.
 *
 * Record separators may be CRLF, LF or a lone CR; inside quoted fields line breaks are kept verbatim.
 * Unlike Python's lenient reader, a stray quote in an unquoted field or text after a closing quote is a
 * syntax error: in a data file it always means the row is broken.
 */
export interface CsvRecord {
  readonly fields: readonly string[];
  /** 1-based line on which the record starts (quoted line breaks count as lines). */
  readonly line: number;
}

export class CsvSyntaxError extends SyntaxError {
  /** 1-based line of the offending character. */
  readonly line: number;

  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
    this.line = line;
  }
}

const QUOTE = '"';

/** Parses all records; a trailing line break does not start an empty record. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let recordLine = 1;
  let line = 1;
  let position = 0;
  const length = text.length;

  const endRecord = (): void => {
    records.push({ fields, line: recordLine });
    fields = [];
  };
  /** Consumes a line break at `position` if there is one; returns whether it did. */
  const takeLineBreak = (): boolean => {
    const char = text[position];
    if (char === '\n') {
      position += 1;
    } else if (char === '\r') {
      position += text[position + 1] === '\n' ? 2 : 1;
    } else {
      return false;
    }
    line += 1;
    return true;
  };

  while (position < length) {
    // At the start of a field.
    if (text[position] === QUOTE) {
      const startLine = line;
      position += 1;
      let value = '';
      for (;;) {
        const next = text.indexOf(QUOTE, position);
        if (next === -1) {
          throw new CsvSyntaxError(`quoted field opened on line ${startLine} is never closed`, startLine);
        }
        const chunk = text.slice(position, next);
        line += countLineBreaks(chunk);
        value += chunk;
        if (text[next + 1] === QUOTE) {
          value += QUOTE;
          position = next + 2;
          continue;
        }
        position = next + 1;
        break;
      }
      fields.push(value);
      const after = text[position];
      if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
        throw new CsvSyntaxError('text after a closing quote (quotes inside a field must be doubled)', line);
      }
    } else {
      let end = position;
      while (end < length) {
        const char = text[end];
        if (char === ',' || char === '\n' || char === '\r') break;
        if (char === QUOTE) {
          throw new CsvSyntaxError('a quote inside an unquoted field (the field must be quoted and the quote doubled)', line);
        }
        end += 1;
      }
      fields.push(text.slice(position, end));
      position = end;
    }
    // After a field: a comma starts the next field, a line break or the end of text closes the record.
    if (text[position] === ',') {
      position += 1;
      // A comma as the text's last character still ends with an (empty) field.
      if (position === length) fields.push('');
      continue;
    }
    takeLineBreak();
    endRecord();
    recordLine = line;
  }
  if (fields.length > 0) endRecord();
  return records;
}

function countLineBreaks(chunk: string): number {
  let count = 0;
  for (let index = 0; index < chunk.length; index += 1) {
    const char = chunk[index];
    if (char === '\n') count += 1;
    else if (char === '\r' && chunk[index + 1] !== '\n') count += 1;
  }
  return count;
}
