/**
 * What model output may not hand to the Lean compiler. Lean runs code while it elaborates a file, not only when a
 * program is run: `#eval` and `run_cmd` execute at once, `meta` (Lean 3) and `unsafe` / `elab` / `macro` (Lean 4)
 * define code that later commands run, and the `io` / `IO` / `System` namespaces reach files, processes and the
 * network from there. A generated proof needs none of them, so an output that names one is refused before any
 * compiler starts, and counts as a file that does not compile.
 *
 * The text is scanned as written, comments and string literals included: stripping them first would need Lean's
 * own lexer to agree with ours on where each ends (a character literal holding a quote, nested comments), and any
 * disagreement would let code through. A comment that only mentions `#eval` costs that output its compile; real
 * proofs do not. The list is of what is known to run code; it is not a proof that nothing else can (a tactic block
 * is itself code, and can assemble a call from strings), which is why compiles also run in a box (lean-box.ts).
 */

/** `#`-commands that only read the environment; every other `#` command (`#eval`, `#exit` …) is refused. */
const READ_ONLY_HASH_COMMANDS: ReadonlySet<string> = new Set(['check', 'print', 'reduce']);

/** Keywords and names that run code at elaboration time, define such code, or reach outside Lean. */
const REFUSED_WORDS: readonly { readonly words: readonly string[]; readonly why: string }[] = [
  { words: ['run_cmd', 'run_tac', 'run_elab', 'run_meta'], why: 'runs code while Lean elaborates the file' },
  { words: ['meta', 'unsafe', 'initialize', 'builtin_initialize'], why: 'defines code outside the checked logic' },
  {
    words: ['elab', 'elab_rules', 'macro', 'macro_rules', 'syntax', 'declare_syntax_cat', 'user_command', 'user_attribute'],
    why: 'extends the elaborator with code of its own',
  },
  {
    words: ['eval_expr', 'evalExpr', 'add_decl', 'addDecl', 'addAndCompile', 'compileDecl', 'native_decide'],
    why: 'evaluates or compiles code while elaborating',
  },
  { words: ['extern', 'implemented_by'], why: 'binds a declaration to code outside Lean' },
  {
    words: ['io', 'IO', 'EIO', 'BaseIO', 'System', 'unsafe_run_io', 'run_io', 'unsafePerformIO', 'unsafeIO', 'unsafeBaseIO'],
    why: 'reaches files, processes or the network',
  },
];

// A Lean identifier character (letters of any script, digits, `_`, `'`, `!`, `?`): a word is only refused whole.
const WORD_CHARACTER = String.raw`[\p{L}\p{N}_'!?]`;
const REFUSED_PATTERN = new RegExp(String.raw`(?<!${WORD_CHARACTER})(${REFUSED_WORDS.flatMap((entry) => entry.words).join('|')})(?!${WORD_CHARACTER})`, 'u');
// Commands are ASCII words; `#α` (mathlib's cardinal notation) is not one.
const HASH_COMMAND = /#([A-Za-z_][A-Za-z0-9_'!?]*)/gu;

/** Why `source` is refused before compiling, or null when it names nothing that runs code or reaches outside. */
export function leanSourceRefusal(source: string): string | null {
  for (const match of source.matchAll(HASH_COMMAND)) {
    const name = match[1] ?? '';
    if (!READ_ONLY_HASH_COMMANDS.has(name))
      return `refused before compiling: the output uses the command #${name} (only ${[...READ_ONLY_HASH_COMMANDS].map((command) => `#${command}`).join(', ')} may appear)`;
  }
  const word = REFUSED_PATTERN.exec(source)?.[1];
  if (word === undefined) return null;
  const why = REFUSED_WORDS.find((entry) => entry.words.includes(word))?.why ?? '';
  return `refused before compiling: the output uses \`${word}\`, which ${why}`;
}
