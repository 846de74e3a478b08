/**
 * The report in a process of its own (bench/report-scale.ts), so its peak RSS is the report's alone:
 *   report-child.ts OUT_DIR RECORD_DIR  →  prints {"peakRssBytes": …} as its last line.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { writeReport } from '../../src/report/write-report.js';

const [outDir, recordDir] = process.argv.slice(2) as [string, string];
const recordFiles = readdirSync(recordDir).map((name) => path.join(recordDir, name));
const written = await writeReport({ recordFiles, outDir, generatedAt: new Date(Date.UTC(2026, 10, 28)) });
for (const { chart, warning } of written.chartWarnings) console.log(`chart ${chart}: ${warning}`);
console.log(JSON.stringify({ peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
