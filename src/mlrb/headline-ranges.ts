/**
 * The values a headline number can take, by the kind of metric it is. A run record is read back by tools that
 * average and rank runs, and a record is only a file: an accuracy of 7.5, −3 or 1.8e308 would otherwise move an
 * agent's mean and best without a word. An allow-list: a scored headline whose metric is not named here is
 * refused, so a metric added to a task definition must be given its range (a test checks every definition).
 */

interface MetricRange {
  readonly min: number;
  readonly max: number;
}

const FRACTION: MetricRange = { min: 0, max: 1 };

/** By metric name: lm-eval's metric without its filter (`acc` of `acc,none`), or the math report's metric. */
export const HEADLINE_METRIC_RANGES: Readonly<Record<string, MetricRange>> = {
  /** Accuracies and rates: fractions. */
  acc: FRACTION,
  acc_norm: FRACTION,
  exact_match: FRACTION,
  f1: FRACTION,
  /** SuperGLUE's score: the mean of 7 accuracies and ReCoRD's f1. */
  score: FRACTION,
  'lean.compile_rate': FRACTION,
  /** The math headline of records before v3. */
  rouge_l: FRACTION,
};

/** What the metric of a headline source is called in HEADLINE_METRIC_RANGES. */
export function headlineMetricName(source: { readonly metric: string }): string {
  return source.metric.split(',')[0] ?? source.metric;
}

/**
 * Why a headline's value is impossible, or undefined when it is sound: a scored headline has a source and a
 * number in its metric's range; any other status has no number.
 */
export function headlineValueProblem(headline: {
  readonly status: string;
  readonly value: number | null;
  readonly source: { readonly metric: string } | null;
}): string | undefined {
  if (headline.status !== 'scored')
    return headline.value === null ? undefined : `a ${headline.status} headline has no value, but this one is ${headline.value}`;
  if (headline.value === null) return 'a scored headline has a value, but this one is null';
  if (headline.source === null) return 'a scored headline names its source, but this one has none';
  const metric = headlineMetricName(headline.source);
  const range = Object.hasOwn(HEADLINE_METRIC_RANGES, metric) ? HEADLINE_METRIC_RANGES[metric] : undefined;
  if (range === undefined)
    return `the headline metric ${JSON.stringify(metric)} is not one a headline can be (known: ${Object.keys(HEADLINE_METRIC_RANGES).join(', ')})`;
  if (!(headline.value >= range.min && headline.value <= range.max))
    return `the headline ${metric} is ${headline.value}, outside its range [${range.min}, ${range.max}]`;
  return undefined;
}
