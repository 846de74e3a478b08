/**
 * Phi-2's Hugging Face config.json, shipped with the package: the compression track prunes Phi-2, so it is
 * the default base of `check-track edge-compression`. It is a real file (not a constant) because the pruning
 * check reads its base from a path, and the report's `base.source` then names a file an operator can open.
 * The one URL works from src/inspect/config (tsx, tests) and from dist/inspect/config (the package ships
 * src/inspect/phi2-config.json, see package.json "files"): both sit three levels below the package root.
 */
import { fileURLToPath } from 'node:url';

export const PHI2_CONFIG_PATH: string = fileURLToPath(new URL('../../../src/inspect/phi2-config.json', import.meta.url));
