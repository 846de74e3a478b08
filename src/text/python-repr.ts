/**
 * Python's str() of the values lm-eval writes as text: floats as repr() spells them (shortest round-trip digits,
 * `.0` on whole numbers, an exponent below 1e-4 and from 1e16 up, written `e-05` / `e+16`), booleans as
 * `True` / `False`. Both languages find the same shortest digits; only the spelling differs.
 */

/** repr(float): `-42.79022216796875`, `1.0`, `1e-05`, `1.5e+16`, `inf`, `nan`, `-0.0`. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that round-trip, as repr does.
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  // repr switches to an exponent when the decimal point would sit 4 or more places before the first digit
  // (decpt <= -4, decpt = exponent + 1) or more than 16 places after it.
  if (exponent < -4 || exponent >= 16) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // In this range JavaScript writes the same digits without an exponent.
  const fixed = String(value);
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

/** str() of a JSON-like value as lm-eval's sanitize_list leaves it: lists kept, every leaf a string. */
export type PythonStrTree = string | readonly PythonStrTree[];

/** lm-eval's utils.sanitize_list: every leaf of nested lists through str(). */
export function sanitizeList(value: unknown): PythonStrTree {
  if (Array.isArray(value)) return value.map(sanitizeList);
  return pythonStr(value);
}

/** str() of a leaf: numbers are taken as floats (log-likelihoods), booleans and None spelled as Python spells them. */
function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return pythonFloatRepr(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null || value === undefined) return 'None';
  throw new TypeError(`sanitizeList: no Python spelling for a ${typeof value}`);
}
