/**
 * The entry names of a folder, or none when it cannot be listed (missing, not a folder, unreadable). For the
 * callers that only look for something optional in a folder — stale temporaries, score databases, Git LFS
 * pointers — and for which a folder that cannot be read simply holds nothing of that kind.
 */
import { readdirSync } from 'node:fs';

export function folderNamesOrNone(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
