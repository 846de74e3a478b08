/**
 * A docs page shows a file verbatim as a `<!-- verbatim: PATH -->` line followed by a fenced code block holding
 * PATH's text (docs/scale-out.md shows examples/ so). Run as a script, it refreshes those blocks from the files;
 * test/docs/scale-out.test.ts fails while a block and its file differ.
 *
 *   npx tsx scripts/docs/verbatim-blocks.ts docs/scale-out.md
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERBATIM_BLOCK = /^<!-- verbatim: (\S+) -->\n(```\w*\n)([\s\S]*?)^```$/gm;
const VERBATIM_MARKER = /^<!-- verbatim: (\S+) -->$/;

/** The file a `<!-- verbatim: PATH -->` line names (its block shows that file), or undefined for any other line. */
export function verbatimMarkerFile(line: string): string | undefined {
  return VERBATIM_MARKER.exec(line)?.[1];
}

export interface VerbatimBlock {
  /** Relative to the repository root. */
  readonly file: string;
  readonly body: string;
}

export function verbatimBlocks(markdown: string): VerbatimBlock[] {
  return [...markdown.matchAll(VERBATIM_BLOCK)].map(([, file, , body]) => ({ file: file as string, body: body as string }));
}

/** The page with every block's body replaced by its file's text. */
export function refreshVerbatimBlocks(markdown: string, readFile: (file: string) => string): string {
  return markdown.replace(VERBATIM_BLOCK, (_block, file: string, fence: string) => `<!-- verbatim: ${file} -->\n${fence}${readFile(file)}\`\`\``);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  for (const page of process.argv.slice(2)) {
    const text = readFileSync(page, 'utf8');
    writeFileSync(
      page,
      refreshVerbatimBlocks(text, (file) => readFileSync(path.join(root, file), 'utf8')),
    );
    console.log(`${verbatimBlocks(text).length} verbatim blocks refreshed in ${page}`);
  }
}
