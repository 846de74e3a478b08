import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/io/peak-rss.ts')).href;
const MIB = 1024 * 1024;

describe.runIf(process.platform === 'linux')('peakRssBytes', () => {
  it("reports the process's own peak, not the peak of the larger parent it was spawned from", () => {
    // getrusage's maxrss carries the parent's peak across fork + exec; hold 512 MiB so it would show.
    const ballast = Buffer.alloc(512 * MIB, 1);
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { peakRssBytes } from ${JSON.stringify(MODULE)}; console.log(JSON.stringify({ ours: peakRssBytes(), maxRss: process.resourceUsage().maxRSS * 1024 }))`,
      ],
      { encoding: 'utf8' },
    );
    expect(ballast.length).toBe(512 * MIB);
    expect(child.status, child.stderr).toBe(0);
    const { ours, maxRss } = JSON.parse(child.stdout) as { ours: number; maxRss: number };
    expect(maxRss).toBeGreaterThan(512 * MIB); // the inherited figure this module exists to avoid
    expect(ours).toBeGreaterThan(10 * MIB); // a node process with tsx loaded
    expect(ours).toBeLessThan(256 * MIB);
  });
});
