/**
 * Writes the MLRB definitions and model-metrics tables (src/mlrb/definitions-table.ts) into docs/mlrb.md,
 * between their markers; test/mlrb/definitions-table.test.ts fails while the page and the data differ.
 *
 *   npx tsx scripts/docs/render-mlrb-tables.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFINITIONS_BEGIN, DEFINITIONS_END, renderMlrbTables } from '../../src/mlrb/definitions-table.js';

const page = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'mlrb.md');
const text = readFileSync(page, 'utf8');
const begin = text.indexOf(DEFINITIONS_BEGIN);
const end = text.indexOf(DEFINITIONS_END);
if (begin < 0 || end < begin) throw new Error(`${page} has no ${DEFINITIONS_BEGIN} … ${DEFINITIONS_END} block to fill`);
writeFileSync(page, `${text.slice(0, begin)}${renderMlrbTables()}${text.slice(end + DEFINITIONS_END.length)}`);
console.log(`tables written to ${page}`);
