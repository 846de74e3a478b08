/** What the bench ran on: CPU model, core count and the vector extensions ONNX Runtime and torch pick kernels by. */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

export interface CpuInfo {
  readonly model: string;
  readonly cores: number;
  readonly avx2: boolean;
  readonly avx512: boolean;
  /** The AVX-512 subsets present (avx512f, avx512bw, avx512_vnni, avx512_bf16 …). */
  readonly avx512Flags: readonly string[];
}

export function cpuInfo(): CpuInfo {
  const text = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const flags = new Set(/^flags\s*:\s*(.*)$/m.exec(text)?.[1]?.split(/\s+/) ?? []);
  const avx512Flags = [...flags].filter((flag) => flag.startsWith('avx512')).sort();
  return {
    model: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    avx2: flags.has('avx2'),
    avx512: flags.has('avx512f'),
    avx512Flags,
  };
}

export function describeCpu(info: CpuInfo): string {
  const avx512 = info.avx512 ? `AVX-512 (${info.avx512Flags.join(', ')})` : 'no AVX-512';
  return `${info.model}, ${info.cores} cores, ${info.avx2 ? 'AVX2' : 'no AVX2'}, ${avx512}`;
}
