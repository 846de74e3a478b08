/**
 * The node arguments that run one of this package's own modules as a child process: the compiled JS beside the
 * calling module when there is one (an installed package), else its TypeScript source through tsx (a checkout
 * running from sources, as the tests do).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** `callerUrl` is the caller's import.meta.url; `baseName` the module's file name without extension, beside it. */
export function nodeScriptArguments(callerUrl: string, baseName: string): string[] {
  const here = path.dirname(fileURLToPath(callerUrl));
  const compiled = path.join(here, `${baseName}.js`);
  if (existsSync(compiled)) return [compiled];
  const tsxLoader = createRequire(callerUrl).resolve('tsx');
  return ['--import', pathToFileURL(tsxLoader).href, path.join(here, `${baseName}.ts`)];
}
