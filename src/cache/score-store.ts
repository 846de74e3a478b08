/**
 * One model's score-cache database (SQLite, through node-sqlite3-wasm: see README "Design"). Scores are
 * grouped by namespace, the scorer that produced them (score-cache.ts builds its identity), and stored a
 * forward-pass batch per row: one BLOB of records (score-records.ts) with its MAC. A row per batch
 * rather than per request because this SQLite runs as WebAssembly, where each statement costs tens of
 * microseconds: 134,000 BLiMP requests took 3–5 s as rows and take milliseconds as ~200 blobs.
 *
 * The journal is a write-ahead log in exclusive locking mode (no shared memory, which this VFS lacks) with
 * synchronous=NORMAL: a commit is an append to the log, so a process killed at any point loses at most the
 * batch it was writing, and the next open rolls the log forward. Callers hold the score-cache lock
 * (cache-lock.ts) for the whole time a store is open.
 *
 * A file that is not a database of ours, or that SQLite finds damaged, is moved aside with a warning naming
 * it, and a fresh one takes its place.
 */
import { timingSafeEqual } from 'node:crypto';
import { lstatSync, readdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Sqlite from 'node-sqlite3-wasm';
import { CACHE_NAMES, removeCacheName } from './cache-folders.js';
import { decodeRecords, encodeRecords, type ScoredRecord } from './score-records.js';

type Database = InstanceType<typeof Sqlite.Database>;

const require = createRequire(import.meta.url);
let sqliteModule: typeof Sqlite | undefined;

/** SQLite compiles its WebAssembly when loaded, so it loads when a cache is first opened, not with the CLI. */
function sqlite(): typeof Sqlite {
  return (sqliteModule ??= require('node-sqlite3-wasm') as typeof Sqlite);
}

/** 'MLRB' in PRAGMA application_id: a SQLite file that is not ours is never mistaken for a cache. */
const APPLICATION_ID = 0x4d4c5242;
/**
 * Bump with any change to the tables or the record layout; files of other versions are replaced quietly.
 * 2: batches carry a MAC under the user's cache key instead of a plain sha256.
 */
const SCHEMA_VERSION = 2;

const SCHEMA = `
  CREATE TABLE namespaces (
    id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL UNIQUE,
    last_used_ms INTEGER NOT NULL
  );
  CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    namespace INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
    request_count INTEGER NOT NULL,
    records BLOB NOT NULL,
    mac BLOB NOT NULL
  );
  CREATE INDEX batches_by_namespace ON batches(namespace);
  PRAGMA application_id = ${APPLICATION_ID};
  PRAGMA user_version = ${SCHEMA_VERSION};
`;

/** Files SQLite keeps beside the database (its write-ahead log, a rollback journal) and the VFS's lock folder. */
export const SIDE_FILE_SUFFIXES = ['-wal', '-journal'] as const;
const VFS_LOCK_SUFFIX = '.lock';

export interface LoadedRecords {
  readonly records: ScoredRecord[];
  /** Batches whose MAC or layout failed: removed, their requests are scored again. */
  readonly damagedBatches: number;
}

/** A batch's MAC over its records' bytes (score-records.ts batchMac, bound to the namespace and the key). */
export type RecordsMac = (records: Uint8Array) => Buffer;

export class ScoreStore {
  private constructor(
    readonly file: string,
    private readonly db: Database,
  ) {}

  /**
   * Opens (or creates) the database. Warnings name what was set aside; an error here means even a fresh
   * file could not be made (an unwritable folder), and the caller goes without the cache.
   */
  static open(file: string, onWarning: (message: string) => void): ScoreStore {
    // The caller holds the cache lock, so a lock folder of the VFS can only be a killed process's leftover.
    removeVfsLock(file);
    const notOurs = refuseNonRegular(file);
    if (notOurs) setAside(file, notOurs, onWarning);
    try {
      return new ScoreStore(file, openChecked(file));
    } catch (cause) {
      setAside(file, describe(cause), onWarning);
      return new ScoreStore(file, openChecked(file));
    }
  }

  /** The namespace's id, created on first use; marks it used now (eviction drops the least recently used). */
  namespace(identity: string): number {
    this.db.run('INSERT INTO namespaces (identity, last_used_ms) VALUES (?, ?) ON CONFLICT(identity) DO UPDATE SET last_used_ms = excluded.last_used_ms', [
      identity,
      Date.now(),
    ]);
    const row = this.db.get('SELECT id FROM namespaces WHERE identity = ?', identity);
    return Number(row?.id);
  }

  load(namespaceId: number, macOf: RecordsMac): LoadedRecords {
    const records: ScoredRecord[] = [];
    const damaged: number[] = [];
    const statement = this.db.prepare('SELECT id, request_count, records, mac FROM batches WHERE namespace = ? ORDER BY id');
    try {
      for (const row of statement.iterate(namespaceId)) {
        const blob = row.records;
        const mac = row.mac;
        const decoded = blob instanceof Uint8Array && mac instanceof Uint8Array && macMatches(mac, macOf(blob)) ? decodeRecords(blob) : undefined;
        if (decoded === undefined || decoded.length !== Number(row.request_count)) damaged.push(Number(row.id));
        else records.push(...decoded);
      }
    } finally {
      statement.finalize();
    }
    if (damaged.length > 0) this.db.run(`DELETE FROM batches WHERE id IN (${damaged.map(() => '?').join(',')})`, damaged);
    return { records, damagedBatches: damaged.length };
  }

  /** One transaction: the batch is stored whole or, if the process dies first, not at all. */
  append(namespaceId: number, macOf: RecordsMac, records: readonly ScoredRecord[]): void {
    if (records.length === 0) return;
    const blob = encodeRecords(records);
    this.db.run('INSERT INTO batches (namespace, request_count, records, mac) VALUES (?, ?, ?, ?)', [namespaceId, records.length, blob, macOf(blob)]);
  }

  /** Requests stored, over all namespaces. */
  requestCount(): number {
    return Number(this.db.get('SELECT COALESCE(SUM(request_count), 0) AS n FROM batches')?.n ?? 0);
  }

  /** Drops every namespace but `keep` (this run's), least recently used first, until `fits()` says so. */
  evictNamespaces(keep: number, fits: () => boolean): number {
    const others = this.db.all('SELECT id FROM namespaces WHERE id != ? ORDER BY last_used_ms', keep).map((row) => Number(row.id));
    let dropped = 0;
    for (const id of others) {
      if (fits()) break;
      this.db.run('DELETE FROM batches WHERE namespace = ?', id);
      this.db.run('DELETE FROM namespaces WHERE id = ?', id);
      this.checkpoint();
      dropped += 1;
    }
    return dropped;
  }

  /** Moves the log into the database file and truncates it, so the file sizes on disk are current. */
  checkpoint(): void {
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.db.isOpen) {
      this.checkpoint();
      this.db.close();
    }
  }
}

