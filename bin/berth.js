#!/usr/bin/env node
// Entry point of the installed `berth` command: runs the compiled CLI (`npm run build` makes dist/).
await import('../dist/src/cli/main.js');
