/**
 * The results file's text. lm-eval's metric values are Python floats, so an accuracy of exactly 0 or 1 is
 * written `0.0` / `1.0`, and readers (make_table formats only floats to 4 places) treat it as a number with
 * decimals. JSON.stringify writes `0`, which Python reads back as an int and make_table prints as "0"; so
 * every "metric,filter" value that is a whole number is written with `.0`.
 */
const FLOAT_MARKER = '@@mlrb-float@@';

export function stringifyResults(results: unknown): string {
  const text = JSON.stringify(
    results,
    (key, value: unknown) => (key.includes(',') && typeof value === 'number' && Number.isInteger(value) ? `${FLOAT_MARKER}${value}` : value),
    2,
  );
  return `${text.replace(new RegExp(`"${FLOAT_MARKER}(-?\\d+)"`, 'g'), '$1.0')}\n`;
}