function openChecked(file: string): Database {
  const db = new (sqlite().Database)(file);
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
    const applicationId = Number(db.get('PRAGMA application_id')?.application_id);
    const version = Number(db.get('PRAGMA user_version')?.user_version);
    const tables = Number(db.get("SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table'")?.n);
    if (tables === 0 && applicationId === 0) {
      db.exec(`BEGIN; ${SCHEMA} COMMIT;`);
    } else if (applicationId !== APPLICATION_ID) {
      throw new Error('it is not a score cache of mlrb-eval (another application_id)');
    } else if (version !== SCHEMA_VERSION) {
      // Ours, of another layout: nothing to warn about, the scores are simply recomputed.
      db.exec(`BEGIN; DROP TABLE IF EXISTS batches; DROP TABLE IF EXISTS namespaces; ${SCHEMA} COMMIT;`);
    }
    const check = db.get('PRAGMA quick_check')?.quick_check;
    if (check !== 'ok') throw new Error(`SQLite's quick_check reports: ${String(check)}`);
    // Folds a log a killed run left (or the new schema) into the file, so sizes on disk are current.
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A FIFO, device, folder or link where the database belongs would block or lead elsewhere: never opened. */
function refuseNonRegular(file: string): string | undefined {
  for (const candidate of [file, ...SIDE_FILE_SUFFIXES.map((suffix) => file + suffix)]) {
    let stats;
    try {
      stats = lstatSync(candidate);
    } catch {
      continue;
    }
    if (!stats.isFile()) return `${candidate} is not a regular file`;
  }
  return undefined;
}

/**
 * Keeps the latest damaged copy of a database (to look into), not every one ever set aside. Only the names the
 * cache makes are removed, one file at a time (cache-folders.ts).
 */
function setAside(file: string, reason: string, onWarning: (message: string) => void): void {
  const folder = path.dirname(file);
  const earlier = `${path.basename(file)}.damaged-`;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(earlier)) continue;
    removeCacheName(folder, name, CACHE_NAMES.scoreFile) || removeCacheName(folder, name, CACHE_NAMES.scoreVfsLock, true);
  }
  const aside = `${file}.damaged-${Date.now()}`;
  for (const suffix of ['', ...SIDE_FILE_SUFFIXES]) {
    try {
      renameSync(file + suffix, aside + suffix);
    } catch {
      removeCacheName(folder, path.basename(file + suffix), CACHE_NAMES.scoreFile);
    }
  }
  removeVfsLock(file);
  onWarning(`score cache ${file} is unusable (${reason}); moved it to ${aside} and starting a new one`);
}

function removeVfsLock(file: string): void {
  removeCacheName(path.dirname(file), path.basename(file + VFS_LOCK_SUFFIX), CACHE_NAMES.scoreVfsLock, true);
}

function macMatches(stored: Uint8Array, expected: Buffer): boolean {
  return stored.length === expected.length && timingSafeEqual(stored, expected);
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
