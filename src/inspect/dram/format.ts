/** The DRAM measurement as text: one line for the figure the verdict judges, one per probe with what it fed. */
import type { DramMeasurement, DramProbe } from './measure.js';
import { formatBytes, formatCount } from '../units.js';

function probeLine(probe: DramProbe, width: number): string {
  const logits = `logits [1, ${formatCount(probe.logitRows)}, ${probe.vocabSize === null ? '?' : formatCount(probe.vocabSize)}] ${probe.logitsType}`;
  const device = probe.devicePeakBytes === null ? '' : `, device peak ${formatBytes(probe.devicePeakBytes)}`;
  const reset = probe.peakResetSupported ? '' : '; peak not resettable, figure may include startup';
  return `  ${probe.kind.padEnd(width)}  ${probe.description}: peak RSS ${formatBytes(probe.peakRssBytes)}, ${formatBytes(probe.peakDeltaBytes)} over the ${formatBytes(probe.baselineRssBytes)} baseline${device}; ${logits}; load ${probe.loadMs.toFixed(0)} ms, forward ${probe.forwardMs.toFixed(0)} ms${reset}`;
}

export function formatDramMeasurement(measurement: DramMeasurement): string[] {
  const { probes } = measurement;
  const deciding = probes.find((probe) => probe.kind === measurement.decidingProbe)!;
  const onDevice = measurement.devicePeakBytes !== null;
  const figure = onDevice
    ? `peak device memory ${formatBytes(measurement.devicePeakBytes!)} (${deciding.deviceName ?? 'CUDA device'}: free before loading ${formatBytes(deciding.deviceBaselineFreeBytes ?? 0)} minus free after scoring)`
    : `peak ${formatBytes(measurement.peakDeltaBytes)} over the baseline`;
  const width = Math.max(...probes.map((probe) => probe.kind.length));
  return [
    `DRAM measured (batch 1, ${formatCount(measurement.tokens)} tokens, plain forward with full logits, one child process per probe${onDevice ? ', CUDA' : ''}): ${figure}, from probe ${measurement.decidingProbe}`,
    ...probes.map((probe) => probeLine(probe, width)),
    `  (text: ${measurement.text.source}, ${measurement.text.licence}; tokenized by ${measurement.text.tokenizer})`,
    ...measurement.rebuiltRotaryCaches.map(
      (cache) =>
        `  (rotary cache ${cache.tensor}: ${formatCount(cache.storedRows)} rows stored, rebuilt with ${formatCount(cache.rows)} in the measured copy of the graph from config.json: ${cache.settings.from.join(', ')}; ${cache.function}, layout ${cache.layout}, stored rows within ${cache.maxStoredError.toPrecision(2)})`,
    ),
  ];
}
