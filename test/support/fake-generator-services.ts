/** CLI services whose generator is a ScriptedGenerator, recording what was opened and whether it was closed. */
import type { CliServices } from '../../src/cli/main.js';
import type { OpenGeneratorOptions } from '../../src/math-reasoning/generator-source.js';
import { codePointEncoder, ScriptedGenerator } from './fake-text-generator.js';

export interface FakeGeneratorServices extends CliServices {
  readonly opened: { model: string; options: OpenGeneratorOptions }[];
  readonly generator: ScriptedGenerator;
  closed: number;
}

export function fakeGeneratorServices(answer: (promptText: string) => string): FakeGeneratorServices {
  const generator = new ScriptedGenerator(answer);
  const services: FakeGeneratorServices = {
    opened: [],
    generator,
    closed: 0,
    openGenerator: async (model, options) => {
      services.opened.push({ model, options });
      return { generator, encoder: codePointEncoder, close: async () => void (services.closed += 1) };
    },
  };
  return services;
}
