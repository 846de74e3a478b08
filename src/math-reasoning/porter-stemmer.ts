/**
 * The Porter stemmer as NLTK's `PorterStemmer()` runs it by default (mode NLTK_EXTENSIONS): the five steps of
 * M. F. Porter, "An algorithm for suffix stripping" (Program 14(3), 1980), with the changes Porter later made
 * to his own implementations and those NLTK documents on top of them. rouge_score's `use_stemmer=True` (what
 * MLRB's `evaluate` rouge asks for) stems every token longer than 3 characters with it.
 *
 * Checked word by word against nltk 3.10's own output (test/math-reasoning/porter-stemmer.test.ts).
 *
 * Porter's vocabulary, used in the names below: a vowel is a, e, i, o, u, or a y that follows a consonant;
 * every other letter (digits too) is a consonant. Any word is [C](VC)^m[V], C and V being runs of consonants
 * and vowels; m is its measure. *v* means "contains a vowel", *d "ends in a double consonant" and *o "ends
 * consonant–vowel–consonant, the last not w, x or y".
 */

/** NLTK's irregular forms, looked up before any step (errors reported to Porter over the years). */
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['inning', 'inning'],
  ['innings', 'inning'],
  ['outing', 'outing'],
  ['outings', 'outing'],
  ['canning', 'canning'],
  ['cannings', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
]);

/** Stems one word. rouge_score hands it lower-case ASCII tokens; NLTK lower-cases first, and so does this. */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  const irregular = IRREGULAR_FORMS.get(lower);
  if (irregular !== undefined) return irregular;
  // Not in the paper: Porter's later implementations leave words of one or two letters alone.
  if (word.length <= 2) return lower;
  let stem = lower;
  for (const step of [step1a, step1b, step1c, step2, step3, step4, step5a, step5b]) stem = step(stem);
  return stem;
}

// ---- Porter's definitions ---------------------------------------------------------------------------------

/** Whether each letter is a consonant. A y's class depends on the letter before it, so one left-to-right pass. */
function consonantFlags(word: string): boolean[] {
  const flags: boolean[] = [];
  for (let index = 0; index < word.length; index += 1) {
    const letter = word.charAt(index);
    if ('aeiou'.includes(letter)) flags.push(false);
    else if (letter === 'y') flags.push(index === 0 || !flags[index - 1]);
    else flags.push(true);
  }
  return flags;
}

const isConsonantAt = (word: string, index: number): boolean => consonantFlags(word)[index] === true;

/** m: the number of vowel-run → consonant-run boundaries. */
function measure(stem: string): number {
  const flags = consonantFlags(stem);
  return flags.filter((consonant, index) => consonant && index > 0 && !flags[index - 1]).length;
}

const containsVowel = (stem: string): boolean => consonantFlags(stem).includes(false);

/** *d */
const endsDoubleConsonant = (word: string): boolean => word.length >= 2 && word.at(-1) === word.at(-2) && isConsonantAt(word, word.length - 1);

/** *o, which NLTK extends to two-letter stems that are vowel–consonant (any consonant, w, x and y included). */
function endsConsonantVowelConsonant(word: string): boolean {
  const flags = consonantFlags(word);
  if (word.length === 2) return !flags[0] && flags[1] === true;
  const n = word.length;
  return n >= 3 && flags[n - 3] === true && !flags[n - 2] && flags[n - 1] === true && !'wxy'.includes(word.at(-1) ?? '');
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const measureAboveOne = (stem: string): boolean => measure(stem) > 1;

// ---- Rules --------------------------------------------------------------------------------------------------

interface SuffixRule {
  readonly suffix: string;
  readonly replacement: string;
  /** Judged on the word without the suffix. */
  readonly condition: (stem: string) => boolean;
}

const rule = (suffix: string, replacement: string, condition: (stem: string) => boolean = () => true): SuffixRule => ({ suffix, replacement, condition });

/**
 * Porter's convention for a list of rules: only the rule with the longest matching suffix is considered, and if
 * its condition fails the word is left as it is (no shorter suffix is tried). Every list below is ordered so
 * that a suffix comes before any shorter suffix it ends with, which makes "the first match" that rule.
 */
function applyLongestMatch(word: string, rules: readonly SuffixRule[]): string {
  const match = rules.find((candidate) => word.endsWith(candidate.suffix));
  if (match === undefined) return word;
  const stem = word.slice(0, word.length - match.suffix.length);
  return match.condition(stem) ? stem + match.replacement : word;
}

// ---- The steps ----------------------------------------------------------------------------------------------

/** Step 1a: plurals. NLTK: a four-letter word in -ies keeps its e ('dies' → 'die', but 'flies' → 'fli'). */
function step1a(word: string): string {
  if (word.length === 4 && word.endsWith('ies')) return `${word.slice(0, 1)}ie`;
  return applyLongestMatch(word, [rule('sses', 'ss'), rule('ies', 'i'), rule('ss', 'ss'), rule('s', '')]);
}

/** Step 1b: -eed, -ed, -ing, then the repairs that let later steps recognise -ate, -ble and -ize. */
function step1b(word: string): string {
  // NLTK: -ied ends the step at once, as 'ie' in a four-letter word ('died' → 'die') and as 'i' otherwise.
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return positiveMeasure(stem) ? `${stem}ee` : word;
  }
  const suffix = ['ed', 'ing'].find((candidate) => word.endsWith(candidate) && containsVowel(word.slice(0, -candidate.length)));
  if (suffix === undefined) return word;
  const stem = word.slice(0, -suffix.length);
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  // *d and not (*l or *s or *z): drop one of the pair ('hopp' → 'hop'); 'fall', 'hiss', 'fizz' stay.
  if (endsDoubleConsonant(stem)) return 'lsz'.includes(stem.at(-1) ?? '') ? stem : stem.slice(0, -1);
  // (m = 1 and *o): put back an e ('fil' → 'file').
  return measure(stem) === 1 && endsConsonantVowelConsonant(stem) ? `${stem}e` : stem;
}

