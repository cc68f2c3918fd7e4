#!/usr/bin/env node
// The published entry point: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
