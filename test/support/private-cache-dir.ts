/**
 * vitest setupFiles: each test file gets its own cache folder ($MLRB_CACHE_DIR, inside the run's private
 * TMPDIR, removed with it). Files run in parallel and build the same fixture models; with one shared folder,
 * one file's evaluation would find another holding that model's score database and run without it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

process.env.MLRB_CACHE_DIR = mkdtempSync(path.join(tmpdir(), 'mlrb-cache-'));
// The cache key (src/cache/cache-key.ts) lives under $XDG_STATE_HOME: one per test file, never the user's.
process.env.XDG_STATE_HOME = mkdtempSync(path.join(tmpdir(), 'mlrb-state-'));