/**
 * Step 1c: y → i. NLTK's condition replaces the paper's *v*: the y must follow a consonant that is not the
 * word's first letter, so 'happy' → 'happi' and 'cry' → 'cri', while 'enjoy' and 'by' keep their y.
 */
const step1c = (word: string): string => applyLongestMatch(word, [rule('y', 'i', (stem) => stem.length > 1 && isConsonantAt(stem, stem.length - 1))]);

/** Step 2: double suffixes to single ones, for stems of m > 0. */
const STEP2_RULES: readonly SuffixRule[] = [
  rule('ational', 'ate', positiveMeasure),
  rule('tional', 'tion', positiveMeasure),
  rule('enci', 'ence', positiveMeasure),
  rule('anci', 'ance', positiveMeasure),
  rule('izer', 'ize', positiveMeasure),
  rule('bli', 'ble', positiveMeasure), // Porter's later correction of the paper's abli → able
  rule('alli', 'al', positiveMeasure),
  rule('entli', 'ent', positiveMeasure),
  rule('eli', 'e', positiveMeasure),
  rule('ousli', 'ous', positiveMeasure),
  rule('ization', 'ize', positiveMeasure),
  rule('ation', 'ate', positiveMeasure),
  rule('ator', 'ate', positiveMeasure),
  rule('alism', 'al', positiveMeasure),
  rule('iveness', 'ive', positiveMeasure),
  rule('fulness', 'ful', positiveMeasure),
  rule('ousness', 'ous', positiveMeasure),
  rule('aliti', 'al', positiveMeasure),
  rule('iviti', 'ive', positiveMeasure),
  rule('biliti', 'ble', positiveMeasure),
  rule('fulli', 'ful', positiveMeasure), // NLTK
  // NLTK counts the l with the stem, so short stems reduce too ('geologi' → 'geolog', as 'philologi').
  rule('logi', 'log', (stem) => positiveMeasure(`${stem}l`)),
];

function step2(word: string): string {
  // NLTK: -alli → -al first, and the result goes through step 2 again ('...ationalli' → '...ational' → '...ate').
  if (word.endsWith('alli') && positiveMeasure(word.slice(0, -4))) return step2(`${word.slice(0, -4)}al`);
  return applyLongestMatch(word, STEP2_RULES);
}

/** Step 3: -ic-, -full, -ness and the like, for stems of m > 0. */
const step3 = (word: string): string =>
  applyLongestMatch(word, [
    rule('icate', 'ic', positiveMeasure),
    rule('ative', '', positiveMeasure),
    rule('alize', 'al', positiveMeasure),
    rule('iciti', 'ic', positiveMeasure),
    rule('ical', 'ic', positiveMeasure),
    rule('ful', '', positiveMeasure),
    rule('ness', '', positiveMeasure),
  ]);

/** Step 4: the remaining suffixes go, for stems of m > 1 (-ion only after s or t). */
const step4 = (word: string): string =>
  applyLongestMatch(word, [
    ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map((suffix) => rule(suffix, '', measureAboveOne)),
    rule('ion', '', (stem) => measureAboveOne(stem) && (stem.endsWith('s') || stem.endsWith('t'))),
    ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((suffix) => rule(suffix, '', measureAboveOne)),
  ]);

/**
 * Step 5a: a final e goes when m > 1, or when m = 1 and the stem does not end *o ('cease' → 'ceas', 'rate'
 * stays). Two rules share the suffix here, so both conditions are tried (unlike the longest-match lists).
 */
function step5a(word: string): string {
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsConsonantVowelConsonant(stem)) ? stem : word;
}

/** Step 5b: -ll → -l when m > 1 ('controll' → 'control', 'roll' stays). */
const step5b = (word: string): string => (word.endsWith('ll') && measureAboveOne(word.slice(0, -1)) ? word.slice(0, -1) : word);
