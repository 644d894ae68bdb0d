#!/usr/bin/env node
// Entry point of the installed `berth` command: runs the bundled CLI (`npm run build` makes dist/berth.mjs).
await import('../dist/berth.mjs');
