#!/usr/bin/env node
// Entry point of the installed `berth` command: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
