/** Byte sizes as people write them ("12GB", "1.5 GiB", "1000000") and as reports print them. */

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** Decimal units are powers of 1000, binary ones (KiB, MiB, GiB) powers of 1024. Throws RangeError. */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new RangeError(`'${text}' is not a byte size (examples: 1000000000, 12GB, 1.5GiB)`);
  const bytes = Math.round(Number(match[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new RangeError(`'${text}' is not a positive byte size`);
  return bytes;
}

export function formatBytes(bytes: number): string {
  const scaled = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'kB'],
  ] as const;
  for (const [unit, name] of scaled) {
    if (Math.abs(bytes) >= unit) return `${(bytes / unit).toFixed(2)} ${name}`;
  }
  return `${bytes} B`;
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
