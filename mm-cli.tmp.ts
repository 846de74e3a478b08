import { main } from '/work/wt-metrics/src/cli/main.js';
process.exitCode = await main(process.argv.slice(2));
