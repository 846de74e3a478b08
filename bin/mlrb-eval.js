#!/usr/bin/env node
// The bin is a shim: all behaviour, including the one error boundary, lives in the compiled CLI.
import { runCli } from '../dist/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
