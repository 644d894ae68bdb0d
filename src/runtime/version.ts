// berth's version, written into every log header.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package version of this berth. */
export const berthVersion: string = (require('../../package.json') as { version: string }).version;
